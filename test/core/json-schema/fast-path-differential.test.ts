/**
 * Property-based differential test: on random schemas built from the keywords the fast path
 * implements (both drafts, "$ref"s into "$defs" and to the root included) and random JSON values
 * plus values derived from each schema, the fast path's verdict equals cfworker's. Deterministic
 * seed, so a failure reproduces; fast-check prints the shrunk schema and value.
 */
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { isJsonObject, type JsonObject } from "../../../src/core/json.js";
import { documentArbitrary, jsonValue, likelyValue } from "./fast-path-arbitraries.js";
import { asSchema, fastPathFor, slowValidator } from "./fast-path-harness.js";

const RUNS = 4000;
const SEED = 20_260_130;

const slow = slowValidator({ cacheSize: 50 });
const stats = { schemas: 0, compiled: 0, endless: 0, values: 0, valid: 0 };
afterAll(() =>
  console.log(
    `fast path differential: ${stats.schemas} random schemas, ${stats.compiled} compiled (${stats.endless} left to cfworker for endless "$ref" recursion), ` +
      `${stats.values} values compared (${stats.valid} valid, ${stats.values - stats.valid} invalid)`,
  ),
);

const caseArbitrary = documentArbitrary.chain(({ draft, schema }) => {
  const root: JsonObject = isJsonObject(schema) ? schema : {};
  return fc.record({
    draft: fc.constant(draft),
    schema: fc.constant(schema),
    values: fc.array(fc.oneof(jsonValue, likelyValue(schema, root)), { minLength: 1, maxLength: 6 }),
  });
});

it("gives cfworker's verdict on random schemas and values", () => {
  fc.assert(
    fc.property(caseArbitrary, ({ draft, schema, values }) => {
      stats.schemas++;
      const reasons: string[] = [];
      const fast = fastPathFor(schema, draft, undefined, (reason) => reasons.push(reason));
      if (fast === undefined) {
        // Every generated schema is within the implemented subset, except that "$ref"s placed at
        // random can apply a schema to the same value forever (cfworker overflows its stack).
        expect(reasons).toEqual([expect.stringContaining("endless recursion")]);
        stats.endless++;
        return;
      }
      stats.compiled++;
      for (const value of values) {
        const expected = slow.validate(asSchema(schema), value).length === 0;
        stats.values++;
        if (expected) stats.valid++;
        expect(fast(value)).toBe(expected);
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
  // The derived values must make valid verdicts common, or the test says little about them.
  expect(stats.valid).toBeGreaterThan(stats.values / 5);
  expect(stats.compiled).toBeGreaterThan(stats.schemas * 0.8);
}, 300_000);
