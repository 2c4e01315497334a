import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RecentlyUsed } from "../../src/core/recently-used.js";

describe("RecentlyUsed", () => {
  it("drops the least recently used entry once full, a read counting as a use", () => {
    const held = new RecentlyUsed<string, number>(2);
    held.set("a", 1);
    held.set("b", 2);
    expect(held.get("a")).toBe(1);
    held.set("c", 3);
    expect([held.get("a"), held.get("b"), held.get("c"), held.size]).toEqual([1, undefined, 3, 2]);
  });

  it("agrees with a list kept in order of use, whatever the operations", () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant("get" as const), key: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 6 }), value: fc.integer() }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(operation, { maxLength: 60 }), (limit, operations) => {
        const held = new RecentlyUsed<number, number>(limit);
        // The model: entries from least to most recently used.
        let model: [number, number][] = [];
        for (const op of operations) {
          const at = model.findIndex(([key]) => key === op.key);
          if (op.kind === "get") {
            const entry = model[at];
            expect(held.get(op.key)).toBe(entry?.[1]);
            if (entry) model = [...model.filter((_, i) => i !== at), entry];
          } else {
            held.set(op.key, op.value);
            const entry: [number, number] = [op.key, op.value];
            model = [...model.filter(([key]) => key !== op.key), entry].slice(-limit);
          }
          expect(held.size).toBe(model.length);
        }
      }),
    );
  });

  it("refuses a limit that holds nothing", () => {
    expect(() => new RecentlyUsed(0)).toThrow(RangeError);
  });
});
