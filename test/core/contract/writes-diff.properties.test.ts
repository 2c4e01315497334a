/**
 * The record diff an attempt stores after a version-2 call (datasets/records.ts) looks only at the
 * records the engine wrote into the collections it copied. For any state and any calls of set,
 * merge, append and remove writes, at any depth, with values taken from the arguments or from the
 * state itself (so a copied collection may also be reached through another path), that diff must
 * equal the full comparison of every record, in the same order, call after call.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { executeCall } from "../../../src/core/contract/index.js";
import { applyChanges, deepFreeze, diffRecords, WrittenRecords } from "../../../src/core/datasets/records.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import { acceptAll, parsed } from "./helpers.js";

const KEYS = ["a", "b", "#W1", "0"];
const keyArb = fc.constantFrom(...KEYS);
const valueArb = fc.jsonValue({ maxDepth: 2 }).map((value) => value as JsonValue);
const recordArb = fc.oneof(valueArb, fc.dictionary(keyArb, valueArb));
const stateArb: fc.Arbitrary<JsonObject> = fc
  .dictionary(keyArb, fc.oneof(valueArb, fc.dictionary(keyArb, recordArb)))
  .map((value) => value as JsonObject);

type Source = { from: "input"; value: JsonValue } | { from: "state"; path: string[] };
interface Write {
  op: "set" | "merge" | "append" | "remove";
  path: string[];
  source: Source;
}
const pathArb = fc.array(keyArb, { minLength: 1, maxLength: 3 });
const sourceArb: fc.Arbitrary<Source> = fc.oneof(
  valueArb.map((value): Source => ({ from: "input", value })),
  // An object value that is (a copy of) part of the state, a collection among them.
  fc.array(keyArb, { minLength: 1, maxLength: 2 }).map((path): Source => ({ from: "state", path })),
);
const writeArb: fc.Arbitrary<Write> = fc.record({
  op: fc.constantFrom("set" as const, "merge" as const, "append" as const, "remove" as const),
  path: pathArb,
  source: sourceArb,
});
const callsArb = fc.array(fc.array(writeArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 });

/** One call's writes as a version-2 definition; each value is an argument, or the state read through CEL. */
function callOf(writes: readonly Write[]): { definition: ReturnType<typeof parsed>; args: JsonObject } {
  const args: JsonObject = {};
  const set_state = writes.map((write, i) => {
    if (write.op === "remove") return { remove: write.path };
    let value: JsonValue;
    if (write.source.from === "input") {
      args[`v${i}`] = write.source.value;
      value = { $expr: `input.v${i}` };
    } else {
      value = { $expr: `state${write.source.path.map((key) => `[${JSON.stringify(key)}]`).join("")}` };
    }
    return { [write.op]: write.path, value };
  });
  const definition = parsed({
    schema_version: 2,
    default_variant: "ok",
    variants: { ok: { result: null, set_state } },
    // Required by the format; a save would run it, a call does not.
    examples: [{ variant: "ok", input: args, expected: null }],
  });
  return { definition, args };
}

describe("the record diff after version-2 writes", () => {
  it("equals the full comparison of every record, call after call", () => {
    fc.assert(
      fc.property(stateArb, callsArb, (raw, calls) => {
        let state = deepFreeze(structuredClone(raw));
        for (const writes of calls) {
          const { definition, args } = callOf(writes);
          const written = new WrittenRecords();
          const outcome = executeCall({
            input_schema: {},
            output_schema: true,
            definition,
            args,
            state,
            validator: acceptAll,
            written,
          });
          if (outcome.kind !== "result") continue;
          const after = outcome.state;
          const changes = diffRecords(state, after, written);
          // A deep copy of the state after shares nothing, so it is compared record by record.
          expect(changes).toEqual(diffRecords(state, structuredClone(after)));
          expect(applyChanges(state, changes)).toEqual(after);
          state = after;
        }
      }),
      { numRuns: 500, seed: 22 },
    );
  });
});

describe("the record diff after a call that writes one record", () => {
  it("compares that record alone, never walking the collection", () => {
    const orders: JsonObject = {};
    for (let i = 0; i < 1_000; i++) orders[`#W${i}`] = { status: "pending" };
    // Counts every listing of the collection's keys (a walk of it) from here on.
    let walks = 0;
    const watched = new Proxy(deepFreeze(orders), {
      ownKeys(target) {
        walks++;
        return Reflect.ownKeys(target);
      },
    });
    const state: JsonObject = { orders: watched, users: { u1: { name: "Ann" } } };
    const definition = parsed({
      schema_version: 2,
      default_variant: "ok",
      variants: {
        ok: { result: null, set_state: [{ set: ["orders", { $input: "id" }, "status"], value: "cancelled" }] },
      },
      examples: [{ variant: "ok", input: { id: "#W7" }, expected: null }],
    });
    const written = new WrittenRecords();
    const outcome = executeCall({
      input_schema: {},
      output_schema: true,
      definition,
      args: { id: "#W7" },
      state,
      validator: acceptAll,
      written,
    });
    if (outcome.kind !== "result") throw new Error(JSON.stringify(outcome));
    walks = 0;
    expect(diffRecords(state, outcome.state, written)).toEqual([
      { collection: "orders", record: "#W7", value: { status: "cancelled" } },
    ]);
    expect(walks).toBe(0);
    // Without what the call noted, the same diff walks the collection.
    expect(diffRecords(state, outcome.state)).toEqual(diffRecords(state, outcome.state, written));
    expect(walks).toBeGreaterThan(0);
  });
});
