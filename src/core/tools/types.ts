/** A library tool as the API accepts it: one or more operations, each with its own contract. */
import type { JsonObject } from "../json.js";
import type { JsonSchema } from "../ports.js";

/** Every library tool id starts with this; a tool_id without it is most often the tool's name. */
export const TOOL_ID_PREFIX = "tool_";

export type ToolKind = "http" | "mcp" | "platform";
export const TOOL_KINDS: readonly ToolKind[] = ["http", "mcp", "platform"];

export interface OperationSpec {
  operation_id: string;
  description: string;
  input_schema: JsonSchema;
  /** Absent: the tool's output_schema applies. */
  output_schema?: JsonSchema | undefined;
  /** MCP annotations such as readOnlyHint and destructiveHint, kept for policy checks. */
  annotations?: JsonObject | undefined;
}

export interface ToolSpec {
  name: string;
  description: string;
  kind: ToolKind;
  /** Fallback for operations without an output schema of their own. */
  output_schema?: JsonSchema | undefined;
  operations: OperationSpec[];
  /** Where the tool came from (import format and its options), for people reading it later. */
  source?: JsonObject | undefined;
}
