/**
 * Connections hold other people's API keys: only Admin keys reach them, only within their tenant,
 * the key is never answered back, and the database alone reveals neither it nor the header values.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { modelClientFor } from "../../../src/worker/connections/model-clients.js";
import { modelServer, uniqueModel } from "../../support/model-server/in-tests.js";
import { type TestTenant, answer, call, db, keyWith, newTenant } from "../helpers.js";

const API_KEY = "sk-proj-VERY-SECRET-0123456789";
const HEADER_VALUE = "hdr-SECRET-VALUE-987";
const server = modelServer();
let owner: TestTenant;
let other: TestTenant;
let model: string;

beforeAll(async () => {
  owner = await newTenant();
  other = await newTenant();
  model = uniqueModel("security");
  await server.script(model, { api_key: API_KEY, default: [{ content: "ok" }] });
  const created = await call("PUT", "/api/connections/prod", {
    key: owner.key,
    body: { base_url: server.openaiBaseUrl, model, api_key: API_KEY, headers: { "x-gateway-token": HEADER_VALUE } },
  });
  expect(created.status).toBe(201);
});

const ownerRoutes = () => [
  { method: "GET", path: "/api/connections" },
  { method: "GET", path: "/api/connections/prod" },
  { method: "PUT", path: "/api/connections/prod", body: { base_url: server.openaiBaseUrl, model } },
  { method: "POST", path: "/api/connections/prod/test" },
  { method: "DELETE", path: "/api/connections/not-this-one" },
];

describe("permissions", () => {
  it("refuses keys without AIManager:Admin on every route, and requests without a key", async () => {
    const toolsKey = await keyWith(owner.id, ["AIManager:ManageTools", "AIManager:RunEvals"]);
    for (const route of ownerRoutes()) {
      const options = route.body === undefined ? {} : { body: route.body };
      expect(await answer(await call(route.method, route.path, { key: toolsKey, ...options }))).toEqual({
        status: 403,
        body: {
          error: {
            code: "forbidden",
            message: "this API key lacks the permission AIManager:Admin",
            details: { required_permission: "AIManager:Admin" },
          },
        },
      });
      expect((await answer(await call(route.method, route.path, options))).status).toBe(401);
    }
  });
});

describe("tenant isolation", () => {
  it("answers another tenant's connection as missing, and its own PUT of the same name touches only its own", async () => {
    const missing = { status: 404, body: { error: { code: "not_found", message: "connection not found" } } };
    expect(await answer(await call("GET", "/api/connections/prod", { key: other.key }))).toEqual(missing);
    expect(await answer(await call("POST", "/api/connections/prod/test", { key: other.key }))).toEqual(missing);
    expect(await answer(await call("DELETE", "/api/connections/prod", { key: other.key }))).toEqual(missing);
    expect(await answer(await call("GET", "/api/connections", { key: other.key }))).toEqual({
      status: 200,
      body: { items: [], next_cursor: null },
    });
    expect(await modelClientFor(env, db(), other.id, "prod")).toEqual({
      ok: false,
      message: 'there is no model connection "prod": create it with PUT /api/connections/prod',
    });

    // A replace without api_key by the other tenant is a create there, so it needs its own key.
    expect(
      (
        await answer(
          await call("PUT", "/api/connections/prod", {
            key: other.key,
            body: { base_url: server.openaiBaseUrl, model },
          }),
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await call("PUT", "/api/connections/prod", {
          key: other.key,
          body: { base_url: "http://127.0.0.1:9/v1", model: "theirs", api_key: "sk-theirs" },
        })
      ).status,
    ).toBe(201);
    expect(await answer(await call("POST", "/api/connections/prod/test", { key: owner.key }))).toEqual({
      status: 200,
      body: { ok: true, connection: "prod", model, latency_ms: expect.any(Number) },
    });
  });
});

describe("the key is never shown", () => {
  it("appears in no answer of any route", async () => {
    const texts: string[] = [];
    for (const route of ownerRoutes()) {
      const response = await call(route.method, route.path, {
        key: owner.key,
        ...(route.body === undefined ? {} : { body: route.body }),
      });
      texts.push(await response.text());
    }
    const failing = await call("PUT", "/api/connections/prod-bad", {
      key: owner.key,
      body: { base_url: "ftp://x", model, api_key: API_KEY, headers: { "x-gateway-token": HEADER_VALUE } },
    });
    texts.push(await failing.text());
    for (const text of texts)
      expect([text.includes(API_KEY), text.includes(HEADER_VALUE), text.includes("VERY-SECRET")]).toEqual([
        false,
        false,
        false,
      ]);
    // The replace above kept the key and the header: the endpoint still got both.
    const last = (await server.log(model)).at(-1);
    expect([last?.headers.authorization, last?.headers["x-gateway-token"]]).toEqual([
      `Bearer ${API_KEY}`,
      HEADER_VALUE,
    ]);
  });

  it("is blanked from an endpoint's error in every common spelling: URL-encoded, base64 (both alphabets, with and without padding), other case", async () => {
    // An endpoint (a proxy, a local server) that echoes what it was sent, encoded.
    const echoModel = uniqueModel("echo");
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    const echoed = [
      encodeURIComponent(API_KEY),
      b64(API_KEY),
      b64(API_KEY).replace(/=+$/, ""),
      Buffer.from(API_KEY).toString("base64url"),
      b64(`Bearer ${API_KEY}`),
      API_KEY.toUpperCase(),
      API_KEY.toLowerCase(),
      encodeURIComponent(HEADER_VALUE),
      b64(HEADER_VALUE),
      HEADER_VALUE.toUpperCase(),
    ];
    await server.script(echoModel, {
      faults: [{ status: 401, times: 1, message: `you sent ${echoed.join(" ")}` }],
      default: [{ content: "ok" }],
    });
    // A tenant of its own: the owner's rows are counted below.
    const echoTenant = await newTenant();
    const put = await call("PUT", "/api/connections/echo", {
      key: echoTenant.key,
      body: {
        base_url: server.openaiBaseUrl,
        model: echoModel,
        api_key: API_KEY,
        headers: { "x-gateway-token": HEADER_VALUE },
        max_retries: 0,
      },
    });
    expect(put.status).toBe(201);
    const tested = await answer(await call("POST", "/api/connections/echo/test", { key: echoTenant.key }));
    expect(tested).toEqual({
      status: 200,
      body: {
        ok: false,
        connection: "echo",
        model: echoModel,
        kind: "unauthorized",
        status: 401,
        // Of the base64 of "Bearer <key>", only the characters that also depend on "Bearer " and the end stay.
        message: `connection "echo": the endpoint refused the API key (401): you sent ${echoed.map((text) => (text === b64(`Bearer ${API_KEY}`) ? "QmVhcmVyIH[redacted]Q==" : "[redacted]")).join(" ")}`,
      },
    });
  });

  it("is not readable from a copy of the database: the raw row holds neither the key nor the header values", async () => {
    const rows = await env.DB.prepare("select * from connections where tenant_id = ?").bind(owner.id).all();
    expect(rows.results.length).toBe(1);
    const raw = JSON.stringify(rows.results);
    const sealed = String(rows.results[0]?.sealed);
    const decoded = Buffer.from(sealed.replace(/^v1\./, ""), "base64url").toString("latin1");
    expect([
      raw.includes(API_KEY),
      raw.includes(HEADER_VALUE),
      decoded.includes(API_KEY),
      decoded.includes(HEADER_VALUE),
      raw.includes("x-gateway-token"),
    ]).toEqual([false, false, false, false, true]);
  });

  it("a sealed value copied into another row does not open there", async () => {
    const { results } = await env.DB.prepare("select sealed from connections where tenant_id = ? and name = 'prod'")
      .bind(owner.id)
      .all();
    const sealed = String(results[0]?.sealed);
    // The other tenant's row of the same name, and another name of the owner's, given the owner's sealed secrets.
    await env.DB.prepare("update connections set sealed = ? where tenant_id = ? and name = 'prod'")
      .bind(sealed, other.id)
      .run();
    await call("PUT", "/api/connections/decoy", {
      key: owner.key,
      body: { base_url: server.openaiBaseUrl, model, api_key: "sk-decoy" },
    });
    await env.DB.prepare("update connections set sealed = ? where tenant_id = ? and name = 'decoy'")
      .bind(sealed, owner.id)
      .run();
    const unreadable = (name: string) =>
      `the stored API key of connection "${name}" does not open with the current TOOLPROOF_SECRET (the secret was changed, or the row was copied from elsewhere): PUT the connection again with its api_key`;
    expect(await modelClientFor(env, db(), other.id, "prod")).toEqual({ ok: false, message: unreadable("prod") });
    expect(await modelClientFor(env, db(), owner.id, "decoy")).toEqual({ ok: false, message: unreadable("decoy") });
    expect(await answer(await call("POST", "/api/connections/decoy/test", { key: owner.key }))).toEqual({
      status: 409,
      body: { error: { code: "connection_key_unreadable", message: unreadable("decoy") } },
    });
  });
});
