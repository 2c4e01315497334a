/**
 * Dataset pins through HTTP in workerd: a simulation's tool entry pins a stored dataset version,
 * attempts start from it without copying it, each attempt's writes stay its own (records only), the
 * state endpoint reads any record whole, and evidence keeps only the records a call changed.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ResolvedDatasetPin } from "../../../src/core/datasets/pin.js";
import { call, newTenant, type TestTenant } from "../helpers.js";
import { createSimulation, dispatchJson, evidence, libraryTool, readAttempt, stubOf } from "../simulation-helpers.js";
import { seedDataset } from "./seed-dataset.js";
import { cancelOrder, getOrder, shopData, shopTool } from "./shop-fixtures.js";

let tenant: TestTenant;
let pin: ResolvedDatasetPin;
let toolId: string;

beforeAll(async () => {
  tenant = await newTenant();
  pin = await seedDataset(tenant, "shop", shopData);
  toolId = (await libraryTool(tenant, shopTool, { get_order: getOrder, cancel_order: cancelOrder })).id;
});

function readState(attempt: { id: string; token: string }, tool: string, pointer: string) {
  return call("GET", `/api/attempts/${attempt.id}/state?tool=${tool}&pointer=${encodeURIComponent(pointer)}`, {
    key: attempt.token,
  }).then(async (response) => ({ status: response.status, body: await response.json() }));
}

describe("a simulation's tool entry pinning a dataset", () => {
  it("starts every attempt from the base, keeps each attempt's writes its own, and records only changed records", async () => {
    const simulation = await createSimulation(tenant, {
      tools: [{ tool_id: toolId, dataset: { name: "shop", version: pin.version } }],
      attempts: 2,
    });
    expect(
      simulation.pinned.map((p) => ({ operation_id: p.operation_id, dataset: (p as { dataset?: unknown }).dataset })),
    ).toEqual([
      { operation_id: "get_order", dataset: pin },
      { operation_id: "cancel_order", dataset: pin },
    ]);
    const [first, second] = simulation.attempts;
    if (!first || !second) throw new Error("two attempts expected");

    expect(await dispatchJson(first, { tool: "shop__cancel_order", arguments: { order_id: "#W1" } })).toEqual({
      status: 200,
      body: { status: "cancelled", user_id: "u1", total: 12.75 },
    });
    expect(await dispatchJson(first, { tool: "shop__get_order", arguments: { order_id: "#W1" } })).toEqual({
      status: 200,
      body: { status: "cancelled", user_id: "u1", total: 12.75 },
    });
    expect(await dispatchJson(first, { tool: "shop__cancel_order", arguments: { order_id: "#W1" } })).toEqual({
      status: 200,
      body: "Error: non-pending order cannot be cancelled",
    });

    // The write reads back; an untouched record reads from the base; a missing one is a 404 naming it.
    expect(await readState(first, "shop", "/orders/#W1")).toEqual({
      status: 200,
      body: {
        attempt_id: first.id,
        tool: "shop",
        pointer: "/orders/#W1",
        value: { status: "cancelled", user_id: "u1", total: 12.75 },
      },
    });
    expect(await readState(first, "shop", "/users/u1/balance")).toMatchObject({ status: 200, body: { value: 17.75 } });
    expect(await readState(first, "shop", "/products/p1")).toMatchObject({
      status: 200,
      body: { value: { name: "lamp" } },
    });
    expect(await readState(first, "shop", "/orders/#W9")).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'tool "shop" holds nothing at "/orders/#W9"',
          details: { problems: [{ path: "/query/pointer", message: 'nothing at "/orders/#W9"' }] },
        },
      },
    });

    // The second attempt sees the base unchanged.
    expect(await dispatchJson(second, { tool: "shop__get_order", arguments: { order_id: "#W1" } })).toEqual({
      status: 200,
      body: { status: "pending", user_id: "u1", total: 12.75 },
    });
    expect(await readState(second, "shop", "/users/u1")).toMatchObject({
      status: 200,
      body: { value: { name: "Ann", balance: 5 } },
    });

    // The attempt view: the pinned version and the changes over it, never the whole dataset.
    const dataset = { name: "shop", version: pin.version, content_hash: pin.content_hash, bytes: pin.bytes };
    expect((await readAttempt(first)).body.state).toEqual({
      shop: {
        dataset,
        changes: [
          { pointer: "/orders/#W1", value: { status: "cancelled", user_id: "u1", total: 12.75 } },
          { pointer: "/users/u1", value: { name: "Ann", balance: 17.75 } },
        ],
      },
    });
    expect((await readAttempt(second)).body.state).toEqual({ shop: { dataset, changes: [] } });

    // Evidence: the one call that changed something holds only the two records it changed.
    const calls = await evidence(first);
    expect(calls.map((c) => (c as { state_change?: unknown }).state_change ?? null)).toEqual([
      {
        tool: "shop",
        before: {
          orders: { "#W1": { status: "pending", user_id: "u1", total: 12.75 } },
          users: { u1: { name: "Ann", balance: 5 } },
        },
        after: {
          orders: { "#W1": { status: "cancelled", user_id: "u1", total: 12.75 } },
          users: { u1: { name: "Ann", balance: 17.75 } },
        },
        records: ["/orders/#W1", "/users/u1"],
        dataset: { name: "shop", version: pin.version },
      },
      null,
      null,
    ]);

    // The attempt's own storage holds those two records and no copy of the dataset.
    const stored = await runInDurableObject(stubOf(first), (_instance, state) => ({
      records: state.storage.sql.exec("SELECT collection, record FROM dataset_records ORDER BY collection").toArray(),
      states: state.storage.sql.exec("SELECT count(*) AS n FROM state").one().n,
    }));
    expect(stored).toEqual({
      records: [
        { collection: "orders", record: "#W1" },
        { collection: "users", record: "u1" },
      ],
      states: 0,
    });
  });

  it("refuses a pin that names no stored version, or is malformed, naming the field", async () => {
    const missing = await call("POST", "/api/simulations", {
      key: tenant.key,
      body: { tools: [{ tool_id: toolId, dataset: { name: "shop", version: 99 } }] },
    });
    expect({ status: missing.status, body: await missing.json() }).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message:
            '/tools/0/dataset: no version 99 of dataset "shop" (GET /api/datasets/shop/versions lists its versions)',
          details: {
            problems: [
              {
                path: "/tools/0/dataset",
                message: 'no version 99 of dataset "shop" (GET /api/datasets/shop/versions lists its versions)',
              },
            ],
          },
        },
      },
    });
    // Another tenant's dataset is simply not there.
    const other = await newTenant();
    const otherTool = (await libraryTool(other, shopTool, { get_order: getOrder, cancel_order: cancelOrder })).id;
    const foreign = await call("POST", "/api/simulations", {
      key: other.key,
      body: { tools: [{ tool_id: otherTool, dataset: { name: "shop", version: pin.version } }] },
    });
    expect(foreign.status).toBe(404);

    const malformed = await call("POST", "/api/simulations", {
      key: tenant.key,
      body: { tools: [{ tool_id: toolId, dataset: { name: "shop", version: 0 } }] },
    });
    const body = (await malformed.json()) as {
      error: { code: string; details: { problems: Array<{ path: string }> } };
    };
    expect({
      status: malformed.status,
      code: body.error.code,
      paths: body.error.details.problems.map((p) => p.path),
    }).toEqual({
      status: 400,
      code: "invalid_request",
      paths: ["/tools/0/dataset/version"],
    });
  });

  it("answers a harness error naming the dataset when its content is gone from storage", async () => {
    const lost = await seedDataset(tenant, "lost", { orders: {} });
    await env.DATASETS.delete(`tenants/${tenant.id}/datasets/${lost.content_hash}.json`);
    const [attempt] = (
      await createSimulation(tenant, { tools: [{ tool_id: toolId, dataset: { name: "lost", version: lost.version } }] })
    ).attempts;
    if (!attempt) throw new Error("no attempt");
    const answer = await dispatchJson(attempt, { tool: "shop__get_order", arguments: { order_id: "#W1" } });
    expect(answer).toMatchObject({ status: 500, body: { error: { code: "harness_error", kind: "internal" } } });
    expect(JSON.stringify(answer.body)).toContain('the dataset \\"lost\\" version 1 could not be read');
  });
});
