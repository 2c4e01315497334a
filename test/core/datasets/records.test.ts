/**
 * Copy-on-write records against a plain reference: for any base and any sequence of calls, the
 * state read through an overlay over the frozen base equals the same writes applied to a deep
 * copy, the base never changes, and each call's diff holds only the records it changed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyChanges,
  changedRecords,
  deepFreeze,
  diffRecords,
  keysThatMayDiffer,
  materialize,
  Overlay,
  type RecordChange,
  recordPointer,
} from "../../../src/core/datasets/records.js";
import { jsonDifferences } from "../../../src/core/scoring/end-state.js";
import { BaseCache } from "../../../src/core/datasets/base-cache.js";
import { parsePointer, valueAt } from "../../../src/core/datasets/pointer.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import { parseStateChange } from "../../../src/core/simulation/evidence.js";

const KEYS = ["a", "b", "#W1", "x/y", "__proto__", "0"];
const keyArb = fc.constantFrom(...KEYS);
const valueArb = fc.jsonValue({ maxDepth: 2 }).map((value) => value as JsonValue);
const recordArb = fc.dictionary(keyArb, valueArb).map((value) => value as JsonValue);
const baseArb: fc.Arbitrary<JsonObject> = fc
  .dictionary(keyArb, fc.oneof(fc.dictionary(keyArb, recordArb), valueArb))
  .map((value) => value as JsonObject);

/** What a call may do to the state: the writes an engine makes, expressed at every depth. */
type Mutation =
  | { op: "set_record"; collection: string; record: string; value: JsonValue }
  | { op: "delete_record"; collection: string; record: string }
  | { op: "set_field"; collection: string; record: string; field: string; value: JsonValue }
  | { op: "set_whole"; collection: string; value: JsonValue }
  | { op: "delete_whole"; collection: string }
  | { op: "same" };
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("set_record" as const), collection: keyArb, record: keyArb, value: valueArb }),
  fc.record({ op: fc.constant("delete_record" as const), collection: keyArb, record: keyArb }),
  fc.record({
    op: fc.constant("set_field" as const),
    collection: keyArb,
    record: keyArb,
    field: keyArb,
    value: valueArb,
  }),
  fc.record({ op: fc.constant("set_whole" as const), collection: keyArb, value: valueArb }),
  fc.record({ op: fc.constant("delete_whole" as const), collection: keyArb }),
  fc.constant({ op: "same" as const }),
);
const callsArb = fc.array(fc.array(mutationArb, { maxLength: 3 }), { minLength: 1, maxLength: 5 });

