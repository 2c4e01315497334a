/** Model connections through the real app in workerd: create, replace, read, list, delete, test, and modelClientFor. */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { modelClientFor } from "../../../src/worker/connections/model-clients.js";
import { modelServer, uniqueModel } from "../../support/model-server/in-tests.js";
import { type TestTenant, answer, call, db, newTenant } from "../helpers.js";

const server = modelServer();
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await newTenant();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function view(name: string, fields: Record<string, unknown>, created_by = tenant.keyId) {
  return {
    name,
    api_version: null,
    api_key_set: true,
    headers: [],
    timeout_ms: 60000,
    max_retries: 2,
    max_concurrency: 8,
    structured_output: true,
    created_by,
    created_at: expect.stringMatching(ISO),
    updated_at: expect.stringMatching(ISO),
    ...fields,
  };
}

describe("PUT and GET /api/connections/:name", () => {
  it("creates a connection with defaults (201), answers it without the key, and replaces it (200)", async () => {
    const created = await call("PUT", "/api/connections/agent-model", {
      key: tenant.key,
      body: { base_url: "https://api.openai.com/v1", model: "gpt-4o-mini", api_key: "sk-live-1" },
    });
    expect([created.status, created.headers.get("location")]).toEqual([201, "/api/connections/agent-model"]);
    const createdBody = (await created.json()) as { created_at: string; updated_at: string };
    expect(createdBody).toEqual(view("agent-model", { base_url: "https://api.openai.com/v1", model: "gpt-4o-mini" }));
    expect(createdBody.updated_at).toBe(createdBody.created_at);

    const replaced = await call("PUT", "/api/connections/agent-model", {
      key: tenant.key,
      body: {
        base_url: "https://example-resource.openai.azure.com",
        model: "my-deployment",
        api_version: "2024-10-21",
        headers: { "x-team": "finance", "OpenAI-Organization": "org-1" },
        timeout_ms: 20000,
        max_retries: 0,
        max_concurrency: 16,
        structured_output: false,
      },
    });
    const replacedView = view("agent-model", {
      base_url: "https://example-resource.openai.azure.com",
      model: "my-deployment",
      api_version: "2024-10-21",
      headers: ["x-team", "OpenAI-Organization"],
      timeout_ms: 20000,
      max_retries: 0,
      max_concurrency: 16,
      structured_output: false,
    });
    const replacedAnswer = (await answer(replaced)) as {
      status: number;
      body: { created_at: string; updated_at: string };
    };
    expect(replacedAnswer).toEqual({ status: 200, body: replacedView });
    expect([replacedAnswer.body.created_at, replacedAnswer.body.updated_at >= createdBody.updated_at]).toEqual([
      createdBody.created_at,
      true,
    ]);
    expect(await answer(await call("GET", "/api/connections/agent-model", { key: tenant.key }))).toEqual({
      status: 200,
      body: replacedView,
    });
  });

  it("keeps the stored key and headers when a replace leaves them out, and replaces them when given", async () => {
    const model = uniqueModel("kept");
    await server.script(model, { api_key: "sk-kept-1", default: [{ content: "ok" }] });
    const base = { base_url: server.openaiBaseUrl, model };
    await call("PUT", "/api/connections/kept", {
      key: tenant.key,
      body: { ...base, api_key: "sk-kept-1", headers: { "x-trace": "t1" } },
    });
    await call("PUT", "/api/connections/kept", { key: tenant.key, body: { ...base, timeout_ms: 5000 } });
    expect(await answer(await call("POST", "/api/connections/kept/test", { key: tenant.key }))).toEqual({
      status: 200,
      body: { ok: true, connection: "kept", model, latency_ms: expect.any(Number) },
    });
    expect((await server.log(model)).map((r) => r.headers)).toEqual([
      { authorization: "Bearer sk-kept-1", "x-trace": "t1" },
    ]);

    await call("PUT", "/api/connections/kept", { key: tenant.key, body: { ...base, headers: {} } });
    await call("POST", "/api/connections/kept/test", { key: tenant.key });
    expect((await server.log(model)).map((r) => r.headers)[1]).toEqual({ authorization: "Bearer sk-kept-1" });
  });

  it("lists the tenant's connections by name, paged", async () => {
    const own = await newTenant();
    for (const name of ["c-b", "c-a", "c-c"]) {
      await call("PUT", `/api/connections/${name}`, {
        key: own.key,
        body: { base_url: "http://127.0.0.1:1/v1", model: "m", api_key: "k" },
      });
    }
    const first = (await answer(await call("GET", "/api/connections?limit=2", { key: own.key }))) as {
      status: number;
      body: { items: Array<{ name: string }>; next_cursor: string | null };
    };
    expect([first.status, first.body.items.map((i) => i.name), typeof first.body.next_cursor]).toEqual([
      200,
      ["c-a", "c-b"],
      "string",
    ]);
    const second = (await answer(
      await call("GET", `/api/connections?limit=2&cursor=${first.body.next_cursor}`, { key: own.key }),
    )) as typeof first;
    expect([second.body.items.map((i) => i.name), second.body.next_cursor]).toEqual([["c-c"], null]);
    expect(second.body.items[0]).toEqual(view("c-c", { base_url: "http://127.0.0.1:1/v1", model: "m" }, own.keyId));
  });

  it("deletes a connection", async () => {
    await call("PUT", "/api/connections/doomed", {
      key: tenant.key,
      body: { base_url: "http://127.0.0.1:1/v1", model: "m", api_key: "k" },
    });
    expect(await answer(await call("DELETE", "/api/connections/doomed", { key: tenant.key }))).toEqual({
      status: 200,
      body: { name: "doomed", deleted: true },
    });
    expect(await answer(await call("GET", "/api/connections/doomed", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "connection not found" } },
    });
  });
});

