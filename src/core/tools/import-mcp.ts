/**
 * An MCP server's `tools/list` result becomes one library tool with one operation per MCP tool.
 * Annotations are kept as declared, because policy checks read readOnlyHint and destructiveHint.
 */
import type { JsonObject, Problem } from "../json.js";
import { isJsonObject, pointer } from "../json.js";
import type { JsonSchema } from "../ports.js";
import type { OperationSpec, ToolSpec } from "./types.js";

/** Operation ids become function names a model sees, so they keep to what model APIs accept. */
const OPERATION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

interface McpImportRequest {
  name: string;
  description?: string | undefined;
  output_schema?: JsonSchema | undefined;
  allowed_tools?: string[] | undefined;
  /** The `result` of a tools/list response: {"tools": [...], "nextCursor"?: ...}. */
  tools_list: unknown;
}

export type ImportResult = { ok: true; tool: ToolSpec } | { ok: false; problems: Problem[] };

export function toolFromMcpToolsList(request: McpImportRequest): ImportResult {
  const problems: Problem[] = [];
  const list = request.tools_list;
  if (!isJsonObject(list) || !Array.isArray(list.tools)) {
    return {
      ok: false,
      problems: [
        { path: "/tools_list/tools", message: 'expected the tools/list result, an object with a "tools" array' },
      ],
    };
  }
  const allowed = request.allowed_tools ? new Set(request.allowed_tools) : undefined;
  const seen = new Set<string>();
  const operations: OperationSpec[] = [];
  list.tools.forEach((entry, index) => {
    const at = (...tokens: Array<string | number>) => pointer("tools_list", "tools", index, ...tokens);
    if (!isJsonObject(entry)) {
      problems.push({ path: at(), message: "expected an MCP tool object" });
      return;
    }
    const { name, description, inputSchema, outputSchema, annotations, title } = entry;
    if (typeof name !== "string" || name === "") {
      problems.push({ path: at("name"), message: "expected the tool's name, a non-empty string" });
      return;
    }
    if (!OPERATION_NAME.test(name)) {
      problems.push({
        path: at("name"),
        message: `"${name}" cannot be an operation id: expected 1 to 64 letters, digits, '_' or '-'`,
      });
    }
    if (seen.has(name)) problems.push({ path: at("name"), message: `duplicate tool name "${name}"` });
    seen.add(name);
    if (allowed && !allowed.has(name)) return;
    if (description !== undefined && typeof description !== "string")
      problems.push({ path: at("description"), message: "expected a string" });
    if (!isJsonObject(inputSchema))
      problems.push({ path: at("inputSchema"), message: "expected a JSON Schema object (MCP requires inputSchema)" });
    if (outputSchema !== undefined && !isJsonObject(outputSchema))
      problems.push({ path: at("outputSchema"), message: "expected a JSON Schema object" });
    if (annotations !== undefined && !isJsonObject(annotations))
      problems.push({ path: at("annotations"), message: "expected an object" });
    if (!isJsonObject(inputSchema)) return;
    const kept: JsonObject = isJsonObject(annotations) ? { ...annotations } : {};
    if (typeof title === "string" && kept.title === undefined) kept.title = title;
    operations.push({
      operation_id: name,
      description: typeof description === "string" ? description : "",
      input_schema: inputSchema,
      output_schema: isJsonObject(outputSchema) ? outputSchema : undefined,
      annotations: Object.keys(kept).length > 0 ? kept : undefined,
    });
  });
  if (allowed) {
    request.allowed_tools?.forEach((name, index) => {
      if (!seen.has(name))
        problems.push({ path: pointer("allowed_tools", index), message: `the server lists no tool named "${name}"` });
    });
  }
  if (problems.length === 0 && operations.length === 0) {
    problems.push({ path: allowed ? "/allowed_tools" : "/tools_list/tools", message: "no tools left to import" });
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    tool: {
      name: request.name,
      description: request.description ?? `MCP server ${request.name}`,
      kind: "mcp",
      output_schema: request.output_schema,
      operations,
      source: { format: "mcp", ...(request.allowed_tools ? { allowed_tools: request.allowed_tools } : {}) },
    },
  };
}
