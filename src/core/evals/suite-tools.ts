/** A suite's tool entries as the planner and the approval resolver see them. */
import type { ToolEntry } from "../simulation/plan.js";
import type { PinnedOperation } from "../simulation/setup.js";
import type { Suite, SuiteTool } from "./suite-types.js";

/** The planner's entries for a suite's agent: the same selection, without approval modes. */
export function suiteToolEntries(suite: Pick<Suite, "agent">): ToolEntry[] {
  return suite.agent.tools.map(toolEntry);
}

/** The planner's entry for a suite's tool: the same selection, without the approval mode. */
export function toolEntry(tool: SuiteTool): ToolEntry {
  if ("inline" in tool) return { inline: tool.inline, variant: tool.variant };
  return { tool_id: tool.tool_id, operation_id: tool.operation_id, variant: tool.variant, mode: tool.mode };
}

/** The JSON Pointers of the entries that ask for real tools, under `at` (where the tools sit in the document). */
export function realModePaths(
  tools: ReadonlyArray<SuiteTool | { mode?: "mock" | "real" }>,
  at = "/agent/tools",
): string[] {
  return tools.flatMap((tool, index) => ("mode" in tool && tool.mode === "real" ? [`${at}/${index}/mode`] : []));
}

/**
 * Which of `tools` selected `operation` (planning pins an operation once, so there is one).
 * Library entries match by tool id and operation; inline ones by name and operation id.
 */
export function entryIndexOf(
  tools: readonly SuiteTool[],
  operation: Pick<PinnedOperation, "tool_id" | "tool_name" | "operation_id">,
): number {
  return tools.findIndex((tool) => {
    if ("inline" in tool)
      return (
        operation.tool_id === null &&
        tool.inline.name === operation.tool_name &&
        (tool.inline.operation_id ?? tool.inline.name) === operation.operation_id
      );
    return (
      tool.tool_id === operation.tool_id &&
      (tool.operation_id === undefined || tool.operation_id === operation.operation_id)
    );
  });
}