describe("POST /api/connections/:name/test", () => {
  const put = (name: string, body: Record<string, unknown>) =>
    call("PUT", `/api/connections/${name}`, { key: tenant.key, body: { api_key: "sk-test-key", ...body } });
  const test = async (name: string) => answer(await call("POST", `/api/connections/${name}/test`, { key: tenant.key }));

  it("makes one cheap call and says ok with the latency", async () => {
    const model = uniqueModel("test-ok");
    await server.script(model, { api_key: "sk-test-key", default: [{ content: "ok" }] });
    await put("test-ok", { base_url: server.openaiBaseUrl, model });
    expect(await test("test-ok")).toEqual({
      status: 200,
      body: { ok: true, connection: "test-ok", model, latency_ms: expect.any(Number) },
    });
    const log = await server.log(model);
    expect(log.map((r) => [r.messages, r.max_tokens, r.tools])).toEqual([
      [[{ role: "user", content: "Reply with the single word: ok" }], null, null],
    ]);
  });

  it("says the endpoint refused the key", async () => {
    const model = uniqueModel("test-401");
    await server.script(model, { api_key: "sk-another-key", default: [{ content: "ok" }] });
    await put("test-401", { base_url: server.openaiBaseUrl, model });
    expect(await test("test-401")).toEqual({
      status: 200,
      body: {
        ok: false,
        connection: "test-401",
        model,
        kind: "unauthorized",
        status: 401,
        message:
          'connection "test-401": the endpoint refused the API key (401): Incorrect API key provided: sk-****-key.',
      },
    });
  });

  it("says the model is unknown to the endpoint", async () => {
    const model = uniqueModel("test-404");
    await put("test-404", { base_url: server.openaiBaseUrl, model });
    expect(await test("test-404")).toEqual({
      status: 200,
      body: {
        ok: false,
        connection: "test-404",
        model,
        kind: "unknown_model",
        status: 404,
        message: `connection "test-404": model "${model}" is unknown to the endpoint (404): The model \`${model}\` does not exist or you do not have access to it.`,
      },
    });
  });

  it("says it could not reach a closed port, without retrying", async () => {
    await put("test-closed", { base_url: "http://127.0.0.1:9/v1", model: "m", max_retries: 5 });
    expect(await test("test-closed")).toEqual({
      status: 200,
      body: {
        ok: false,
        connection: "test-closed",
        model: "m",
        kind: "unreachable",
        status: null,
        message:
          'connection "test-closed": could not reach http://127.0.0.1:9/v1: the connection to 127.0.0.1:9 was refused (nothing accepts connections at that address and port)',
      },
    });
  });
});

describe("modelClientFor", () => {
  it("gives a client for the stored connection, and says why not in words", async () => {
    const model = uniqueModel("service");
    await server.script(model, { api_key: "sk-service", default: [{ content: "hello from the service" }] });
    await call("PUT", "/api/connections/service", {
      key: tenant.key,
      body: {
        base_url: server.openaiBaseUrl,
        model,
        api_key: "sk-service",
        max_concurrency: 3,
        structured_output: false,
      },
    });
    const found = await modelClientFor(env, db(), tenant.id, "service");
    if (!found.ok) throw new Error(found.message);
    expect(found.connection).toEqual({ name: "service", model, max_concurrency: 3, structured_output: false });
    const result = await found.client.chat({ messages: [{ role: "user", content: "hi" }] });
    expect(result.ok && result.answer.content).toBe("hello from the service");

    expect(await modelClientFor(env, db(), tenant.id, "nope")).toEqual({
      ok: false,
      message: 'there is no model connection "nope": create it with PUT /api/connections/nope',
    });
    expect(await modelClientFor({ ...env, TOOLPROOF_SECRET: undefined }, db(), tenant.id, "service")).toEqual({
      ok: false,
      message: expect.stringMatching(
        /^connection "service" cannot be used: the deployment secret TOOLPROOF_SECRET is not configured: set the deployment secret/,
      ),
    });
    expect(
      await modelClientFor(
        { ...env, TOOLPROOF_SECRET: "b3RoZXItZGVwbG95bWVudC1zZWNyZXQtMzItYnl0ZXM" },
        db(),
        tenant.id,
        "service",
      ),
    ).toEqual({
      ok: false,
      message:
        'the stored API key of connection "service" does not open with the current TOOLPROOF_SECRET (the secret was changed, or the row was copied from elsewhere): PUT the connection again with its api_key',
    });
  });
});
