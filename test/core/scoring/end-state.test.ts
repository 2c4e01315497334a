import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import {
  assertionMismatches,
  gradeEndState,
  jsonDifferences,
  MAX_DIFFERENCES,
  numbersMatch,
  stateChanges,
  stateMismatches,
  valueAt,
} from "../../../src/core/scoring/end-state.js";

const start: JsonObject = {
  retail: {
    orders: { "#W1": { status: "pending", items: [{ id: "i1", price: 54.04 }] }, "#W2": { status: "delivered" } },
    users: { u1: { balance: 100 } },
  },
  clock: { now: "2024-05-01" },
};

function withOrder(status: string, extra: JsonObject = {}): JsonObject {
  const state = structuredClone(start);
  const retail = state.retail as JsonObject;
  const orders = retail.orders as JsonObject;
  orders["#W1"] = { ...(orders["#W1"] as JsonObject), status, ...extra };
  return state;
}

describe("the end state against the gold state", () => {
  it("passes when the agent's state is the gold state, and shows both as changes over the start", () => {
    const gold = withOrder("cancelled", { reason: "no longer needed" });
    expect(
      gradeEndState({ initial: start, actual: structuredClone(gold), gold: { state: gold, attempt_id: "att_g" } }),
    ).toEqual({
      pass: true,
      reason: "End state matches the gold calls' state.",
      mismatches: [],
      mismatch_count: 0,
      changes: [
        { path: "/retail/orders/#W1/reason", after: "no longer needed" },
        { path: "/retail/orders/#W1/status", before: "pending", after: "cancelled" },
      ],
      change_count: 2,
      expected_changes: [
        { path: "/retail/orders/#W1/reason", after: "no longer needed" },
        { path: "/retail/orders/#W1/status", before: "pending", after: "cancelled" },
      ],
      gold_attempt_id: "att_g",
    });
  });

  it("names each differing path with the expected and actual values; a side without the key is left out", () => {
    const gold = withOrder("cancelled", { reason: "no longer needed" });
    const actual = withOrder("cancelled", { reason: "ordered by mistake" });
    const skipped = structuredClone(start);
    expect(gradeEndState({ initial: start, actual, gold: { state: gold, attempt_id: "att_g" } })).toMatchObject({
      pass: false,
      reason:
        'End state differs at 1 path: /retail/orders/#W1/reason: expected "no longer needed", got "ordered by mistake".',
      mismatches: [{ path: "/retail/orders/#W1/reason", expected: "no longer needed", actual: "ordered by mistake" }],
      mismatch_count: 1,
    });
    expect(
      gradeEndState({ initial: start, actual: skipped, gold: { state: gold, attempt_id: "att_g" } }),
    ).toMatchObject({
      pass: false,
      reason:
        'End state differs at 2 paths: /retail/orders/#W1/reason: expected "no longer needed", got nothing; /retail/orders/#W1/status: expected "cancelled", got "pending".',
      mismatches: [
        { path: "/retail/orders/#W1/reason", expected: "no longer needed" },
        { path: "/retail/orders/#W1/status", expected: "cancelled", actual: "pending" },
      ],
      changes: [],
      change_count: 0,
    });
  });

  it("compares numbers to 1e-9 (relative above 1), so the same amount computed two ways matches", () => {
    expect(numbersMatch(0.1 + 0.2, 0.3)).toBe(true);
    expect(numbersMatch(1093.34, 1093.34 + 1e-10)).toBe(true);
    expect(numbersMatch(1e12, 1e12 + 1e-4)).toBe(true);
    expect(numbersMatch(54.04, 45.04)).toBe(false);
    expect(numbersMatch(0, 2e-9)).toBe(false);
    expect(stateMismatches({ total: 0.3 }, { total: 0.1 + 0.2 })).toEqual([]);
    expect(stateMismatches({ total: 54.04 }, { total: 45.04 })).toEqual([
      { path: "/total", expected: 54.04, actual: 45.04 },
    ]);
  });

  it("reports arrays index by index, kinds that differ whole, and escapes keys as JSON Pointer tokens", () => {
    expect(
      stateMismatches({ a: [1, 2, 3], "x/y~z": { b: 1 }, c: [1] }, { a: [1, 5], "x/y~z": [1], c: { 0: 1 } }),
    ).toEqual([
      { path: "/a/1", expected: 2, actual: 5 },
      { path: "/a/2", expected: 3 },
      { path: "/c", expected: [1], actual: { 0: 1 } },
      { path: "/x~1y~0z", expected: { b: 1 }, actual: [1] },
    ]);
    // 1 and "1" are different JSON values; null is a value, not an absence.
    expect(stateMismatches({ n: 1, z: null }, { n: "1" })).toEqual([
      { path: "/n", expected: 1, actual: "1" },
      { path: "/z", expected: null },
    ]);
  });

  it("keeps the first 50 mismatches and counts them all", () => {
    const expected = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`k${String(i).padStart(3, "0")}`, i]));
    const graded = gradeEndState({
      initial: {},
      actual: { t: {} },
      gold: { state: { t: expected }, attempt_id: "att_g" },
    });
    expect(graded.mismatch_count).toBe(120);
    expect(graded.mismatches).toHaveLength(MAX_DIFFERENCES);
    expect(graded.mismatches[0]).toEqual({ path: "/t/k000", expected: 0 });
    // A whole missing subtree is one mismatch, with the whole expected value.
    expect(
      gradeEndState({ initial: {}, actual: {}, gold: { state: { t: expected }, attempt_id: "g" } }).mismatches,
    ).toEqual([{ path: "/t", expected }]);
  });

  it("leaves out values too large to keep in a record, marking the difference, and keeps the path", () => {
    const big = { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row ${i}` })) };
    const graded = gradeEndState({
      initial: { t: {} },
      actual: { t: {} },
      gold: { state: { t: { big, small: 1 } }, attempt_id: "g" },
    });
    expect(graded.mismatches).toEqual([
      { path: "/t/big", too_large: { expected: JSON.stringify(big).length } },
      { path: "/t/small", expected: 1 },
    ]);
    expect(graded.expected_changes).toEqual([
      { path: "/t/big", too_large: { after: JSON.stringify(big).length } },
      { path: "/t/small", after: 1 },
    ]);
    expect(graded.reason).toBe(
      `End state differs at 2 paths: /t/big: expected (${JSON.stringify(big).length} bytes of JSON, too large to keep), got nothing; /t/small: expected 1, got nothing.`,
    );
  });

  it("finds no difference between a value and itself, and the differences name exactly the paths whose values differ", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const left = a as JsonValue;
        const right = b as JsonValue;
        expect(jsonDifferences(left, structuredClone(left))).toEqual([]);
        const differences = jsonDifferences(left, right);
        // Every reported path holds the reported values on each side.
        for (const d of differences) {
          expect(valueAt(left, d.path)).toEqual(d.left);
          expect(valueAt(right, d.path)).toEqual(d.right);
        }
        if (differences.length === 0) expect(stateMismatches(right, left)).toEqual([]);
      }),
    );
  });
});

describe("assertions on paths of the state", () => {
  it("pass when the value is there, and name the path with the expected value when it differs or is missing", () => {
    const actual = withOrder("cancelled");
    expect(
      assertionMismatches(
        [
          { path: "/retail/orders/#W1/status", equals: "cancelled" },
          { path: "/retail/orders/#W2", equals: { status: "returned" } },
          { path: "/retail/orders/#W9/status", equals: "cancelled" },
          { path: "/retail/orders/#W1/items/0/price", equals: 54.04 },
        ],
        actual,
      ),
    ).toEqual([
      { path: "/retail/orders/#W2/status", expected: "returned", actual: "delivered" },
      { path: "/retail/orders/#W9/status", expected: "cancelled" },
    ]);
  });

  it("grade with the gold state together: every mismatch of both", () => {
    const gold = withOrder("cancelled");
    expect(
      gradeEndState({
        initial: start,
        actual: withOrder("pending"),
        gold: { state: gold, attempt_id: "att_g" },
        assert: [{ path: "/clock/now", equals: "2024-05-02" }],
      }).mismatches,
    ).toEqual([
      { path: "/retail/orders/#W1/status", expected: "cancelled", actual: "pending" },
      { path: "/clock/now", expected: "2024-05-02", actual: "2024-05-01" },
    ]);
    expect(
      gradeEndState({ initial: start, actual: start, assert: [{ path: "/clock/now", equals: "2024-05-01" }] }),
    ).toMatchObject({
      pass: true,
      reason: "End state matches every assertion.",
      expected_changes: null,
      gold_attempt_id: null,
    });
  });
});

describe("valueAt", () => {
  it("reads JSON Pointers (RFC 6901), arrays by canonical index only", () => {
    const doc: JsonValue = { "a/b": { "m~n": [10, 20] }, "": 1 };
    expect(valueAt(doc, "/a~1b/m~0n/1")).toBe(20);
    expect(valueAt(doc, "/a~1b/m~0n/01")).toBeUndefined();
    expect(valueAt(doc, "/a~1b/m~0n/2")).toBeUndefined();
    expect(valueAt(doc, "/")).toBe(1);
    expect(valueAt(doc, "")).toEqual(doc);
    expect(valueAt(doc, "x")).toBeUndefined();
  });
});

describe("stateChanges", () => {
  it("is the diff over the starting state", () => {
    expect(stateChanges({ a: 1, b: [1] }, { a: 2, b: [1, 2], c: true })).toEqual([
      { path: "/a", before: 1, after: 2 },
      { path: "/b/1", after: 2 },
      { path: "/c", after: true },
    ]);
  });

  it("never looks inside a value both sides share, as states over one dataset share every untouched record", () => {
    // A record that throws when its keys are read: a comparison that walked into it would fail.
    const untouched = new Proxy({} as JsonObject, {
      ownKeys: () => {
        throw new Error("looked inside a shared record");
      },
    });
    const base: JsonObject = { orders: { "#W1": { status: "pending" }, "#W2": untouched }, users: untouched };
    const after: JsonObject = {
      ...base,
      orders: { ...(base.orders as JsonObject), "#W1": { status: "cancelled" } },
    };
    expect(stateChanges(base, after)).toEqual([{ path: "/orders/#W1/status", before: "pending", after: "cancelled" }]);
    expect(stateMismatches(after, base)).toEqual([
      { path: "/orders/#W1/status", expected: "cancelled", actual: "pending" },
    ]);
  });

  it("finds the same differences, in the same order, whether the sides share values or are copies", () => {
    const record = fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 4 }), record, { maxKeys: 12 }),
        fc.dictionary(fc.string({ maxLength: 4 }), fc.option(record), { maxKeys: 6 }),
        (records, edits) => {
          // The other side shares every record the edits leave alone, as two states over one dataset do.
          const before: JsonObject = { orders: records as JsonObject };
          const orders: JsonObject = { ...(records as JsonObject) };
          for (const [key, edit] of Object.entries(edits))
            if (edit === null) delete orders[key];
            else
              Object.defineProperty(orders, key, { value: edit, enumerable: true, writable: true, configurable: true });
          const after: JsonObject = { orders };
          const copied = jsonDifferences(structuredClone(before), structuredClone(after));
          expect(jsonDifferences(before, after)).toEqual(copied);
          expect(jsonDifferences(after, before)).toEqual(
            copied.map(({ path, left, right }) => ({ path, left: right, right: left })),
          );
        },
      ),
    );
  });
});
