/**
 * Where subschemas sit inside a schema object: the applicator keywords both drafts share plus
 * the 2020-12 ones. Unknown keywords and annotations ("examples", "default") hold data, not
 * schemas, and are never walked.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../core/json.js";

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = [
  "additionalItems",
  "unevaluatedItems",
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
] as const;
/** Keywords whose value is an array of subschemas. */
const ARRAY_KEYWORDS = ["prefixItems", "items", "allOf", "anyOf", "oneOf"] as const;
/** Keywords whose value maps names to subschemas ("dependencies" also maps to string arrays). */
const MAP_KEYWORDS = [
  "$defs",
  "definitions",
  "properties",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
] as const;

type PathToken = string | number;

/** Each subschema directly inside `schema`, with the reference tokens that lead to it. */
function subschemas(schema: JsonObject): Array<[tokens: PathToken[], child: JsonValue]> {
  const out: Array<[PathToken[], JsonValue]> = [];
  for (const keyword of SCHEMA_KEYWORDS) {
    const child = schema[keyword];
    if (child !== undefined && !Array.isArray(child)) out.push([[keyword], child]);
  }
  for (const keyword of ARRAY_KEYWORDS) {
    const children = schema[keyword];
    if (Array.isArray(children)) for (const [i, child] of children.entries()) out.push([[keyword, i], child]);
  }
  for (const keyword of MAP_KEYWORDS) {
    const children = schema[keyword];
    if (!isJsonObject(children)) continue;
    for (const [name, child] of Object.entries(children)) {
      if (!Array.isArray(child)) out.push([[keyword, name], child]);
    }
  }
  return out;
}

/** Calls `visit` on every schema object of a document, outermost first. */
export function walkSchemas(root: JsonValue, visit: (schema: JsonObject, tokens: PathToken[]) => void): void {
  const go = (schema: JsonValue, tokens: PathToken[]): void => {
    if (!isJsonObject(schema)) return;
    visit(schema, tokens);
    for (const [more, child] of subschemas(schema)) go(child, [...tokens, ...more]);
  };
  go(root, []);
}
