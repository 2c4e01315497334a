/**
 * Which pinned operation a call means. A caller may name a tool by the function name agents see
 * (`calendar__book`), by the tool's name or by its library id, with `operation_id` optional when
 * only one operation of that tool is pinned. Anything not pinned fails closed: the call is a
 * harness error and nothing is forwarded anywhere.
 */
import type { HarnessErrorKind } from "../contract/types.js";
import type { PinnedOperation, PinnedTool } from "./setup.js";

export type Target =
  | { kind: "operation"; operation: PinnedOperation }
  | { kind: "harness_error"; harness_kind: HarnessErrorKind; message: string }
  /** The request itself is incomplete: the tool has several pinned operations and none was named. */
  | { kind: "ambiguous"; message: string; operation_ids: string[] };

export interface TargetIndex {
  byFunctionName: Map<string, PinnedOperation>;
  /** Tool id and tool name → the tool's pinned operations. */
  byTool: Map<string, { tool: PinnedTool; operations: PinnedOperation[] }>;
}

export function indexTargets(operations: readonly PinnedOperation[], tools: readonly PinnedTool[]): TargetIndex {
  const byFunctionName = new Map<string, PinnedOperation>();
  for (const operation of operations) byFunctionName.set(operation.function_name, operation);
  const byTool = new Map<string, { tool: PinnedTool; operations: PinnedOperation[] }>();
  for (const tool of tools) {
    const entry = {
      tool,
      operations: operations.filter((op) => op.tool_name === tool.tool_name && op.tool_id === tool.tool_id),
    };
    byTool.set(tool.tool_name, entry);
    if (tool.tool_id !== null) byTool.set(tool.tool_id, entry);
  }
  return { byFunctionName, byTool };
}

export function resolveTarget(index: TargetIndex, tool: string, operationId: string | undefined): Target {
  const named = index.byFunctionName.get(tool);
  if (named && (operationId === undefined || operationId === named.operation_id)) return { kind: "operation", operation: named };

  const entry = index.byTool.get(tool);
  if (!entry) {
    return { kind: "harness_error", harness_kind: "unknown_tool", message: `no tool named "${tool}" is pinned in this attempt; the call was not forwarded anywhere` };
  }
  if (operationId === undefined) {
    const only = entry.operations.length === 1 ? entry.operations[0] : undefined;
    if (only) return { kind: "operation", operation: only };
    const ids = entry.operations.map((op) => op.operation_id);
    return { kind: "ambiguous", message: `tool "${tool}" has several pinned operations (${ids.join(", ")}); name one in operation_id`, operation_ids: ids };
  }
  const pinned = entry.operations.find((op) => op.operation_id === operationId);
  if (pinned) return { kind: "operation", operation: pinned };
  if (entry.tool.operation_ids.includes(operationId)) {
    return {
      kind: "harness_error",
      harness_kind: "missing_definition",
      message: `operation "${operationId}" of tool "${tool}" is not pinned in this simulation, so there is no definition to answer it; nothing was forwarded`,
    };
  }
  return { kind: "harness_error", harness_kind: "unknown_operation", message: `tool "${tool}" has no operation "${operationId}"; nothing was forwarded` };
}
