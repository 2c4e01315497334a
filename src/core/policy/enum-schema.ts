/**
 * Whether a tool parameter's JSON Schema is a closed set of values, and which values. Schemas come
 * from code generators (Pydantic, zod-to-json-schema, MCP SDKs), so the common ways of spelling a
 * closed set are recognised: `enum`, `const` (a one-value Literal), a local `$ref` to either (a
 * Python Enum class lands in `$defs`), a one-element `allOf` wrapper, and `anyOf`/`oneOf` of closed
 * branches where a `{"type": "null"}` branch only makes the parameter optional.
 */
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from "../json.js";

type ParameterShape = { kind: "missing" } | { kind: "open"; detail: string } | { kind: "closed"; values: JsonValue[] };

/** $ref chains deeper than this are treated as open rather than followed forever. */
const MAX_REF_DEPTH = 16;

export function parameterShape(parameters: JsonValue | null, parameter: string): ParameterShape {
  if (!isJsonObject(parameters)) return { kind: "missing" };
  const properties = parameters.properties;
  if (!isJsonObject(properties) || !Object.hasOwn(properties, parameter)) return { kind: "missing" };
  const schema = properties[parameter];
  return schema === undefined ? { kind: "missing" } : closedValues(schema, parameters, 0);
}

/** Values in `actual` that `expected` lacks, and the reverse; order and duplicates are ignored. */
export function enumDifference(
  actual: readonly JsonValue[],
  expected: readonly JsonValue[],
): { extra: JsonValue[]; missing: JsonValue[] } {
  const has = (list: readonly JsonValue[], value: JsonValue): boolean => list.some((item) => jsonEqual(item, value));
  return {
    extra: actual.filter((value) => !has(expected, value)),
    missing: expected.filter((value) => !has(actual, value)),
  };
}

function closedValues(schema: JsonValue, root: JsonObject, depth: number): ParameterShape {
  if (schema === true) return { kind: "open", detail: "its schema is true, which accepts anything" };
  if (!isJsonObject(schema)) return { kind: "open", detail: "its schema is not an object" };
  if (typeof schema.$ref === "string") {
    const target = depth < MAX_REF_DEPTH ? resolveLocalRef(root, schema.$ref) : undefined;
    if (target === undefined)
      return {
        kind: "open",
        detail: `its $ref ${JSON.stringify(schema.$ref)} does not resolve inside the parameters schema`,
      };
    return closedValues(target, root, depth + 1);
  }
  if (Array.isArray(schema.enum)) return { kind: "closed", values: unique(schema.enum) };
  if (Object.hasOwn(schema, "const") && schema.const !== undefined) return { kind: "closed", values: [schema.const] };
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && schema.allOf[0] !== undefined)
    return closedValues(schema.allOf[0], root, depth + 1);
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (branches) {
    const values: JsonValue[] = [];
    for (const branch of branches) {
      if (isNullOnly(branch)) continue;
      const shape = closedValues(branch, root, depth + 1);
      if (shape.kind !== "closed") return { kind: "open", detail: "one of its alternatives accepts free values" };
      values.push(...shape.values);
    }
    if (values.length > 0) return { kind: "closed", values: unique(values) };
  }
  const type =
    typeof schema.type === "string" ? schema.type : Array.isArray(schema.type) ? schema.type.join(" or ") : undefined;
  return { kind: "open", detail: type ? `it accepts any ${type}` : "its schema has no enum" };
}

function isNullOnly(schema: JsonValue): boolean {
  return (
    isJsonObject(schema) &&
    schema.type === "null" &&
    Object.keys(schema).every((key) => key === "type" || key === "description" || key === "title")
  );
}

/** Resolves "#", "#/$defs/X" and other JSON Pointer fragments against the parameters document. */
function resolveLocalRef(root: JsonObject, ref: string): JsonValue | undefined {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === "") return root;
  if (!fragment.startsWith("/")) return undefined;
  let node: JsonValue = root;
  for (const token of fragment.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
      const next: JsonValue | undefined = node[Number(key)];
      if (next === undefined) return undefined;
      node = next;
    } else if (isJsonObject(node) && Object.hasOwn(node, key)) {
      const next: JsonValue | undefined = node[key];
      if (next === undefined) return undefined;
      node = next;
    } else {
      return undefined;
    }
  }
  return node;
}

function unique(values: readonly JsonValue[]): JsonValue[] {
  const result: JsonValue[] = [];
  for (const value of values) if (!result.some((seen) => jsonEqual(seen, value))) result.push(value);
  return result;
}
