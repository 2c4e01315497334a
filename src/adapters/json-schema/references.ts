/**
 * Reference problems of a schema document: a "$ref" that resolves to nothing, and the dynamic
 * references toolproof's runtime validator cannot follow. Both validators report exactly these,
 * from the same walk over the same cfworker lookup table, so they agree on which schemas are
 * usable.
 */
import { isJsonObject, pointer, type Problem } from "../../core/json.js";
import type { CfworkerDocument } from "./cfworker-prepare.js";
import { quote } from "./messages.js";

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
/** Keywords whose value maps names to subschemas. */
const MAP_KEYWORDS = ["$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies"] as const;

/**
 * Walks every subschema reachable through applicator keywords (unknown keywords and annotations
 * such as "examples" are data, not schemas) and reports references that cannot be followed.
 */
export function referenceProblems(document: CfworkerDocument): Problem[] {
  const problems: Problem[] = [];
  const visit = (schema: unknown, tokens: Array<string | number>): void => {
    if (!isJsonObject(schema)) return;
    const ref = schema["$ref"];
    if (typeof ref === "string") {
      // cfworker resolves "$ref" through exactly this absolute URI, set when it dereferenced the copy.
      const absolute: unknown = Reflect.get(schema, "__absolute_ref__");
      if (typeof absolute !== "string" || document.lookup[absolute] === undefined) {
        problems.push({
          path: pointer(...tokens, "$ref"),
          message: `$ref ${quote(ref)} cannot be resolved inside this document (remote schemas are not fetched)`,
        });
      }
    }
    for (const keyword of ["$dynamicRef", "$recursiveRef"] as const) {
      if (schema[keyword] !== undefined) {
        problems.push({
          path: pointer(...tokens, keyword),
          message: `${keyword} is not supported by toolproof (its runtime validator cannot follow dynamic references); use $ref`,
        });
      }
    }
    for (const keyword of SCHEMA_KEYWORDS) {
      const child = schema[keyword];
      if (child !== undefined && !Array.isArray(child)) visit(child, [...tokens, keyword]);
    }
    for (const keyword of ARRAY_KEYWORDS) {
      const children = schema[keyword];
      if (Array.isArray(children)) children.forEach((child, i) => visit(child, [...tokens, keyword, i]));
    }
    for (const keyword of MAP_KEYWORDS) {
      const children = schema[keyword];
      if (!isJsonObject(children)) continue;
      for (const [name, child] of Object.entries(children)) visit(child, [...tokens, keyword, name]);
    }
  };
  visit(document.root, []);
  return problems;
}
