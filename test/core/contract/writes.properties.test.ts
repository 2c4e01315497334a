/**
 * Version-2 writes against a plain reference: for any state and any list of set writes at fixed
 * paths, the copy-on-write state equals a deep copy updated with version 1's setPath one write
 * at a time, the state handed in is never modified, and what no write touched is shared.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { executeCall, setPath } from "../../../src/core/contract/index.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import { acceptAll, parsed } from "./helpers.js";

const KEYS = ["a", "b", "c", "0", "1"];
const keyArb = fc.constantFrom(...KEYS);
const valueArb = fc.jsonValue({ maxDepth: 2 }).map((value) => value as JsonValue);
const stateArb: fc.Arbitrary<JsonObject> = fc
  .dictionary(keyArb, fc.oneof(valueArb, fc.dictionary(keyArb, valueArb), fc.array(valueArb, { maxLength: 3 })))
  .map((value) => value as JsonObject);
const writeArb = fc.record({ path: fc.array(keyArb, { minLength: 1, maxLength: 3 }), value: valueArb });

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe("version-2 set writes", () => {
  it("equal version 1's setPath applied in order on a deep copy, without touching the input", () => {
    fc.assert(
      fc.property(stateArb, fc.array(writeArb, { minLength: 1, maxLength: 4 }), (state, writes) => {
        const reference: JsonObject = structuredClone(state);
        let referenceProblem: string | null = null;
        for (const write of writes) {
          referenceProblem ??= setPath(reference, write.path, write.value);
        }
        const definition = parsed({
          schema_version: 2,
          default_variant: "ok",
          variants: {
            ok: {
              result: null,
              set_state: writes.map((write) => ({
                set: write.path,
                value: { $expr: `input.v${writes.indexOf(write)}` },
              })),
            },
          },
          examples: [
            { variant: "ok", input: Object.fromEntries(writes.map((w, i) => [`v${i}`, w.value])), expected: null },
          ],
        });
        const frozen = deepFreeze(structuredClone(state));
        const args = Object.fromEntries(writes.map((w, i) => [`v${i}`, w.value]));
        const outcome = executeCall({
          input_schema: {},
          output_schema: true,
          definition,
          args,
          state: frozen,
          validator: acceptAll,
        });
        expect(frozen).toEqual(state);
        if (referenceProblem !== null) {
          expect(outcome).toMatchObject({ kind: "harness_error", harness_kind: "missing_reference" });
          return;
        }
        if (outcome.kind !== "result") throw new Error(JSON.stringify(outcome));
        expect(outcome.state).toEqual(reference);
        // A top-level key no write starts with is the very same object as before.
        for (const key of Object.keys(state)) {
          if (!writes.some((w) => w.path[0] === key)) expect(outcome.state[key]).toBe(frozen[key]);
        }
      }),
      { numRuns: 200, seed: 21 },
    );
  });
});
