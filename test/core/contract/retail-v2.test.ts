/**
 * Version 2 can express τ-bench's hardest retail tools: five of them written as definitions
 * (test/fixtures/retail-v2/*.json) over a small made-up state in τ-bench's shape, each call
 * checked against the answer and the state change read off τ-bench's Python (tau_bench/envs/
 * retail/tools/*.py at commit 59a200c), including the error strings, their order of precedence
 * and Python's float arithmetic and round().
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  executeCall,
  parseDefinition,
  type CallOutcome,
  type MockDefinition,
} from "../../../src/core/contract/index.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import { acceptAll } from "./helpers.js";

const FIXTURES = path.resolve(import.meta.dirname, "../../fixtures/retail-v2");

function readJson(name: string): JsonObject {
  // SAFETY: the fixtures are JSON objects written for this test.
  return JSON.parse(readFileSync(path.join(FIXTURES, name), "utf8")) as JsonObject;
}

const STATE = readJson("state.json");

/** A fixture definition with the retail state as its initial state and one checked example. */
function retail(tool: string): MockDefinition {
  const raw = {
    ...readJson(`${tool}.json`),
    initial_state: STATE,
    examples: [
      {
        variant: "retail",
        input: { order_id: "#W404", first_name: "x", last_name: "y", zip: "0" },
        expected: tool === "find_user_id_by_name_zip" ? "Error: user not found" : "Error: order not found",
      },
    ],
  };
  const parsed = parseDefinition(raw);
  if (!parsed.ok) throw new Error(`${tool} did not parse: ${JSON.stringify(parsed.errors, null, 2)}`);
  return parsed.definition;
}

function call(definition: MockDefinition, args: JsonObject, state: JsonObject = STATE): CallOutcome {
  return executeCall({
    input_schema: { type: "object" },
    output_schema: true,
    definition,
    args,
    state,
    validator: acceptAll,
  });
}

