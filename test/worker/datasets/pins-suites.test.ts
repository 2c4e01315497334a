/**
 * Suite scenarios that pin datasets, through HTTP and the real queue in workerd: the save refuses a
 * version that is not stored and a tool the agent does not have (naming /scenarios/<i>/datasets/<tool>),
 * and a run starts each scenario's attempts from its own dataset: the definition's pin where the
 * scenario names none, the scenario's where it does.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ResolvedDatasetPin } from "../../../src/core/datasets/pin.js";
import { call } from "../helpers.js";
import { evidence, libraryTool } from "../simulation-helpers.js";
import {
  GOOD_JUDGE,
  invoiceWorld,
  putSuite,
  repetitions,
  server,
  startRun,
  waitForRun,
  type InvoiceWorld,
} from "../run-helpers.js";
import { seedDataset } from "./seed-dataset.js";
import { cancelOrder, getOrder, shopData, shopTool } from "./shop-fixtures.js";

const GET_ORDER = "shop__get_order";
const QUERY = "What is the status of order #W1?";

let world: InvoiceWorld;
let toolId: string;
let base: ResolvedDatasetPin;
let delivered: ResolvedDatasetPin;

function suite(scenarios: unknown[]): Record<string, unknown> {
  return {
    agent: {
      connection: world.connection,
      instructions: "You answer questions about orders.",
      tools: [{ tool_id: toolId, operation_id: "get_order", approval_mode: "never_require" }],
    },
    scenarios,
    runs_per_scenario: 1,
    judge: { connection: world.connection, threshold: 4 },
  };
}

beforeAll(async () => {
  world = await invoiceWorld("datasets");
  base = await seedDataset(world.tenant, "shop", shopData);
  delivered = await seedDataset(world.tenant, "shop", {
    ...shopData,
    orders: { ...shopData.orders, "#W1": { ...shopData.orders["#W1"], status: "delivered" } },
  });
  toolId = (
    await libraryTool(world.tenant, shopTool, {
      get_order: { ...getOrder, dataset: { name: "shop", version: base.version } },
      cancel_order: cancelOrder,
    })
  ).id;
  await server.script(world.model, {
    conversations: {
      [QUERY]: [{ tool_calls: [{ name: GET_ORDER, arguments: { order_id: "#W1" } }] }, { content: "Looked it up." }],
    },
    judge_default: GOOD_JUDGE,
  });
});

describe("a suite scenario's datasets", () => {
  it("are refused at save time when the version is not stored or the tool is not the agent's, naming the field", async () => {
    const saved = await call("PUT", "/api/suites/refused", {
      key: world.tenant.key,
      body: suite([
        { id: "a", query: QUERY, expect: GET_ORDER, datasets: { shop: { name: "shop", version: 42 } } },
        { id: "b", query: QUERY, expect: GET_ORDER, datasets: { shop: { name: "shop", version: 0 } } },
      ]),
    });
    const body = (await saved.json()) as { error: { code: string; details: { problems: unknown[] } } };
    expect({ status: saved.status, code: body.error.code, problems: body.error.details.problems }).toEqual({
      status: 400,
      code: "invalid_request",
      problems: [
        { path: "/scenarios/1/datasets/shop/version", message: "required: a version number (a whole number from 1)" },
      ],
    });
    const unknown = await call("PUT", "/api/suites/refused", {
      key: world.tenant.key,
      body: suite([{ id: "a", query: QUERY, expect: GET_ORDER, datasets: { shop: { name: "shop", version: 42 } } }]),
    });
    expect({ status: unknown.status, body: await unknown.json() }).toMatchObject({
      status: 400,
      body: {
        error: {
          details: {
            problems: [
              {
                path: "/scenarios/0/datasets/shop",
                message: 'no version 42 of dataset "shop" (GET /api/datasets/shop/versions lists its versions)',
              },
            ],
          },
        },
      },
    });
    const noTool = await call("PUT", "/api/suites/refused", {
      key: world.tenant.key,
      body: suite([{ id: "a", query: QUERY, expect: GET_ORDER, datasets: { shops: { name: "shop", version: 1 } } }]),
    });
    const noToolBody = (await noTool.json()) as { error: { details: { problems: Array<{ path: string }> } } };
    expect({ status: noTool.status, paths: noToolBody.error.details.problems.map((p) => p.path) }).toEqual({
      status: 400,
      paths: ["/scenarios/0/datasets/shops"],
    });
  });

  it("start each scenario's attempt from its own dataset in a run", async () => {
    await putSuite(
      world,
      "orders",
      suite([
        { id: "as-pinned", query: QUERY, expect: GET_ORDER },
        {
          id: "delivered",
          query: QUERY,
          expect: GET_ORDER,
          datasets: { shop: { name: "shop", version: delivered.version } },
        },
      ]),
    );
    const run = await waitForRun(world, (await startRun(world, "orders")).id);
    expect(run).toMatchObject({ status: "finished", errors: 0, passed: 2 });
    const items = await repetitions(world, run.id as string);
    const results: Record<string, unknown> = {};
    for (const item of items) {
      const calls = await evidence({ id: String(item.attempt_id), token: world.tenant.key });
      results[String(item.scenario)] = calls.map((c) => c.result);
    }
    expect(results).toEqual({
      "as-pinned": [{ status: "pending", user_id: "u1", total: 12.75 }],
      delivered: [{ status: "delivered", user_id: "u1", total: 12.75 }],
    });
  });
});
