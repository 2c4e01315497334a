/**
 * How pinned operations and call answers look over MCP. Pure shaping, no SDK import, so the
 * rules are unit-tested on their own:
 *
 * - inputSchema: MCP requires a schema of `type: "object"`. An operation's schema that already is
 *   one is passed as is; any other (a boolean, a schema without `type`) is wrapped as
 *   `{type: "object", allOf: [schema]}` so it still says exactly what the dispatcher enforces.
 * - outputSchema: declared only when the operation's output schema is an object schema, because
 *   MCP's structuredContent is always an object. Results are validated by the dispatcher either way.
 * - structuredContent: the result itself when it is an object, else `{"result": <value>}`; the
 *   text content is always the exact JSON the HTTP dispatch would have answered.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../json.js";
import type { JsonSchema } from "../ports.js";

interface McpToolShape {
  name: string;
  description: string;
  inputSchema: JsonObject & { type: "object" };
  outputSchema?: JsonObject & { type: "object" };
  annotations?: JsonObject;
}

const ANNOTATION_KEYS: Record<string, "string" | "boolean"> = {
  title: "string",
  readOnlyHint: "boolean",
  destructiveHint: "boolean",
  idempotentHint: "boolean",
  openWorldHint: "boolean",
};

export function mcpTool(tool: {
  function_name: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  annotations: JsonObject | null;
}): McpToolShape {
  const shape: McpToolShape = {
    name: tool.function_name,
    description: tool.description,
    inputSchema: objectSchema(tool.input_schema),
  };
  if (isObjectTyped(tool.output_schema)) shape.outputSchema = tool.output_schema;
  const annotations = knownAnnotations(tool.annotations);
  if (annotations) shape.annotations = annotations;
  return shape;
}

export function structuredContent(result: JsonValue): JsonObject {
  return isJsonObject(result) ? result : { result };
}

function objectSchema(schema: JsonSchema): JsonObject & { type: "object" } {
  if (isObjectTyped(schema)) return schema;
  return { type: "object", allOf: [schema] };
}

function isObjectTyped(schema: JsonSchema): schema is JsonObject & { type: "object" } {
  return typeof schema === "object" && schema.type === "object";
}

/** Only the annotations MCP defines, with the types it defines: a client validating tools/list must not choke on ours. */
function knownAnnotations(annotations: JsonObject | null): JsonObject | undefined {
  if (!annotations) return undefined;
  const kept: JsonObject = {};
  for (const [key, type] of Object.entries(ANNOTATION_KEYS)) {
    const value = annotations[key];
    if (typeof value === type) kept[key] = value ?? null;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}
