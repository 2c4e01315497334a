/**
 * The rule ids of the policy check: stable strings that CI logs, dashboards and docs refer to.
 * The order here is the order findings are reported in. Renaming an id breaks people's greps:
 * add new ids instead.
 */
export const RULES = [
  { id: "tool_set.missing", summary: "a reviewed tool is missing from the manifest" },
  { id: "tool_set.unexpected", summary: "the manifest has a tool the policy does not review" },
  { id: "tool_set.duplicate", summary: "the manifest declares the same tool name more than once" },
  {
    id: "approval.mismatch",
    summary: "a tool's approval mode differs from the reviewed one (unset counts as never_require)",
  },
  { id: "approval.write_verb", summary: "a tool whose name starts with a write verb is not always_require" },
  {
    id: "approval.mcp_write",
    summary: "an MCP tool that may write (destructiveHint, or no readOnlyHint) is not always_require",
  },
  { id: "description.missing", summary: "a tool has no description" },
  { id: "description.too_short", summary: "a tool's description is shorter than min_description_length" },
  { id: "description.required_word", summary: "a tool's description lacks a required word" },
  { id: "enum.missing_parameter", summary: "a parameter the policy requires to be a closed enum does not exist" },
  { id: "enum.not_closed", summary: "a parameter the policy requires to be a closed enum accepts free values" },
  { id: "enum.values", summary: "a closed enum's values differ from the reviewed values" },
  { id: "mcp.missing_server", summary: "a reviewed MCP server is not in the manifest" },
  { id: "mcp.unexpected_server", summary: "the manifest connects an MCP server the policy does not review" },
  { id: "mcp.duplicate_server", summary: "the manifest declares the same MCP server more than once" },
  { id: "mcp.unfiltered", summary: "an MCP server has no allowed_tools, so every server-side tool reaches the model" },
  { id: "mcp.filter_mismatch", summary: "an MCP server's allowed_tools differs from the reviewed list" },
] as const;

export type RuleId = (typeof RULES)[number]["id"];

const ORDER = new Map<string, number>(RULES.map((rule, index) => [rule.id, index]));

/** Position of a rule in the report order; unknown ids sort last. */
export function ruleOrder(id: string): number {
  return ORDER.get(id) ?? RULES.length;
}
