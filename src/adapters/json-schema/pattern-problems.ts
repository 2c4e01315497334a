/**
 * Pattern problems of a schema document: the "pattern" values and "patternProperties" names (so
 * also the patterns under "propertyNames") that toolproof refuses to store, because they could
 * backtrack catastrophically or need a backtracking engine to run (see pattern-engine.ts). Both
 * validators report exactly these, so a schema is usable for one exactly when it is for the other.
 */
import { isJsonObject, pointer } from "../../core/json.js";
import type { SchemaProblem } from "../../core/ports.js";
import type { CfworkerDocument } from "./cfworker-prepare.js";
import { quote } from "./messages.js";
import { patternRefusal } from "./pattern-engine.js";
import { walkSchemas } from "./schema-walk.js";

const refusedPattern = (path: string, pattern: string, why: string): SchemaProblem => ({
  path,
  message: `toolproof refuses the pattern ${quote(pattern)}: it ${why}`,
  refused: true,
});

/** The walk is over the prepared copy, so a draft-07 keyword the draft ignores is not reported. */
export function patternProblems(document: CfworkerDocument): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  walkSchemas(document.json, (schema, tokens) => {
    const pattern = schema.pattern;
    if (typeof pattern === "string") {
      const why = patternRefusal(pattern);
      if (why !== undefined) problems.push(refusedPattern(pointer(...tokens, "pattern"), pattern, why));
    }
    const patternProperties = schema.patternProperties;
    if (isJsonObject(patternProperties)) {
      for (const name of Object.keys(patternProperties)) {
        const why = patternRefusal(name);
        if (why !== undefined) problems.push(refusedPattern(pointer(...tokens, "patternProperties", name), name, why));
      }
    }
  });
  return problems;
}
