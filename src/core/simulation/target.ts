/**
 * Which pinned operation a call means. A caller may name a tool by the function name agents see
 * (`calendar__book`), by the tool's name or by its library id, with `operation_id` optional when
 * only one operation of that tool is pinned. Anything not pinned fails closed: the call is a
 * harness error and nothing is forwarded anywhere.
 */
import type { HarnessErrorKind } from "../contract/types.js";
import type { Problem } from "../json.js";
import { closestName as closest } from "../field-names.js";
import type { PinnedOperation, PinnedTool } from "./setup.js";

type Target =
  | { kind: "operation"; operation: PinnedOperation }
  | { kind: "harness_error"; harness_kind: HarnessErrorKind; message: string; details: Problem[] }
  /** The request itself is incomplete: the tool has several pinned operations and none was named. */
  | { kind: "ambiguous"; message: string; operation_ids: string[] };

export interface TargetIndex {
  byFunctionName: Map<string, PinnedOperation>;
  /** Every function name, in pinning order: what an unknown name is told to choose from. */
  functionNames: string[];
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
  return { byFunctionName, functionNames: operations.map((op) => op.function_name), byTool };
}

export function resolveTarget(index: TargetIndex, tool: string, operationId: string | undefined): Target {
  const named = index.byFunctionName.get(tool);
  if (named && (operationId === undefined || operationId === named.operation_id))
    return { kind: "operation", operation: named };

  const entry = index.byTool.get(tool);
  if (!entry) return unknownTool(index, tool);
  if (operationId === undefined) {
    const only = entry.operations.length === 1 ? entry.operations[0] : undefined;
    if (only) return { kind: "operation", operation: only };
    const ids = entry.operations.map((op) => op.operation_id);
    return {
      kind: "ambiguous",
      message: `tool "${tool}" has several pinned operations (${ids.join(", ")}); name one in operation_id`,
      operation_ids: ids,
    };
  }
  const pinned = entry.operations.find((op) => op.operation_id === operationId);
  if (pinned) return { kind: "operation", operation: pinned };
  if (entry.tool.operation_ids.includes(operationId)) {
    return {
      kind: "harness_error",
      harness_kind: "missing_definition",
      message: `operation "${operationId}" of tool "${tool}" is not pinned in this simulation, so there is no definition to answer it; nothing was forwarded`,
      details: [
        {
          path: "/operation_id",
          message: `not pinned; pinned operations of "${tool}": ${entry.operations.map((op) => op.operation_id).join(", ")}`,
        },
      ],
    };
  }
  return {
    kind: "harness_error",
    harness_kind: "unknown_operation",
    message: `tool "${tool}" has no operation "${operationId}"; nothing was forwarded`,
    details: [{ path: "/operation_id", message: `expected one of: ${entry.tool.operation_ids.join(", ")}` }],
  };
}

/**
 * A name no pinned tool answers to. Still a harness error (the contract fails closed: nothing is
 * forwarded, and a run that called a tool it was not given cannot pass), but one that says what
 * the attempt does have and, when one is near, which name was meant. The usual slip is an
 * operation id or a tool's name where the function name belongs.
 */
function unknownTool(index: TargetIndex, tool: string): Target {
  const meant = meantFunctionName(index, tool);
  const names = index.functionNames.join(", ");
  const hint = meant === undefined ? "" : `did you mean "${meant}"? `;
  return {
    kind: "harness_error",
    harness_kind: "unknown_tool",
    message: `no tool named "${tool}" is pinned in this attempt, so the call was not forwarded anywhere; ${hint}the attempt's tools: ${names}`,
    details: [{ path: "/tool", message: `${hint}expected one of: ${names}` }],
  };
}

function meantFunctionName(index: TargetIndex, tool: string): string | undefined {
  const byOperation = [...index.byFunctionName.values()].filter((op) => op.operation_id === tool);
  if (byOperation.length === 1) return byOperation[0]?.function_name;
  return closest(tool, index.functionNames);
}
