import { describe, expect, it } from "vitest";
import { mergeInitialStates } from "../../../src/core/simulation/initial-state.js";

describe("mergeInitialStates", () => {
  it("merges objects key by key, whatever the order of the operations", () => {
    const a = { operation_id: "get", state: { invoice: { status: "approved" }, count: 1 } };
    const b = { operation_id: "hold", state: { invoice: { reason: null }, count: 1, log: [] } };
    const expected = { ok: true, state: { invoice: { status: "approved", reason: null }, count: 1, log: [] } };
    expect(mergeInitialStates([a, b])).toEqual(expected);
    expect(mergeInitialStates([b, a])).toEqual(expected);
  });

  it("refuses two different values for one leaf, naming the path and both operations", () => {
    const result = mergeInitialStates([
      { operation_id: "get", state: { invoice: { status: "approved" } } },
      { operation_id: "hold", state: { invoice: { status: "on_hold" } } },
    ]);
    expect(result).toEqual({
      ok: false,
      conflicts: [
        {
          path: "/invoice/status",
          message:
            'initial_state of operations "get" and "hold" disagree at /invoice/status: "approved" versus "on_hold"',
        },
      ],
    });
  });

  it("treats arrays as leaves and an object against a leaf as a conflict", () => {
    expect(
      mergeInitialStates([
        { operation_id: "a", state: { tags: [1, 2] } },
        { operation_id: "b", state: { tags: [1, 2] } },
      ]),
    ).toEqual({ ok: true, state: { tags: [1, 2] } });
    expect(
      mergeInitialStates([
        { operation_id: "a", state: { x: { y: 1 } } },
        { operation_id: "b", state: { x: 3 } },
      ]),
    ).toEqual({
      ok: false,
      conflicts: [{ path: "/x", message: 'initial_state of operations "a" and "b" disagree at /x: {"y":1} versus 3' }],
    });
  });

  it("copies: changing the merged state does not change the definitions' initial_state", () => {
    const source = { nested: { n: 1 } };
    const result = mergeInitialStates([{ operation_id: "a", state: source }]);
    if (!result.ok) throw new Error("expected a merge");
    (result.state.nested as { n: number }).n = 2;
    expect(source).toEqual({ nested: { n: 1 } });
  });

  it("keeps a key named __proto__ as plain data", () => {
    const state = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, never>;
    const result = mergeInitialStates([{ operation_id: "a", state }]);
    expect(result.ok && Object.keys(result.state)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