function answer(outcome: CallOutcome): JsonValue {
  if (outcome.kind !== "result") throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

function copy<T extends JsonValue>(value: T): T {
  // SAFETY: a JSON round trip of JSON keeps its shape.
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The retail state with `edit` applied to a copy: the state τ-bench's Python leaves behind. */
// biome-ignore lint/suspicious/noExplicitAny: the edits reach deep into records as τ-bench's Python does
function stateWith(edit: (state: any) => void): JsonObject {
  const next = copy(STATE);
  edit(next);
  return next;
}

describe("find_user_id_by_name_zip (500 users in τ-bench; the first match in dictionary order)", () => {
  const definition = retail("find_user_id_by_name_zip");

  it("matches names case-insensitively and the zip exactly", () => {
    expect(answer(call(definition, { first_name: "ada", last_name: "LOVELACE", zip: "10001" }))).toBe(
      "ada_lovelace_1815",
    );
    expect(answer(call(definition, { first_name: "Ada", last_name: "Byron", zip: "10001" }))).toBe("ada_byron_1816");
  });

  it("answers τ-bench's error string when nobody matches, and changes nothing", () => {
    const outcome = call(definition, { first_name: "Ada", last_name: "Lovelace", zip: "20002" });
    expect(outcome).toMatchObject({ kind: "result", result: "Error: user not found", state_changed: false });
  });
});

describe("cancel_pending_order", () => {
  const definition = retail("cancel_pending_order");

  it("answers the errors in τ-bench's order", () => {
    expect(answer(call(definition, { order_id: "#W9999999", reason: "no longer needed" }))).toBe(
      "Error: order not found",
    );
    expect(answer(call(definition, { order_id: "#W0000002", reason: "no longer needed" }))).toBe(
      "Error: non-pending order cannot be cancelled",
    );
    expect(answer(call(definition, { order_id: "#W0000001", reason: "changed my mind" }))).toBe(
      "Error: invalid reason",
    );
  });

  it("refunds every payment, tops up the gift card with Python's rounding, and answers the order", () => {
    const expected = stateWith((s) => {
      // 40.1 + 50.04 is 90.14000000000001 in floats; round(…, 2) gives 90.14.
      s.users.ada_lovelace_1815.payment_methods.gift_card_2001.balance = 90.14;
      const order = s.orders["#W0000001"];
      order.status = "cancelled";
      order.cancel_reason = "no longer needed";
      order.payment_history.push(
        { transaction_type: "refund", amount: 50.04, payment_method_id: "gift_card_2001" },
        { transaction_type: "refund", amount: 30.05, payment_method_id: "credit_card_1001" },
      );
    });
    const outcome = call(definition, { order_id: "#W0000001", reason: "no longer needed" });
    expect(outcome).toEqual({
      kind: "result",
      result: (expected.orders as JsonObject)["#W0000001"],
      state: expected,
      state_changed: true,
      variant: "retail",
      rule: null,
      delay_ms: 0,
    });
    // The state handed in is untouched; a second cancel sees the order is no longer pending.
    expect(STATE).toEqual(readJson("state.json"));
    if (outcome.kind !== "result") return;
    expect(answer(call(definition, { order_id: "#W0000001", reason: "no longer needed" }, outcome.state))).toBe(
      "Error: non-pending order cannot be cancelled",
    );
  });
});

describe("return_delivered_order_items", () => {
  const definition = retail("return_delivered_order_items");

  it("answers the errors in τ-bench's order", () => {
    const args = { order_id: "#W0000002", item_ids: ["2000000001"], payment_method_id: "credit_card_1001" };
    expect(answer(call(definition, { ...args, order_id: "#W0000001" }))).toBe(
      "Error: non-delivered order cannot be returned",
    );
    // paypal_3001 belongs to another user.
    expect(answer(call(definition, { ...args, payment_method_id: "paypal_3001" }))).toBe(
      "Error: payment method not found",
    );
    // The order holds one 2000000001, and the list asks for two.
    expect(answer(call(definition, { ...args, item_ids: ["2000000001", "2000000001"] }))).toBe(
      "Error: some item not found",
    );
  });

  it("refuses a payment method that is neither the original nor a gift card", () => {
    const state = stateWith((s) => {
      s.users.ada_lovelace_1815.payment_methods.paypal_9 = { source: "paypal", id: "paypal_9" };
    });
    expect(
      answer(
        call(definition, { order_id: "#W0000002", item_ids: ["2000000001"], payment_method_id: "paypal_9" }, state),
      ),
    ).toBe("Error: payment method should be either the original payment method or a gift card");
  });

  it("marks the return with the item ids sorted", () => {
    const expected = stateWith((s) => {
      const order = s.orders["#W0000002"];
      order.status = "return requested";
      order.return_items = ["2000000001", "3000000001"];
      order.return_payment_method_id = "gift_card_2001";
    });
    const outcome = call(definition, {
      order_id: "#W0000002",
      item_ids: ["3000000001", "2000000001"],
      payment_method_id: "gift_card_2001",
    });
    expect(outcome).toMatchObject({
      kind: "result",
      result: (expected.orders as JsonObject)["#W0000002"],
      state: expected,
      state_changed: true,
    });
  });
});

describe("exchange_delivered_order_items", () => {
  const definition = retail("exchange_delivered_order_items");
  const base = {
    order_id: "#W0000002",
    item_ids: ["2000000001", "3000000001"],
    new_item_ids: ["2000000002", "3000000002"],
    payment_method_id: "gift_card_2001",
  };

  it("answers the errors in τ-bench's order, naming the item", () => {
    expect(answer(call(definition, { ...base, order_id: "#W0000001" }))).toBe(
      "Error: non-delivered order cannot be exchanged",
    );
    expect(answer(call(definition, { ...base, item_ids: ["9", "2000000001"] }))).toBe("Error: 9 not found");
    expect(answer(call(definition, { ...base, new_item_ids: ["2000000002"] }))).toBe(
      "Error: the number of items to be exchanged should match",
    );
    expect(answer(call(definition, { ...base, new_item_ids: ["2000000003", "3000000002"] }))).toBe(
      "Error: new item 2000000003 not found or available",
    );
    // A kettle variant is not a lamp variant.
    expect(answer(call(definition, { ...base, new_item_ids: ["3000000002", "3000000002"] }))).toBe(
      "Error: new item 3000000002 not found or available",
    );
    expect(answer(call(definition, { ...base, payment_method_id: "paypal_3001" }))).toBe(
      "Error: payment method not found",
    );
    const poor = stateWith((s) => {
      s.users.ada_lovelace_1815.payment_methods.gift_card_2001.balance = 9.5;
    });
    expect(answer(call(definition, base, poor))).toBe(
      "Error: insufficient gift card balance to pay for the price difference",
    );
  });

  it("records the exchange with the rounded price difference", () => {
    // (35.1 - 30.05) + (24.49 - 19.99), rounded to 2 places: 9.55.
    const expected = stateWith((s) => {
      const order = s.orders["#W0000002"];
      order.status = "exchange requested";
      order.exchange_items = ["2000000001", "3000000001"];
      order.exchange_new_items = ["2000000002", "3000000002"];
      order.exchange_payment_method_id = "gift_card_2001";
      order.exchange_price_difference = 9.55;
    });
    const outcome = call(definition, {
      ...base,
      item_ids: ["3000000001", "2000000001"],
      new_item_ids: ["3000000002", "2000000002"],
    });
    expect(outcome).toMatchObject({
      kind: "result",
      result: (expected.orders as JsonObject)["#W0000002"],
      state: expected,
      state_changed: true,
    });
  });
});

describe("modify_pending_order_items", () => {
  const definition = retail("modify_pending_order_items");
  const black = {
    name: "Lamp",
    product_id: "1000000001",
    item_id: "2000000002",
    price: 35.1,
    options: { color: "black" },
  };

  it("answers the errors in τ-bench's order", () => {
    const args = {
      order_id: "#W0000001",
      item_ids: ["3000000001"],
      new_item_ids: ["3000000002"],
      payment_method_id: "gift_card_2001",
    };
    expect(answer(call(definition, { ...args, order_id: "#W0000002" }))).toBe(
      "Error: non-pending order cannot be modified",
    );
    expect(
      answer(
        call(definition, {
          ...args,
          item_ids: ["3000000001", "3000000001"],
          new_item_ids: ["3000000002", "3000000002"],
        }),
      ),
    ).toBe("Error: 3000000001 not found");
    const poor = stateWith((s) => {
      s.users.ada_lovelace_1815.payment_methods.gift_card_2001.balance = 4.49;
    });
    expect(answer(call(definition, args, poor))).toBe("Error: insufficient gift card balance to pay for the new item");
  });

  it("changes a repeated item one copy per pair, pays by gift card and keeps the unrounded amount", () => {
    // diff = 0 + (35.1 - 30.05) + (35.1 - 30.05) = 10.100000000000001 in Python floats; the
    // payment records it as is, and the balance is round(40.1 - diff, 2) = 30.0.
    const expected = stateWith((s) => {
      const order = s.orders["#W0000001"];
      order.payment_history.push({
        transaction_type: "payment",
        amount: 10.100000000000001,
        payment_method_id: "gift_card_2001",
      });
      s.users.ada_lovelace_1815.payment_methods.gift_card_2001.balance = 30;
      order.items[0] = black;
      order.items[1] = black;
      order.status = "pending (item modified)";
    });
    const outcome = call(definition, {
      order_id: "#W0000001",
      item_ids: ["2000000001", "2000000001"],
      new_item_ids: ["2000000002", "2000000002"],
      payment_method_id: "gift_card_2001",
    });
    expect(outcome).toMatchObject({
      kind: "result",
      result: (expected.orders as JsonObject)["#W0000001"],
      state: expected,
      state_changed: true,
    });
  });

  it("records a zero difference as a refund and leaves a credit card's record alone", () => {
    const expected = stateWith((s) => {
      const order = s.orders["#W0000001"];
      order.payment_history.push({ transaction_type: "refund", amount: 0, payment_method_id: "credit_card_1001" });
      order.status = "pending (item modified)";
    });
    const outcome = call(definition, {
      order_id: "#W0000001",
      item_ids: ["2000000001"],
      new_item_ids: ["2000000001"],
      payment_method_id: "credit_card_1001",
    });
    expect(outcome).toMatchObject({ kind: "result", state: expected, state_changed: true });
  });
});
