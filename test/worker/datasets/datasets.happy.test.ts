/** Datasets through the real Worker: versions saved, listed and read back, content streamed from R2, records by pointer. */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, newTenant, type TestTenant } from "../helpers.js";

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await newTenant();
});

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** Keys deliberately out of alphabetical order: the stored text keeps the document's order. */
const RETAIL = {
  users: { u2: { name: "Bo", zip: "10001" }, u1: { name: "Ada", zip: "94105" } },
  orders: {
    "#W1": { user_id: "u1", status: "pending", items: [{ id: "i1", price: 10.5 }] },
    "#W2": { user_id: "u2", status: "delivered", items: [] },
  },
  "a/b": { "m~n": 1 },
  schema_version: "1",
};
const RETAIL_TEXT = JSON.stringify(RETAIL);
const COLLECTIONS = [
  { name: "users", kind: "object", records: 2 },
  { name: "orders", kind: "object", records: 2 },
  { name: "a/b", kind: "object", records: 1 },
];

function post(name: string, body: unknown, query = "", key = tenant.key) {
  return call("POST", `/api/datasets/${name}/versions${query}`, { key, body });
}

describe("saving versions", () => {
  it("stores version 1 (201) and answers the same content again as that version (200), whitespace aside", async () => {
    const created = await post("retail", RETAIL);
    const v1 = {
      name: "retail",
      version: 1,
      content_hash: sha256(RETAIL_TEXT),
      bytes: new TextEncoder().encode(RETAIL_TEXT).byteLength,
      description: null,
      created_by: tenant.keyId,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      collections: COLLECTIONS,
    };
    expect({ ...(await answer(created)), location: created.headers.get("location") }).toEqual({
      status: 201,
      body: v1,
      location: "/api/datasets/retail/versions/1",
    });
    const again = await answer(await post("retail", JSON.stringify(RETAIL, null, 2)));
    expect(again).toEqual({
      status: 200,
      body: { ...v1, created_at: (again.body as { created_at: string }).created_at },
    });
    expect(again.body).toEqual(
      (await answer(await call("GET", "/api/datasets/retail/versions/1", { key: tenant.key }))).body,
    );
  });

  it("appends a changed document as the next version, with its description, and lists the history newest first", async () => {
    const changed = { ...RETAIL, orders: { ...RETAIL.orders, "#W3": { user_id: "u1", status: "pending", items: [] } } };
    const saved = await answer(await post("history", RETAIL));
    const second = await answer(await post("history", changed, "?description=add%20order%20%23W3"));
    expect(second).toEqual({
      status: 201,
      body: {
        name: "history",
        version: 2,
        content_hash: sha256(JSON.stringify(changed)),
        bytes: JSON.stringify(changed).length,
        description: "add order #W3",
        created_by: tenant.keyId,
        created_at: expect.any(String),
        collections: [COLLECTIONS[0], { name: "orders", kind: "object", records: 3 }, COLLECTIONS[2]],
      },
    });
    const { collections: _one, ...v1 } = saved.body as Record<string, unknown>;
    const { collections: _two, ...v2 } = second.body as Record<string, unknown>;
    const firstPage = await answer(await call("GET", "/api/datasets/history/versions?limit=1", { key: tenant.key }));
    expect(firstPage).toEqual({
      status: 200,
      body: { name: "history", items: [v2], next_cursor: expect.any(String) },
    });
    const cursor = (firstPage.body as { next_cursor: string }).next_cursor;
    expect(
      await answer(await call("GET", `/api/datasets/history/versions?limit=1&cursor=${cursor}`, { key: tenant.key })),
    ).toEqual({ status: 200, body: { name: "history", items: [v1], next_cursor: null } });
    // Going back to version 1's content is a change like any other: version 3, the same hash as version 1.
    expect(await answer(await post("history", RETAIL))).toMatchObject({
      status: 201,
      body: { version: 3, content_hash: sha256(RETAIL_TEXT) },
    });
  });

  it("lists the tenant's datasets by name, each with its latest version", async () => {
    const other = await newTenant();
    await post("zeta", { a: [1] }, "", other.key);
    const alpha = await answer(await post("alpha", { a: [1, 2] }, "", other.key));
    await post("zeta", { a: [1, 2, 3] }, "", other.key);
    const zeta = await answer(await call("GET", "/api/datasets/zeta/versions/2", { key: other.key }));
    const zeta1 = await answer(await call("GET", "/api/datasets/zeta/versions/1", { key: other.key }));
    const { collections: _a, ...alphaLatest } = alpha.body as Record<string, unknown>;
    const { collections: _z, ...zetaLatest } = zeta.body as Record<string, unknown>;
    expect(await answer(await call("GET", "/api/datasets", { key: other.key }))).toEqual({
      status: 200,
      body: {
        items: [
          { name: "alpha", latest: alphaLatest, created_at: alphaLatest.created_at },
          { name: "zeta", latest: zetaLatest, created_at: (zeta1.body as { created_at: string }).created_at },
        ],
        next_cursor: null,
      },
    });
  });

  it("refuses a stale base_version (409) and stores nothing; the latest, or 0 for a new dataset, goes through", async () => {
    expect(await answer(await post("guarded", { a: {} }, "?base_version=0"))).toMatchObject({
      status: 201,
      body: { version: 1 },
    });
    expect(await answer(await post("guarded", { a: { x: 1 } }, "?base_version=0"))).toEqual({
      status: 409,
      body: {
        error: {
          code: "stale_dataset_version",
          message:
            'base_version 0 is not the latest version of dataset "guarded" (the latest is 1): read version 1 and send your change with base_version=1',
          details: { base_version: 0, latest_version: 1 },
        },
      },
    });
    expect(await answer(await post("guarded", { a: { x: 1 } }, "?base_version=1"))).toMatchObject({
      status: 201,
      body: { version: 2 },
    });
    // A retry of that save (same content, the base it had) answers the version it made.
    expect(await answer(await post("guarded", { a: { x: 1 } }, "?base_version=1"))).toMatchObject({
      status: 200,
      body: { version: 2 },
    });
    expect(await answer(await post("fresh", { a: {} }, "?base_version=3"))).toMatchObject({
      status: 409,
      body: { error: { code: "stale_dataset_version", details: { base_version: 3, latest_version: 0 } } },
    });
    expect((await call("GET", "/api/datasets/fresh/versions", { key: tenant.key })).status).toBe(404);
  });
});

