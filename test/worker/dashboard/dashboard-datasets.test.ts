/**
 * The Datasets pages as a person reads them: datasets saved over the API, then the list, one
 * dataset's versions and collections, and one version's facts, each the figures the API answers.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { when } from "../../../src/worker/dashboard/format.js";
import { type Browser, readPage, signInWith, tableRows } from "../dashboard-helpers.js";
import { answer, call, keyWith, newTenant, type TestTenant } from "../helpers.js";

let tenant: TestTenant;
let browser: Browser;
type Saved = { version: number; content_hash: string; bytes: number; created_at: string };
let v1: Saved;
let v2: Saved;
let small: Saved;

async function save(name: string, body: unknown, query = ""): Promise<Saved> {
  const saved = await answer(await call("POST", `/api/datasets/${name}/versions${query}`, { key: tenant.key, body }));
  expect(saved.status).toBe(201);
  // SAFETY: a 201 answer is a DatasetVersion (test/worker/openapi/openapi.datasets.test.ts).
  return saved.body as Saved;
}

beforeAll(async () => {
  tenant = await newTenant();
  const orders = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`#W${i}`, { note: "x".repeat(40) }]));
  v1 = await save("retail", { orders, users: [{ id: "u1" }] });
  v2 = await save(
    "retail",
    { orders, users: [{ id: "u1" }, { id: "u2" }], version: "2" },
    "?description=second%20user",
  );
  small = await save("airline", { flights: {} });
  browser = await signInWith(tenant.key);
});

describe("the Datasets pages", () => {
  it("lists the tenant's datasets by name with the latest version, its size and hash", async () => {
    const page = await readPage(browser, "/datasets");
    expect(page.status).toBe(200);
    expect(tableRows(page.html, "Datasets by name")).toEqual([
      "Dataset | Latest version | Size | Content hash | Last changed | First stored",
      `airline | 1 | 14 B | ${small.content_hash.slice(0, 12)} | ${when(small.created_at)} | ${when(small.created_at)}`,
      `retail | 2 | ${(v2.bytes / 1000).toFixed(1)} kB | ${v2.content_hash.slice(0, 12)} | ${when(v2.created_at)} | ${when(v1.created_at)}`,
    ]);
  });

  it("shows one dataset's latest collections and its versions, newest first", async () => {
    const page = await readPage(browser, "/datasets/retail");
    expect(page.status).toBe(200);
    expect(tableRows(page.html, "Collections of retail version 2")).toEqual([
      "Collection | Kind | Records",
      "orders | object (records by key) | 40",
      "users | array (records in order) | 2",
    ]);
    expect(tableRows(page.html, "Versions of retail, newest first")).toEqual([
      "Version | Stored | By key | Size | Content hash | Description",
      `Version 2 | ${when(v2.created_at)} | ${tenant.keyId} | ${(v2.bytes / 1000).toFixed(1)} kB | ${v2.content_hash.slice(0, 12)} | second user`,
      `Version 1 | ${when(v1.created_at)} | ${tenant.keyId} | ${(v1.bytes / 1000).toFixed(1)} kB | ${v1.content_hash.slice(0, 12)} | —`,
    ]);
  });

  it("shows one version's facts and collections, and says how to read its content", async () => {
    const page = await readPage(browser, "/datasets/retail/versions/1");
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `retail, version 1 Stored ${when(v1.created_at)} By key ${tenant.keyId} Size ${(v1.bytes / 1000).toFixed(1)} kB (${v1.bytes} bytes) Content hash ${v1.content_hash} Description —`,
    );
    expect(tableRows(page.html, "Collections of retail version 1")).toEqual([
      "Collection | Kind | Records",
      "orders | object (records by key) | 40",
      "users | array (records in order) | 1",
    ]);
    expect(page.text).toContain("GET /api/datasets/retail/versions/1/content");
  });

  it("answers 404 pages for another tenant's dataset, a missing version, and a version that is not a number", async () => {
    const stranger = await signInWith((await newTenant()).key);
    for (const [who, path] of [
      [stranger, "/datasets/retail"],
      [browser, "/datasets/retail/versions/3"],
      [browser, "/datasets/retail/versions/first"],
    ] as const)
      expect({ path, status: (await readPage(who, path)).status }).toEqual({ path, status: 404 });
  });

  it("needs AIManager:ManageTools, as the API does", async () => {
    const runEvals = await signInWith(await keyWith(tenant.id, ["AIManager:RunEvals"]));
    const page = await readPage(runEvals, "/datasets");
    expect({ status: page.status, names: page.text.includes("AIManager:ManageTools") }).toEqual({
      status: 403,
      names: true,
    });
  });
});
