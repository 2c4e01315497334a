/**
 * A small shop dataset and a version-2 tool over it (orders keyed by id, users by id), shared by the
 * dataset pin tests: its definitions carry no initial_state, since a pinned dataset is the tool's
 * starting state, and each checked example carries the state it runs against.
 */
const orderOutput = {
  anyOf: [{ type: "string" }, { type: "object", required: ["status"], properties: { status: { type: "string" } } }],
};
const byId = {
  type: "object",
  required: ["order_id"],
  properties: { order_id: { type: "string" } },
  additionalProperties: false,
};
export const shopTool = {
  name: "shop",
  description: "Orders keyed by id: look one up, or cancel it.",
  kind: "http",
  operations: [
    {
      operation_id: "get_order",
      description: "Return one order by its id.",
      input_schema: byId,
      output_schema: orderOutput,
    },
    {
      operation_id: "cancel_order",
      description: "Cancel a pending order and refund its total to the user's balance.",
      input_schema: byId,
      output_schema: orderOutput,
    },
  ],
};

export const shopData = {
  orders: {
    "#W1": { status: "pending", user_id: "u1", total: 12.75 },
    "#W2": { status: "delivered", user_id: "u1", total: 1 },
  },
  users: { u1: { name: "Ann", balance: 5 } },
  products: { p1: { name: "lamp" } },
};

const exampleState = { orders: { "#W2": { status: "delivered", user_id: "u1", total: 1 } }, users: {} };

export const getOrder = {
  schema_version: 2,
  default_variant: "ok",
  variants: {
    ok: {
      result: { $expr: "state.orders[input.order_id]" },
      rules: [{ when: [{ expr: "!(input.order_id in state.orders)" }], result: "Error: order not found" }],
    },
  },
  examples: [
    { variant: "ok", input: { order_id: "#W2" }, state: exampleState, expected: exampleState.orders["#W2"] },
    { variant: "ok", input: { order_id: "#W9" }, state: exampleState, expected: "Error: order not found" },
  ],
};

export const cancelOrder = {
  schema_version: 2,
  default_variant: "ok",
  variants: {
    ok: {
      result: { $expr: "merge(state.orders[input.order_id], {'status': 'cancelled'})" },
      set_state: [
        { set: ["orders", { $input: "order_id" }, "status"], value: "cancelled" },
        {
          set: ["users", { $expr: "state.orders[input.order_id].user_id" }, "balance"],
          value: {
            $expr:
              "round(state.users[state.orders[input.order_id].user_id].balance + state.orders[input.order_id].total, 2)",
          },
        },
      ],
      rules: [
        { when: [{ expr: "!(input.order_id in state.orders)" }], result: "Error: order not found", set_state: [] },
        {
          when: [{ expr: "state.orders[input.order_id].status != 'pending'" }],
          result: "Error: non-pending order cannot be cancelled",
          set_state: [],
        },
      ],
    },
  },
  examples: [
    {
      variant: "ok",
      input: { order_id: "#W2" },
      state: exampleState,
      expected: "Error: non-pending order cannot be cancelled",
    },
  ],
};
