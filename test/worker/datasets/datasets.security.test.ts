/** Datasets belong to one tenant and are written with AIManager:ManageTools; versions never change. */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, keyWith, newTenant, type TestTenant } from "../helpers.js";

let owner: TestTenant;
let stranger: TestTenant;

beforeAll(async () => {
  owner = await newTenant();
  stranger = await newTenant();
  await call("POST", "/api/datasets/private/versions", { key: owner.key, body: { orders: { "#W1": { secret: 1 } } } });
});

describe("tenant isolation", () => {
  it("another tenant's key sees 404 for every read, an empty list, and its own save starts its own version 1", async () => {
    for (const path of [
      "/api/datasets/private/versions",
      "/api/datasets/private/versions/1",
      "/api/datasets/private/versions/1/content",
      "/api/datasets/private/versions/1/record?pointer=/orders",
    ])
      expect({ path, status: (await call("GET", path, { key: stranger.key })).status }).toEqual({ path, status: 404 });
    expect(await answer(await call("GET", "/api/datasets", { key: stranger.key }))).toEqual({
      status: 200,
      body: { items: [], next_cursor: null },
    });
    expect(
      await answer(await call("POST", "/api/datasets/private/versions", { key: stranger.key, body: { mine: [] } })),
    ).toMatchObject({ status: 201, body: { name: "private", version: 1 } });
    expect(
      await answer(await call("GET", "/api/datasets/private/versions/1/record?pointer=/orders", { key: owner.key })),
    ).toMatchObject({ status: 200, body: { value: { "#W1": { secret: 1 } } } });
  });
});

describe("permissions", () => {
  it("needs AIManager:ManageTools to write or read; a RunEvals key is refused with 403 naming it", async () => {
    const runEvals = await keyWith(owner.id, ["AIManager:RunEvals"]);
    const forbidden = {
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "this API key lacks the permission AIManager:ManageTools",
          details: { required_permission: "AIManager:ManageTools" },
        },
      },
    };
    expect(await answer(await call("POST", "/api/datasets/x/versions", { key: runEvals, body: { a: [] } }))).toEqual(
      forbidden,
    );
    expect(await answer(await call("GET", "/api/datasets/private/versions/1", { key: runEvals }))).toEqual(forbidden);
    const manageTools = await keyWith(owner.id, ["AIManager:ManageTools"]);
    expect(
      await answer(await call("POST", "/api/datasets/x/versions", { key: manageTools, body: { a: [] } })),
    ).toMatchObject({ status: 201 });
    expect((await call("GET", "/api/datasets", {})).status).toBe(401);
  });
});

describe("append-only", () => {
  it("D1 refuses to change, delete or overwrite a version row", async () => {
    const attempts = [
      env.DB.prepare("update dataset_versions set content_hash = 'x' where tenant_id = ?").bind(owner.id),
      env.DB.prepare("delete from dataset_versions where tenant_id = ?").bind(owner.id),
      env.DB.prepare(
        "insert or replace into dataset_versions (tenant_id, name, version, content_hash, bytes, created_by) values (?, 'private', 1, 'x', 1, 'k')",
      ).bind(owner.id),
    ];
    for (const statement of attempts) await expect(statement.run()).rejects.toThrow(/append-only/);
    expect(
      await answer(
        await call("GET", "/api/datasets/private/versions/1/record?pointer=/orders/%23W1", { key: owner.key }),
      ),
    ).toMatchObject({ status: 200, body: { value: { secret: 1 } } });
  });
});
