/**
 * A version-2 definition end to end: saved over HTTP (checked like any other), pinned by a
 * simulation and answered by the attempt object, with keyed state carried from call to call.
 */
import { describe, expect, it } from "vitest";
import { call, newTenant } from "./helpers.js";
import { createSimulation, dispatchJson, libraryTool, readAttempt } from "./simulation-helpers.js";

const tenantPromise = newTenant();

const orderOutput = {
  anyOf: [{ type: "string" }, { type: "object", required: ["status"], properties: { status: { type: "string" } } }],
};
const ordersTool = {
  name: "orders_v2",
  description: "Orders keyed by id: look one up, or cancel it.",
  kind: "http",
  operations: [
    {
      operation_id: "get_order",
      description: "Return one order by its id.",
      input_schema: {
        type: "object",
        required: ["order_id"],
        properties: { order_id: { type: "string" } },
        additionalProperties: false,
      },
      output_schema: orderOutput,
    },
    {
      operation_id: "cancel_order",
      description: "Cancel a pending order and refund its total to the customer's balance.",
      input_schema: {
        type: "object",
        required: ["order_id"],
        properties: { order_id: { type: "string" } },
        additionalProperties: false,
      },
      output_schema: orderOutput,
    },
  ],
};

const state = {
  orders: {
    "#1": { status: "pending", user_id: "u1", items: [{ price: 10.25 }, { price: 2.5 }] },
    "#2": { status: "pending", user_id: "u1", items: [{ price: 1 }] },
  },
  users: { u1: { balance: 5 } },
};

const getOrder = {
  schema_version: 2,
  default_variant: "ok",
  initial_state: state,
  variants: {
    ok: {
      result: { $expr: "state.orders[input.order_id]" },
      rules: [{ when: [{ expr: "!(input.order_id in state.orders)" }], result: "Error: order not found" }],
    },
  },
  examples: [
    { variant: "ok", input: { order_id: "#2" }, expected: { status: "pending", user_id: "u1", items: [{ price: 1 }] } },
    { variant: "ok", input: { order_id: "#9" }, expected: "Error: order not found" },
  ],
};

const cancelOrder = {
  schema_version: 2,
  default_variant: "ok",
  initial_state: state,
  variants: {
    ok: {
      result: {
        $expr:
          "merge(state.orders[input.order_id], {'refunded': sum(state.orders[input.order_id].items.map(i, i.price))})",
      },
      set_state: [
        { set: ["orders", { $input: "order_id" }, "status"], value: "cancelled" },
        {
          set: ["users", { $expr: "state.orders[input.order_id].user_id" }, "balance"],
          value: {
            $expr:
              "round(state.users[state.orders[input.order_id].user_id].balance + sum(state.orders[input.order_id].items.map(i, i.price)), 2)",
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
  examples: [{ variant: "ok", input: { order_id: "#9" }, expected: "Error: order not found" }],
};

describe("version-2 definitions over HTTP", () => {
  it("saves them, and an attempt answers from keyed state, one call after another", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(tenant, ordersTool, { get_order: getOrder, cancel_order: cancelOrder });
    const [attempt] = (await createSimulation(tenant, { tools: [{ tool_id: tool.id }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    const get = (order_id: string) => dispatchJson(attempt, { tool: "orders_v2__get_order", arguments: { order_id } });
    const cancel = (order_id: string) =>
      dispatchJson(attempt, { tool: "orders_v2__cancel_order", arguments: { order_id } });

    expect(await cancel("#1")).toEqual({
      status: 200,
      body: { status: "cancelled", user_id: "u1", items: [{ price: 10.25 }, { price: 2.5 }], refunded: 12.75 },
    });
    expect(await get("#1")).toEqual({
      status: 200,
      body: { status: "cancelled", user_id: "u1", items: [{ price: 10.25 }, { price: 2.5 }] },
    });
    expect(await cancel("#1")).toEqual({ status: 200, body: "Error: non-pending order cannot be cancelled" });
    expect(await cancel("#7")).toEqual({ status: 200, body: "Error: order not found" });
    expect(await get("#2")).toEqual({ status: 200, body: { status: "pending", user_id: "u1", items: [{ price: 1 }] } });
    // 5 + 10.25 + 2.5, written at the user the cancelled order belongs to.
    expect((await readAttempt(attempt)).body).toMatchObject({
      status: "active",
      harness_errors: 0,
      state: {
        orders_v2: {
          orders: {
            "#1": { status: "cancelled", user_id: "u1", items: [{ price: 10.25 }, { price: 2.5 }] },
            "#2": { status: "pending", user_id: "u1", items: [{ price: 1 }] },
          },
          users: { u1: { balance: 17.75 } },
        },
      },
    });
  });

  it("refuses to save a definition whose expression does not type-check, naming where", async () => {
    const tenant = await tenantPromise;
    const created = await call("POST", "/api/tools", {
      key: tenant.key,
      body: { ...ordersTool, name: "orders_v2_bad" },
    });
    // SAFETY: documented Tool shape.
    const tool = (await created.json()) as {
      id: string;
      operations: Array<{ operation_id: string; contract_hash: string }>;
    };
    const broken = { ...getOrder, variants: { ok: { result: { $expr: "state.orders[order_id]" } } } };
    const saved = await call("POST", `/api/tools/${tool.id}/testing`, {
      key: tenant.key,
      body: {
        action: "save",
        operation_id: "get_order",
        contract_hash: tool.operations[0]?.contract_hash,
        definition: broken,
      },
    });
    const body = JSON.stringify(await saved.json());
    expect({
      status: saved.status,
      names: body.includes("/variants/ok/result/$expr") && body.includes("Unknown variable: order_id"),
    }).toEqual({ status: 422, names: true });
  });
});
