/**
 * Readers for the pieces several manifest shapes share: an MCP tool as tools/list describes it,
 * and an optional description or parameters schema. Third-party shapes (OpenAI, MCP) keep growing
 * fields, so these readers ignore fields they do not use rather than refusing them.
 */
import type { JsonValue } from "../json.js";
import {
  at,
  describeValue,
  isJsonValue,
  isRecord,
  type ProblemList,
  readBoolean,
  readName,
  readObject,
} from "./fields.js";
import type { ManifestTool, McpAnnotations } from "./types.js";

/** A description that may be absent or null (both mean "none"). */
export function readOptionalDescription(
  value: unknown,
  path: string,
  problems: ProblemList,
): string | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  problems.add(path, `expected a string, got ${describeValue(value)}`);
  return undefined;
}

/** A JSON Schema (object or boolean) that may be absent or null (both mean "none declared"). */
export function readOptionalSchema(value: unknown, path: string, problems: ProblemList): JsonValue | undefined {
  if (value === undefined || value === null) return null;
  if ((isRecord(value) || typeof value === "boolean") && isJsonValue(value)) return value;
  problems.add(path, `expected a JSON Schema (an object), got ${describeValue(value)}`);
  return undefined;
}

/** One entry of an MCP tools/list result: {name, description?, inputSchema, annotations?}. */
export function readMcpTool(value: unknown, path: string, problems: ProblemList): ManifestTool | undefined {
  const tool = readObject(value, path, problems, "an MCP tool ({name, description, inputSchema, annotations})");
  if (!tool) return undefined;
  const name = readName(tool.name, at(path, "name"), problems);
  const description = readOptionalDescription(tool.description, at(path, "description"), problems);
  const parameters = readOptionalSchema(tool.inputSchema, at(path, "inputSchema"), problems);
  const annotations = readAnnotations(tool.annotations, at(path, "annotations"), problems);
  if (name === undefined || description === undefined || parameters === undefined || annotations === undefined)
    return undefined;
  return { name, description, approval_mode: null, parameters, annotations };
}

function readAnnotations(value: unknown, path: string, problems: ProblemList): McpAnnotations | null | undefined {
  if (value === undefined || value === null) return null;
  const object = readObject(value, path, problems, "MCP tool annotations");
  if (!object) return undefined;
  const annotations: McpAnnotations = {};
  let ok = true;
  for (const hint of ["readOnlyHint", "destructiveHint"] as const) {
    if (object[hint] === undefined) continue;
    const flag = readBoolean(object[hint], at(path, hint), problems);
    if (flag === undefined) ok = false;
    else annotations[hint] = flag;
  }
  return ok ? annotations : undefined;
}

/**
 * Reads a list with one reader per item, keeping going after a bad item so every problem is
 * reported; answers undefined if any item was bad.
 */
export function readList<T>(
  value: unknown,
  path: string,
  problems: ProblemList,
  what: string,
  item: (value: unknown, path: string) => T | undefined,
): T[] | undefined {
  if (!Array.isArray(value)) {
    problems.add(path, `expected ${what} (an array), got ${describeValue(value)}`);
    return undefined;
  }
  const items: T[] = [];
  let ok = true;
  value.forEach((entry, index) => {
    const read = item(entry, at(path, index));
    if (read === undefined) ok = false;
    else items.push(read);
  });
  return ok ? items : undefined;
}
