/**
 * Reference problems of a schema document: a "$ref" that resolves to nothing, and the dynamic
 * references toolproof's runtime validator cannot follow. Both validators report exactly these,
 * from the same walk over the same cfworker lookup table, so they agree on which schemas are
 * usable.
 */
import { pointer } from "../../core/json.js";
import type { SchemaProblem } from "../../core/ports.js";
import type { CfworkerDocument } from "./cfworker-prepare.js";
import { quote } from "./messages.js";
import { walkSchemas } from "./schema-walk.js";

/**
 * Walks every subschema reachable through applicator keywords (unknown keywords and annotations
 * such as "examples" are data, not schemas) and reports references that cannot be followed.
 */
export function referenceProblems(document: CfworkerDocument): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  walkSchemas(document.json, (schema, tokens) => {
    const ref = schema.$ref;
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
          refused: true,
        });
      }
    }
  });
  return problems;
}