describe("reading content", () => {
  it("streams the canonical text with the content hash as ETag, and answers 304 to a matching If-None-Match", async () => {
    await post("content", JSON.stringify(RETAIL, null, 4));
    const response = await call("GET", "/api/datasets/content/versions/1/content", { key: tenant.key });
    expect({
      status: response.status,
      etag: response.headers.get("etag"),
      type: response.headers.get("content-type"),
      cache: response.headers.get("cache-control"),
      text: await response.text(),
    }).toEqual({
      status: 200,
      etag: `"${sha256(RETAIL_TEXT)}"`,
      type: "application/json",
      cache: "private, max-age=31536000, immutable",
      text: RETAIL_TEXT,
    });
    const cached = await call("GET", "/api/datasets/content/versions/1/content", {
      key: tenant.key,
      headers: { "if-none-match": `W/"0000", "${sha256(RETAIL_TEXT)}"` },
    });
    expect({ status: cached.status, etag: cached.headers.get("etag"), text: await cached.text() }).toEqual({
      status: 304,
      etag: `"${sha256(RETAIL_TEXT)}"`,
      text: "",
    });
    const stale = await call("GET", "/api/datasets/content/versions/1/content", {
      key: tenant.key,
      headers: { "if-none-match": '"0000"' },
    });
    expect({ status: stale.status, text: await stale.text() }).toEqual({ status: 200, text: RETAIL_TEXT });
  });

  it("reads one record by JSON Pointer, percent-encoded and with ~0 and ~1 escapes", async () => {
    await post("records", RETAIL);
    const read = (pointer: string) =>
      call("GET", `/api/datasets/records/versions/1/record?pointer=${pointer}`, { key: tenant.key }).then(answer);
    expect(await read("/orders/%23W1")).toEqual({
      status: 200,
      body: { name: "records", version: 1, pointer: "/orders/#W1", value: RETAIL.orders["#W1"] },
    });
    expect(await read("/orders/%23W1/items/0/price")).toMatchObject({ status: 200, body: { value: 10.5 } });
    expect(await read("/a~1b/m~0n")).toMatchObject({ status: 200, body: { pointer: "/a~1b/m~0n", value: 1 } });
    expect(await read("")).toMatchObject({ status: 200, body: { pointer: "", value: RETAIL } });
    expect(await read("/orders/%23W9/status")).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'no record at /orders/#W9/status in dataset "records" version 1: /orders has no "#W9"',
          details: { pointer: "/orders/#W9/status", missing_at: "/orders" },
        },
      },
    });
    expect(await read("/customers")).toMatchObject({
      status: 404,
      body: {
        error: { message: 'no record at /customers in dataset "records" version 1: the top level has no "customers"' },
      },
    });
  });
});

describe("size", () => {
  it("accepts a 25 MB dataset and streams it back byte for byte", async () => {
    const record = { status: "delivered", note: "x".repeat(200) };
    const orders: Record<string, unknown> = {};
    const count = Math.ceil(25_000_000 / JSON.stringify(record).length);
    for (let i = 0; i < count; i++) orders[`#W${i}`] = record;
    const text = JSON.stringify({ orders });
    expect(text.length).toBeGreaterThan(25_000_000);
    const saved = await answer(await post("large", text));
    expect(saved).toEqual({
      status: 201,
      body: {
        name: "large",
        version: 1,
        content_hash: sha256(text),
        bytes: text.length,
        description: null,
        created_by: tenant.keyId,
        created_at: expect.any(String),
        collections: [{ name: "orders", kind: "object", records: count }],
      },
    });
    const content = await call("GET", "/api/datasets/large/versions/1/content", { key: tenant.key });
    const back = await content.text();
    expect({ length: back.length, same: back === text }).toEqual({ length: text.length, same: true });
  });
});
