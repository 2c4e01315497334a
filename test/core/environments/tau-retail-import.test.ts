/**
 * The τ-bench retail importer (scripts/tau-bench/retail-suite.ts) against the committed reference
 * files: a few known tasks as whole scenarios, every split's count and ids, and the suite's own
 * fields read by parseSuite.
 */
import { describe, expect, it } from "vitest";
import { parseSuite } from "../../../src/core/evals/suite-parse.js";
import {
  DEFAULT_IMPORT_OPTIONS,
  DEFAULT_INSTRUCTIONS,
  retailSuite,
  SPLITS,
  taskScenario,
} from "../../../scripts/tau-bench/retail-suite.js";
import { readReference } from "../../support/tau-retail.js";

const test = readReference("test");
const task = (index: number) => {
  const found = test.tasks.find((t) => t.index === index);
  if (!found) throw new Error(`no test task ${index}`);
  return found;
};
const pin = { retail: { name: "retail", version: 1 } };
const YUSUF = { first_name: "Yusuf", last_name: "Rossi", zip: "19122" };

describe("taskScenario", () => {
  it("test task 0: an exchange; expects the write, replays every gold call", () => {
    expect(taskScenario("test", task(0), 1)).toEqual({
      id: "test-0",
      user: {
        instruction:
          "You are Yusuf Rossi in 19122. You received your order #W2378156 and wish to exchange the mechanical keyboard for a similar one but with clicky switches and the smart thermostat for one compatible with Google Home instead of Apple HomeKit. If there is no keyboard that is clicky, RGB backlight, full size, you'd go for no backlight. You are detail-oriented and want to make sure everything is addressed in one go.",
      },
      expect: ["retail__exchange_delivered_order_items"],
      end_state: {
        gold_calls: [
          { function: "retail__find_user_id_by_name_zip", arguments: YUSUF },
          { function: "retail__get_order_details", arguments: { order_id: "#W2378156" } },
          { function: "retail__get_product_details", arguments: { product_id: "1656367028" } },
          { function: "retail__get_product_details", arguments: { product_id: "4896585277" } },
          {
            function: "retail__exchange_delivered_order_items",
            arguments: {
              order_id: "#W2378156",
              item_ids: ["1151293680", "4983901480"],
              new_item_ids: ["7706410293", "7747408585"],
              payment_method_id: "credit_card_9513926",
            },
          },
        ],
      },
      outputs: [],
      datasets: pin,
    });
  });

  it("test task 2: a return with an output to state, on dataset version 7", () => {
    expect(taskScenario("test", task(2), 7)).toEqual({
      id: "test-2",
      user: {
        instruction:
          "You are Yusuf Rossi in 19122. You want to know how many tshirt options are available in the online store right now. You want to also return the cleaner, headphone, and smart watch.",
      },
      expect: ["retail__return_delivered_order_items"],
      end_state: {
        gold_calls: [
          { function: "retail__find_user_id_by_name_zip", arguments: YUSUF },
          { function: "retail__get_product_details", arguments: { product_id: "6086499569" } },
          { function: "retail__list_all_product_types", arguments: {} },
          { function: "retail__get_product_details", arguments: { product_id: "9523456873" } },
          { function: "retail__get_user_details", arguments: { user_id: "yusuf_rossi_9620" } },
          { function: "retail__get_order_details", arguments: { order_id: "#W6247578" } },
          { function: "retail__get_order_details", arguments: { order_id: "#W9711842" } },
          { function: "retail__get_order_details", arguments: { order_id: "#W4776164" } },
          { function: "retail__get_order_details", arguments: { order_id: "#W6679257" } },
          { function: "retail__get_order_details", arguments: { order_id: "#W2378156" } },
          { function: "retail__get_product_details", arguments: { product_id: "9523456873" } },
          {
            function: "retail__return_delivered_order_items",
            arguments: {
              order_id: "#W2378156",
              item_ids: ["4602305039", "4202497723", "9408160950"],
              payment_method_id: "credit_card_9513926",
            },
          },
        ],
      },
      outputs: ["10"],
      datasets: { retail: { name: "retail", version: 7 } },
    });
  });

  it("test task 10: the transfer to a human is what it expects", () => {
    expect(taskScenario("test", task(10), 1)).toMatchObject({
      id: "test-10",
      expect: ["retail__transfer_to_human_agents"],
    });
  });

  it("test task 24: no gold call, so no call is expected and the end state is the start", () => {
    expect(taskScenario("test", task(24), 1)).toEqual({
      id: "test-24",
      user: {
        instruction:
          "You are Sofia Hernandez, and you live in Seattle, WA, 98193. You want to cancel the grill, but if the agent asks you to confirm, you regret and want to keep it. You then want to ask which two t-shirts you have ordered in another order, and what materials are they. Make everything sound very natural and make up reasons.",
      },
      expect: null,
      end_state: { gold_calls: [] },
      outputs: ["polyester", "cotton"],
      datasets: pin,
    });
  });
});

describe("retailSuite", () => {
  it("the test split: the suite's own fields, and one scenario per task in order", () => {
    const suite = retailSuite([test], DEFAULT_IMPORT_OPTIONS);
    const { scenarios, ...rest } = suite;
    expect(rest).toEqual({
      description:
        "τ-bench retail: test (115 tasks), imported from sierra-research/tau-bench at 59a200c6d575d595120f1cb70fea53cef0632f6b (examples/environments/tau-retail).",
      agent: {
        connection: "agent",
        instructions: DEFAULT_INSTRUCTIONS,
        tools: [{ tool: "retail" }],
        max_iterations: 10,
        max_function_calls: 20,
      },
      user_model: { connection: "user-model", parameters: { temperature: 0 }, max_turns: 30 },
      runs_per_scenario: 3,
    });
    expect((scenarios as Array<{ id: string }>).map((s) => s.id)).toEqual(test.tasks.map((t) => `test-${t.index}`));
  });

  it("all splits: 635 scenarios with unique ids, within one run's limits", () => {
    const suite = retailSuite(
      SPLITS.map((split) => readReference(split)),
      { ...DEFAULT_IMPORT_OPTIONS, agent_connection: "a", user_model: "u" },
    );
    const ids = (suite.scenarios as Array<{ id: string }>).map((s) => s.id);
    expect({ count: ids.length, unique: new Set(ids).size, first: ids[0], last: ids.at(-1) }).toEqual({
      count: 635,
      unique: 635,
      first: "test-0",
      last: "dev-19",
    });
    // The outcome fields (end_state, outputs) and the dataset pin are read by their own modules,
    // and a scenario graded by its end state needs no judge; without them (and with a judge in
    // their place), what this importer writes is a suite parseSuite takes as it is.
    const withoutOutcome = {
      ...suite,
      judge: { connection: "judge" },
      scenarios: (suite.scenarios as Array<Record<string, unknown>>).map(
        ({ end_state: _e, outputs: _o, datasets: _d, ...scenario }) => scenario,
      ),
    };
    const parsed = parseSuite(withoutOutcome);
    expect(parsed.ok ? "ok" : parsed.problems.slice(0, 3)).toBe("ok");
  });
});
