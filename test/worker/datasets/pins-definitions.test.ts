/**
 * A version-2 definition that pins a dataset, through HTTP in workerd: the save refuses a version
 * that is not stored (naming /definition/dataset), the revision keeps the pin (a new pin is a new
 * revision), and a simulation with no pin of its own starts the tool from the definition's dataset.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ResolvedDatasetPin } from "../../../src/core/datasets/pin.js";
import { call, newTenant, type TestTenant } from "../helpers.js";
import { createSimulation, dispatchJson, libraryTool, readAttempt } from "../simulation-helpers.js";
import { seedDataset } from "./seed-dataset.js";
import { cancelOrder, getOrder, shopData, shopTool } from "./shop-fixtures.js";

let tenant: TestTenant;
let first: ResolvedDatasetPin;
let second: ResolvedDatasetPin;

beforeAll(async () => {
  tenant = await newTenant();
  first = await seedDataset(tenant, "shop", shopData);
  second = await seedDataset(tenant, "shop", {
    ...shopData,
    orders: { ...shopData.orders, "#W1": { ...shopData.orders["#W1"], status: "delivered" } },
  });
});

describe("a definition's dataset pin", () => {
  it("is refused at save time when the version is not stored, naming the field", async () => {
    const tool = await libraryTool(tenant, { ...shopTool, name: "shop_refused" }, {});
    const saved = await call("POST", `/api/tools/${tool.id}/testing`, {
      key: tenant.key,
      body: {
        action: "save",
        operation_id: "get_order",
        contract_hash: tool.operations[0]?.contract_hash,
        definition: { ...getOrder, dataset: { name: "shop", version: 7 } },
      },
    });
    const message = 'no version 7 of dataset "shop" (GET /api/datasets/shop/versions lists its versions)';
    expect({ status: saved.status, body: await saved.json() }).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: `/definition/dataset: ${message}`,
          details: { problems: [{ path: "/definition/dataset", message }] },
        },
      },
    });
  });

  it("is kept by the revision, and starts a simulation's tool from that dataset", async () => {
    const tool = await libraryTool(tenant, shopTool, {
      get_order: { ...getOrder, dataset: { name: "shop", version: first.version } },
      cancel_order: cancelOrder,
    });
    const revisions = await call("GET", `/api/tools/${tool.id}/operations/get_order/revisions`, { key: tenant.key });
    // SAFETY: the documented revisions list.
    const listed = (await revisions.json()) as {
      items: Array<{ revision: number; definition: { dataset?: unknown } }>;
    };
    expect(listed.items.map((item) => [item.revision, item.definition.dataset])).toEqual([
      [1, { name: "shop", version: first.version }],
    ]);

    const simulation = await createSimulation(tenant, { tools: [{ tool_id: tool.id }] });
    const [attempt] = simulation.attempts;
    if (!attempt) throw new Error("no attempt");
    expect(await dispatchJson(attempt, { tool: "shop__get_order", arguments: { order_id: "#W1" } })).toEqual({
      status: 200,
      body: { status: "pending", user_id: "u1", total: 12.75 },
    });

    // A save that pins another version is a new revision; the next simulation starts from it.
    const op = tool.operations.find((o) => o.operation_id === "get_order");
    const resaved = await call("POST", `/api/tools/${tool.id}/testing`, {
      key: tenant.key,
      body: {
        action: "save",
        operation_id: "get_order",
        contract_hash: op?.contract_hash,
        definition: { ...getOrder, dataset: { name: "shop", version: second.version } },
      },
    });
    expect({ status: resaved.status, body: await resaved.json() }).toMatchObject({
      status: 201,
      body: { revision: 2 },
    });
    const [later] = (await createSimulation(tenant, { tools: [{ tool_id: tool.id }] })).attempts;
    if (!later) throw new Error("no attempt");
    expect(await dispatchJson(later, { tool: "shop__get_order", arguments: { order_id: "#W1" } })).toEqual({
      status: 200,
      body: { status: "delivered", user_id: "u1", total: 12.75 },
    });
    expect((await readAttempt(later)).body.state).toEqual({
      shop: {
        dataset: { name: "shop", version: second.version, content_hash: second.content_hash, bytes: second.bytes },
        changes: [],
      },
    });
  });
});