function own(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
function get(target: unknown, key: string): unknown {
  return target !== null && typeof target === "object" && Object.hasOwn(target, key)
    ? (target as Record<string, unknown>)[key]
    : undefined;
}
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The reference: mutates a deep copy in place. */
function mutateInPlace(state: Record<string, unknown>, m: Mutation): void {
  if (m.op === "same") return;
  if (m.op === "set_whole") {
    own(state, m.collection, structuredClone(m.value));
    return;
  }
  if (m.op === "delete_whole") {
    delete state[m.collection];
    return;
  }
  const collection = get(state, m.collection);
  if (!isObject(collection)) return;
  if (m.op === "delete_record") {
    delete collection[m.record];
    return;
  }
  if (m.op === "set_record") {
    own(collection, m.record, structuredClone(m.value));
    return;
  }
  const record = get(collection, m.record);
  if (isObject(record)) own(record, m.field, structuredClone(m.value));
}

/** The engine's way: copies only the containers it writes, shares the rest (never touches `state`). */
function mutateShared(state: JsonObject, m: Mutation): JsonObject {
  if (m.op === "same") return state;
  const root: Record<string, unknown> = { ...state };
  if (m.op === "set_whole") own(root, m.collection, m.value);
  else if (m.op === "delete_whole") delete root[m.collection];
  else {
    const current = get(root, m.collection);
    if (!isObject(current)) return state;
    const collection = { ...current };
    own(root, m.collection, collection);
    if (m.op === "delete_record") delete collection[m.record];
    else if (m.op === "set_record") own(collection, m.record, m.value);
    else {
      const record = get(collection, m.record);
      if (!isObject(record)) return state;
      own(collection, m.record, { ...record, [m.field]: m.value });
      if (m.field === "__proto__") own(collection[m.record] as Record<string, unknown>, m.field, m.value);
    }
  }
  return root as JsonObject;
}

describe("copy-on-write records", () => {
  it("read through overlay and base equals the same writes applied to a deep copy", () => {
    fc.assert(
      fc.property(baseArb, callsArb, (raw, calls) => {
        const base = deepFreeze(structuredClone(raw));
        const reference = structuredClone(raw) as Record<string, unknown>;
        const overlay = new Overlay();
        let view = materialize(base, overlay);
        for (const call of calls) {
          let after = view;
          for (const m of call) {
            after = mutateShared(after, m);
            mutateInPlace(reference, m);
          }
          const changes = diffRecords(view, after);
          // A diff applied to the state before gives the state after.
          expect(applyChanges(view, changes)).toEqual(after);
          overlay.merge(changes);
          view = after;
          // A fresh load (the object unloaded and read back from its stored records) sees the same.
          expect(materialize(base, new Overlay(overlay.changes()))).toEqual(reference);
        }
        expect(view).toEqual(reference);
        expect(base).toEqual(raw);
      }),
    );
  });

  it("a diff names only the records that changed, and nothing for an unchanged copy", () => {
    fc.assert(
      fc.property(baseArb, (raw) => {
        expect(diffRecords(raw, structuredClone(raw))).toEqual([]);
      }),
    );
    const base = deepFreeze({
      orders: { "#W1": { status: "pending" }, "#W2": { status: "delivered" } },
      users: { u1: { name: "Ann" } },
      version: 1,
    } as JsonObject);
    const after = mutateShared(
      mutateShared(
        mutateShared(base, {
          op: "set_field",
          collection: "orders",
          record: "#W1",
          field: "status",
          value: "cancelled",
        }),
        {
          op: "delete_record",
          collection: "users",
          record: "u1",
        },
      ),
      { op: "set_whole", collection: "version", value: 2 },
    );
    const changes = diffRecords(base, after);
    expect(changes).toEqual([
      { collection: "orders", record: "#W1", value: { status: "cancelled" } },
      { collection: "users", record: "u1" },
      { collection: "version", record: null, value: 2 },
    ]);
    expect(changes.map(recordPointer)).toEqual(["/orders/#W1", "/users/u1", "/version"]);
    expect(changedRecords(base, changes)).toEqual({
      before: { orders: { "#W1": { status: "pending" } }, users: { u1: { name: "Ann" } }, version: 1 },
      after: { orders: { "#W1": { status: "cancelled" } }, version: 2 },
      records: ["/orders/#W1", "/users/u1", "/version"],
    });
    // The untouched record is the base's own object: nothing was copied for it.
    expect((after.orders as JsonObject)["#W2"]).toBe((base.orders as JsonObject)["#W2"]);
    expect(after.users).not.toBe(base.users);
  });

  it("a whole change forgets the record changes under it", () => {
    const overlay = new Overlay([
      { collection: "orders", record: "#W1", value: 1 },
      { collection: "orders", record: null, value: { "#W9": 9 } },
      { collection: "orders", record: "#W2", value: 2 },
    ]);
    expect(overlay.changes()).toEqual([
      { collection: "orders", record: null, value: { "#W9": 9 } },
      { collection: "orders", record: "#W2", value: 2 },
    ]);
    expect(overlay.size).toBe(2);
    const base = deepFreeze({ orders: { "#W1": 0 } } as JsonObject);
    expect(materialize(base, overlay)).toEqual({ orders: { "#W9": 9, "#W2": 2 } });
  });
});

describe("comparing states over one base", () => {
  const changeArb: fc.Arbitrary<RecordChange> = fc
    .record({ collection: keyArb, record: fc.option(keyArb), value: fc.option(valueArb) })
    .map(({ collection, record, value }) => (value === null ? { collection, record } : { collection, record, value }));
  const changesArb = fc.array(changeArb, { maxLength: 6 });

  it("finds the same differences, in the same order, as between deep copies (the untouched records skipped)", () => {
    fc.assert(
      fc.property(baseArb, changesArb, changesArb, changesArb, (raw, first, second, more) => {
        const base = deepFreeze(structuredClone(raw));
        const left = applyChanges(base, first);
        const right = applyChanges(base, second);
        // A copy of a copy still knows its original.
        const further = applyChanges(left, more);
        for (const [a, b] of [
          [left, right],
          [base, left],
          [right, base],
          [further, right],
          [left, further],
        ] as const)
          expect(jsonDifferences(a, b)).toEqual(jsonDifferences(structuredClone(a), structuredClone(b)));
      }),
    );
  });

  it("narrows a comparison to the records the changes touched, and not between unrelated collections", () => {
    const base = deepFreeze({ orders: { "#W1": { s: 1 }, "#W2": { s: 2 }, "#W3": { s: 3 } } });
    const left = applyChanges(base, [{ collection: "orders", record: "#W1", value: { s: 9 } }]);
    const right = applyChanges(base, [{ collection: "orders", record: "#W3" }]);
    const orders = (state: JsonObject) => state.orders as JsonObject;
    expect([...(keysThatMayDiffer(orders(left), orders(right)) ?? [])].sort()).toEqual(["#W1", "#W3"]);
    expect([...(keysThatMayDiffer(orders(base), orders(right)) ?? [])]).toEqual(["#W3"]);
    expect(keysThatMayDiffer(orders(base), { ...orders(base) })).toBeNull();
    expect(keysThatMayDiffer(orders(left), { "#W1": { s: 9 } })).toBeNull();
  });
});

describe("JSON pointers", () => {
  it("read a record by its escaped key, and tell a missing one from a value", () => {
    const state = { orders: { "#W1": { items: [1, 2] }, "a/b": "slash", "m~n": "tilde" } } as JsonObject;
    const at = (text: string) => {
      const parsed = parsePointer(text);
      return parsed.ok ? valueAt(state, parsed.tokens) : "not a pointer";
    };
    expect(parsePointer("/orders/#W1")).toEqual({ ok: true, tokens: ["orders", "#W1"] });
    expect(at("/orders/#W1")).toEqual({ items: [1, 2] });
    expect(at("/orders/#W1/items/1")).toBe(2);
    expect(at("/orders/a~1b")).toBe("slash");
    expect(at("/orders/m~0n")).toBe("tilde");
    expect(at("")).toEqual(state);
    expect(at("/orders/#W2")).toBeUndefined();
    expect(at("/orders/#W1/items/01")).toBeUndefined();
    expect(at("/orders/toString")).toBeUndefined();
    expect(at("orders")).toBe("not a pointer");
    expect(at("/a~2")).toBe("not a pointer");
    expect(at("/a~")).toBe("not a pointer");
  });
});

describe("the shared base cache", () => {
  it("loads one hash once for concurrent readers, freezes it, and evicts the least recently used by bytes", async () => {
    const cache = new BaseCache(30);
    const loads: string[] = [];
    const loader = (hash: string, text: string) => async () => {
      loads.push(hash);
      await Promise.resolve();
      return text;
    };
    const [first, second] = await Promise.all([
      cache.get("h1", loader("h1", '{"a":{"x":1}}')),
      cache.get("h1", loader("h1", '{"a":{"x":1}}')),
    ]);
    expect(first).toBe(second);
    expect(loads).toEqual(["h1"]);
    expect(Object.isFrozen(first.value)).toBe(true);
    expect(Object.isFrozen(first.value.a)).toBe(true);
    await cache.get("h2", loader("h2", '{"b":1}'));
    await cache.get("h1", loader("h1", "unused"));
    expect(cache.stats()).toEqual({ hashes: ["h2", "h1"], bytes: 20 });
    await cache.get("h3", loader("h3", '{"c":"1234567"}'));
    // 20 + 15 > 30: the least recently used (h2) leaves.
    expect(cache.stats()).toEqual({ hashes: ["h1", "h3"], bytes: 28 });
    await expect(cache.get("h4", loader("h4", "[1]"))).rejects.toThrow("h4 is not a JSON object");
    // A failed load is not remembered: the next reader tries again.
    await expect(cache.get("h4", loader("h4", '{"d":1}'))).resolves.toEqual({ value: { d: 1 }, bytes: 7 });
    expect(loads).toEqual(["h1", "h2", "h3", "h4", "h4"]);
  });
});

describe("a dataset tool's state change in evidence", () => {
  it("reads back with its records and dataset, and without them for any other tool", () => {
    const change = {
      tool: "shop",
      before: { orders: { "#W1": { status: "pending" } } },
      after: { orders: { "#W1": { status: "cancelled" } } },
      records: ["/orders/#W1"],
      dataset: { name: "shop", version: 2 },
    };
    expect(parseStateChange(JSON.stringify(change))).toEqual(change);
    expect(parseStateChange(JSON.stringify({ tool: "t", before: {}, after: { a: 1 } }))).toEqual({
      tool: "t",
      before: {},
      after: { a: 1 },
    });
    expect(parseStateChange(JSON.stringify({ ...change, records: [1], dataset: "shop" }))).toEqual({
      tool: "shop",
      before: change.before,
      after: change.after,
    });
  });
});
