/**
 * Version 2 of the mock definition: CEL expressions, keyed state, ordered writes and the cost
 * budget, through parseDefinition and executeCall (docs/mock-definition.md, "Version 2").
 */
import { describe, expect, it } from "vitest";
import { Meter, compileExpression, evaluateExpression } from "../../../src/core/contract/cel.js";
import { pythonRound } from "../../../src/core/contract/cel-functions.js";
import {
  executeCall,
  parseDefinition,
  type CallOutcome,
  type MockDefinition,
} from "../../../src/core/contract/index.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import { acceptAll, parsed } from "./helpers.js";

function v2(variant: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    schema_version: 2,
    default_variant: "ok",
    variants: { ok: variant },
    examples: [{ variant: "ok", input: {}, state: { orders: {} }, expected: "none" }],
    ...extra,
  };
}

function run(definition: MockDefinition, args: JsonObject, state: JsonObject): CallOutcome {
  return executeCall({
    input_schema: { type: "object" },
    output_schema: true,
    definition,
    args,
    state,
    validator: acceptAll,
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const orders = deepFreeze({
  orders: {
    "#1": {
      status: "pending",
      user_id: "u1",
      items: [
        { id: "a", price: 10.5 },
        { id: "b", price: 2 },
      ],
    },
    "#2": { status: "delivered", user_id: "u2", items: [] },
  },
  users: { u1: { name: "Ada", balance: 5 }, u2: { name: "Alan", balance: 0 } },
}) as JsonObject;

/** The order this call names: one rule serves every record, and "not found" is an ordinary rule. */
const getOrder = parsed(
  v2({
    result: { $expr: "state.orders[input.order_id]" },
    rules: [{ when: [{ expr: "!(input.order_id in state.orders)" }], result: "Error: order not found" }],
  }),
);

describe("keyed reads and conditions", () => {
  it("reads the record the arguments name", () => {
    expect(run(getOrder, { order_id: "#2" }, orders)).toEqual({
      kind: "result",
      result: { status: "delivered", user_id: "u2", items: [] },
      state: orders,
      state_changed: false,
      variant: "ok",
      rule: null,
      delay_ms: 0,
    });
    expect(run(getOrder, { order_id: "#9" }, orders)).toMatchObject({
      kind: "result",
      result: "Error: order not found",
      rule: 0,
    });
  });

  it("treats a key that is not there as a condition that does not hold", () => {
    const definition = parsed(
      v2({
        result: "no such order",
        rules: [{ when: [{ expr: "state.orders[input.order_id].status == 'pending'" }], result: "pending" }],
      }),
    );
    expect(run(definition, { order_id: "#1" }, orders)).toMatchObject({ result: "pending", rule: 0 });
    expect(run(definition, { order_id: "#9" }, orders)).toMatchObject({ result: "no such order", rule: null });
  });

  it("reads the record another record points at (the user an order belongs to)", () => {
    const definition = parsed(v2({ result: { $expr: "state.users[state.orders[input.order_id].user_id].name" } }));
    expect(run(definition, { order_id: "#2" }, orders)).toMatchObject({ result: "Alan" });
  });

  it("makes a missing key outside a guarding condition a harness error naming the expression", () => {
    const outcome = run(
      parsed(v2({ result: { total: { $expr: "state.orders[input.order_id].status" } } })),
      { order_id: "#9" },
      orders,
    );
    expect(outcome).toEqual({
      kind: "harness_error",
      harness_kind: "missing_reference",
      message: '$expr "state.orders[input.order_id].status": No such key: #9 (at character 1)',
      details: [
        {
          path: "/variants/ok/result/total/$expr",
          message: '$expr "state.orders[input.order_id].status": No such key: #9 (at character 1)',
        },
      ],
      variant: "ok",
      rule: null,
    });
  });

  it("makes a type mismatch or a non-boolean condition a harness error, never a silent non-match", () => {
    const mismatch = parsed(
      v2({ result: 1, rules: [{ when: [{ expr: "state.users.u1.name + 1 == 2" }], result: 2 }] }),
    );
    expect(run(mismatch, {}, orders)).toMatchObject({ kind: "harness_error", harness_kind: "expression_error" });
    const notBoolean = parsed(v2({ result: 1, rules: [{ when: [{ expr: "state.users.u1.name" }], result: 2 }] }));
    expect(run(notBoolean, {}, orders)).toMatchObject({
      kind: "harness_error",
      harness_kind: "expression_error",
      message: 'a condition must be true or false; "state.users.u1.name" gave "Ada"',
    });
  });

  it('keeps version 1 exactly as it was: {"$expr": ...} there is plain data', () => {
    const v1 = parsed({
      schema_version: 1,
      default_variant: "ok",
      variants: { ok: { result: { $expr: "1 + 1" } } },
      examples: [{ variant: "ok", input: {}, expected: { $expr: "1 + 1" } }],
    });
    expect(run(v1, {}, {})).toMatchObject({ kind: "result", result: { $expr: "1 + 1" } });
  });
});

describe("computed values", () => {
  const compute = (expr: string, args: JsonObject = {}): JsonValue => {
    const outcome = run(parsed(v2({ result: { $expr: expr } })), args, orders);
    if (outcome.kind !== "result") throw new Error(JSON.stringify(outcome));
    return outcome.result;
  };

  it("does arithmetic on JSON numbers with integer literals, sums, counts, maps and filters", () => {
    expect(compute("state.orders['#1'].items[0].price * 2")).toBe(21);
    expect(compute("sum(state.orders['#1'].items.map(i, i.price))")).toBe(12.5);
    expect(compute("size(state.orders.filter(k, state.orders[k].status == 'pending'))")).toBe(1);
    expect(compute("state.orders['#1'].items.filter(i, i.id in input.ids).map(i, i.price)", { ids: ["b"] })).toEqual([
      2,
    ]);
    expect(compute("count(['a', 'b', 'a'], 'a')")).toBe(2);
    expect(compute("merge(state.users.u1, {'balance': 7.5})")).toEqual({ name: "Ada", balance: 7.5 });
    expect(compute("sorted(['b', 'a', 'c'])")).toEqual(["a", "b", "c"]);
    expect(compute("zip(['a', 'b', 'c'], [1, 2])")).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
    expect(compute("state.orders['#1'].status in ['pending', 'processed']")).toBe(true);
  });

  it("rounds as Python's round() does: the exact binary value, ties to even", () => {
    const cases: Array<[number, number, number]> = [
      [2.675, 2, 2.67], // 2.675 is 2.67499999… in binary
      [0.125, 2, 0.12], // an exact tie: to even
      [0.375, 2, 0.38],
      [-0.125, 2, -0.12],
      [2.5, 0, 2],
      [3.5, 0, 4],
      [1.005, 2, 1],
      [40.1 + 50.04, 2, 90.14],
    ];
    for (const [x, digits, expected] of cases)
      expect([x, digits, pythonRound(x, digits)]).toEqual([x, digits, expected]);
  });

  it("refuses a value JSON cannot carry", () => {
    const outcome = run(parsed(v2({ result: { $expr: "1.0 / 0.0" } })), {}, orders);
    expect(outcome).toMatchObject({ kind: "harness_error", harness_kind: "expression_error" });
  });
});

describe("ordered writes at computed paths", () => {
  const cancel = parsed(
    v2({
      result: {
        after: { $expr: "state.orders[input.order_id].status" },
        before: { $expr: "before.orders[input.order_id].status" },
      },
      set_state: [
        { set: ["orders", { $input: "order_id" }, "status"], value: "cancelled" },
        // Sees the write above: writes apply in order.
        {
          set: ["orders", { $input: "order_id" }, "note"],
          value: {
            $expr: "'was ' + before.orders[input.order_id].status + ', now ' + state.orders[input.order_id].status",
          },
        },
        {
          for_each: "before.orders[input.order_id].items",
          as: "item",
          writes: [
            {
              if: "item.price > 5.0",
              append: ["orders", { $input: "order_id" }, "refunds"],
              value: { $expr: "item.id" },
            },
            {
              set: ["users", { $expr: "state.orders[input.order_id].user_id" }, "balance"],
              value: { $expr: "state.users[state.orders[input.order_id].user_id].balance + item.price" },
            },
          ],
        },
        { merge: ["users", { $expr: "state.orders[input.order_id].user_id" }], value: { vip: true } },
        { remove: "users.u2" },
      ],
    }),
  );

  it("applies each write to the state the previous ones left, and renders the result after them", () => {
    const outcome = run(cancel, { order_id: "#1" }, orders);
    expect(outcome).toEqual({
      kind: "result",
      result: { after: "cancelled", before: "pending" },
      state: {
        orders: {
          "#1": {
            status: "cancelled",
            user_id: "u1",
            items: [
              { id: "a", price: 10.5 },
              { id: "b", price: 2 },
            ],
            note: "was pending, now cancelled",
            refunds: ["a"],
          },
          "#2": { status: "delivered", user_id: "u2", items: [] },
        },
        users: { u1: { name: "Ada", balance: 17.5, vip: true } },
      },
      state_changed: true,
      variant: "ok",
      rule: null,
      delay_ms: 0,
    });
    // Only what was written was copied: the untouched order is shared with the frozen input.
    if (outcome.kind === "result")
      expect((outcome.state.orders as JsonObject)["#2"]).toBe((orders.orders as JsonObject)["#2"]);
  });

  it("reports a write that cannot be made as a harness error, and an unchanged state as unchanged", () => {
    const hole = parsed(v2({ result: 1, set_state: [{ set: ["orders", "#1", "items", 5], value: 1 }] }));
    expect(run(hole, {}, orders)).toMatchObject({
      kind: "harness_error",
      harness_kind: "missing_reference",
      details: [{ path: "/variants/ok/set_state/0" }],
    });
    const same = parsed(v2({ result: 1, set_state: [{ set: "users.u1.name", value: "Ada" }] }));
    expect(run(same, {}, orders)).toMatchObject({ kind: "result", state: orders, state_changed: false });
    const sameMerge = parsed(
      v2({ result: 1, set_state: [{ merge: "users.u1", value: { name: "Ada" } }, { remove: "users.u3" }] }),
    );
    const outcome = run(sameMerge, {}, orders);
    expect(outcome).toMatchObject({ kind: "result", state_changed: false });
    if (outcome.kind === "result") expect(outcome.state).toBe(orders);
  });
});

describe("save-time checks", () => {
  const errors = (raw: JsonObject) => {
    const result = parseDefinition(raw);
    return result.ok ? [] : result.errors;
  };

  it("refuses broken expressions, unknown names, deep macro nesting and malformed writes, each at its pointer", () => {
    expect(
      errors(
        v2({
          result: { $expr: "state.orders[" },
          set_state: [
            { set: ["orders", { $expr: "order_id" }], value: 1 },
            { set: "a", merge: "b", value: 1 },
            { for_each: "state.items", as: "state", writes: [] },
            { set: ["orders", "__proto__"], value: 1 },
            { append: "log" },
          ],
          rules: [{ when: [{ expr: "state.a.all(x, x.b.all(y, y.c.exists(z, z)))" }], result: 1 }],
        }),
      ).map((e) => e.path),
    ).toEqual([
      "/variants/ok/result/$expr",
      "/variants/ok/set_state/0/set/1/$expr",
      "/variants/ok/set_state/1",
      "/variants/ok/set_state/2/as",
      "/variants/ok/set_state/3/set/1",
      "/variants/ok/set_state/4/value",
      "/variants/ok/rules/0/when/0/expr",
    ]);
  });

  it("names what is wrong in words an author can act on", () => {
    expect(errors(v2({ result: { $expr: "order_id" } }))).toEqual([
      {
        path: "/variants/ok/result/$expr",
        message: "the expression does not type-check: Unknown variable: order_id (at character 1)",
      },
    ]);
    expect(errors(v2({ result: 1, set_state: { a: 1 } }))).toEqual([
      {
        path: "/variants/ok/set_state",
        message: 'expected a list of writes ({"set"|"merge"|"append"|"remove"|"for_each": ...}); got object',
      },
    ]);
    expect(errors({ ...v2({ result: 1 }), schema_version: 3 })).toEqual([
      { path: "/schema_version", message: "expected 1 or 2; got 3" },
    ]);
  });
});

describe("the cost budget", () => {
  it("meters every element a macro walks, before it walks it", () => {
    const expression = compileExpression("input.xs.map(x, input.xs.map(y, x * y))", [], "/e", null);
    if (typeof expression === "string") throw new Error(expression);
    const meter = new Meter(1000);
    const xs = Array.from({ length: 10 }, (_, i) => i);
    // 1 for the expression, 10 for the outer walk, 10 × 10 inner, 111 values handed back.
    expect(evaluateExpression(expression, { input: { xs }, state: {}, before: {} }, meter)).toMatchObject({
      kind: "value",
    });
    expect(meter.spent).toBe(1 + 10 + 100 + 1 + 10 + 100);
  });

  it("stops a call that walks more than the budget, and names the budget", () => {
    const users: JsonObject = {};
    for (let i = 0; i < 500; i++) users[`u${i}`] = { n: i };
    const quadratic = parsed(
      v2({
        result: {
          $expr: "size(state.users.filter(a, state.users.exists(b, state.users[b].n > state.users[a].n + 1000)))",
        },
      }),
    );
    const outcome = run(quadratic, {}, { users });
    expect(outcome).toMatchObject({ kind: "harness_error", harness_kind: "cost_budget" });
    if (outcome.kind === "harness_error")
      expect(outcome.message).toMatch(/^the call exceeded its cost budget of 200000 units/);
    // The same search once over the 500 users is well inside it.
    const linear = parsed(v2({ result: { $expr: "state.users.filter(k, state.users[k].n == 499)[0]" } }));
    expect(run(linear, {}, { users })).toMatchObject({ kind: "result", result: "u499" });
  });
});
