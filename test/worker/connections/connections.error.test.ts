/** Every bad input to the connection routes gets an answer naming the field; a missing deployment secret says how to set it. */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/worker/app.js";
import type { Env } from "../../../src/worker/platform/env.js";
import { type TestTenant, answer, call, invalidAnswer, newTenant } from "../helpers.js";

let tenant: TestTenant;
const valid = { base_url: "https://api.openai.com/v1", model: "gpt-4o-mini", api_key: "sk-1" };

beforeAll(async () => {
  tenant = await newTenant();
  await call("PUT", "/api/connections/stored", { key: tenant.key, body: valid });
});

const NOT_A_HEADER_VALUE = "cannot contain CR, LF or NUL: it is sent as an HTTP header value, which cannot hold them";

const put = async (name: string, body: unknown) =>
  answer(await call("PUT", `/api/connections/${name}`, { key: tenant.key, body }));

/** The app under another deployment secret (or none), as after `wrangler secret put` changed it. */
async function withSecret(
  secret: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { authorization: `Bearer ${tenant.key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const request = new Request(`http://toolproof.test${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const testEnv: Env = { ...env, TOOLPROOF_SECRET: secret };
  const response = await createApp().fetch(request, testEnv, ctx);
  await waitOnExecutionContext(ctx);
  return answer(response);
}

const HOW =
  "set the deployment secret TOOLPROOF_SECRET (32 random bytes as base64url): `wrangler secret put TOOLPROOF_SECRET` for a deployed Worker (for example with the output of `node -e \"console.log(require('crypto').randomBytes(32).toString('base64url'))\"`); `npm start` makes one in its state folder";

describe("PUT /api/connections/:name", () => {
  it("names every malformed field at once, with a hint for a misspelt one", async () => {
    expect(
      await put("c1", {
        base_url: 7,
        model: "",
        apikey: "sk",
        timeout_ms: 10,
        max_retries: 1.5,
        max_concurrency: 0,
        structured_output: "yes",
        api_version: "2024 10 21",
        headers: { "x-a": 1 },
      }),
    ).toEqual(
      invalidAnswer(
        { path: "/base_url", message: "expected string, got number" },
        { path: "/model", message: "expected the model name (or the Azure deployment)" },
        { path: "/api_version", message: "expected an Azure API version such as 2024-10-21" },
        { path: "/headers/x-a", message: "expected string, got number" },
        { path: "/timeout_ms", message: "expected a whole number from 1000 to 600000" },
        { path: "/max_retries", message: "expected a whole number from 0 to 10" },
        { path: "/max_concurrency", message: "expected a whole number from 1 to 64" },
        { path: "/structured_output", message: "expected boolean, got string" },
        { path: "/apikey", message: 'unknown field "apikey"; did you mean "api_key"?' },
      ),
    );
  });

  it("requires base_url and model, and api_key when creating", async () => {
    expect(await put("c2", {})).toEqual(
      invalidAnswer({ path: "/base_url", message: "required" }, { path: "/model", message: "required" }),
    );
    expect(await put("c2", { base_url: "https://x.test/v1", model: "m" })).toEqual(
      invalidAnswer({
        path: "/api_key",
        message: "required when creating a connection (on a replace, leave it out to keep the stored key)",
      }),
    );
  });

  it("accepts only a plain http(s) base_url, with no secret in it", async () => {
    const cases = [
      ["not a url", "expected an http or https URL, such as https://api.openai.com/v1"],
      ["ftp://files.test/v1", "expected an http or https URL, got the scheme ftp"],
      [
        "https://user:sk-secret@api.test/v1",
        "must not carry credentials (user:password@): put the key in api_key or a header, which are stored encrypted",
      ],
      [
        "https://api.test/v1?key=sk",
        "must not carry a query string or fragment (the client appends paths to it); put parameters in headers",
      ],
    ] as const;
    for (const [base_url, message] of cases)
      expect(await put("c3", { ...valid, base_url })).toEqual(invalidAnswer({ path: "/base_url", message }));
  });

  it("names each header that cannot be sent", async () => {
    expect(
      await put("c4", {
        ...valid,
        headers: { "bad name": "v", "Content-Type": "text/plain", "x-ok": "a\r\nb", "X-Dup": "1", "x-dup": "2" },
      }),
    ).toEqual(
      invalidAnswer(
        { path: "/headers/bad name", message: "not a valid header name (letters, digits and !#$%&'*+.^_`|~-)" },
        { path: "/headers/Content-Type", message: "content-type is set by the HTTP client and cannot be configured" },
        { path: "/headers/x-ok", message: NOT_A_HEADER_VALUE },
        { path: "/headers/x-dup", message: "the same header is given twice (header names ignore case)" },
      ),
    );
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x-h${i}`, "v"]));
    expect(await put("c4", { ...valid, headers: many })).toEqual(
      invalidAnswer({ path: "/headers", message: "expected at most 32 headers" }),
    );
  });

  it("refuses an api_key holding CR, LF or NUL, which no header can carry, and stores nothing", async () => {
    // The key goes out in a header: stored, it failed every later call as "Invalid header value".
    for (const api_key of ["a\r\nX-Injected: 1", "sk\n", "sk\0x"])
      expect(await put("c6", { ...valid, api_key })).toEqual(
        invalidAnswer({ path: "/api_key", message: NOT_A_HEADER_VALUE }),
      );
    const missing = { status: 404, body: { error: { code: "not_found", message: "connection not found" } } };
    expect(await answer(await call("GET", "/api/connections/c6", { key: tenant.key }))).toEqual(missing);

    // A replace that fails leaves the stored connection as it was.
    expect((await put("c7", valid)).status).toBe(201);
    const before = await answer(await call("GET", "/api/connections/c7", { key: tenant.key }));
    expect(await put("c7", { ...valid, model: "other", api_key: "sk\r\nX-Injected: 1" })).toEqual(
      invalidAnswer({ path: "/api_key", message: NOT_A_HEADER_VALUE }),
    );
    expect(await answer(await call("GET", "/api/connections/c7", { key: tenant.key }))).toEqual(before);
  });

  it("refuses a name that is not a name, and bodies that are not JSON objects", async () => {
    expect(await put("-bad", valid)).toEqual(
      invalidAnswer({
        path: "/params/name",
        message: "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit",
      }),
    );
    expect(await put("c5", [valid])).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: "body: expected object, got array",
          details: { problems: [{ path: "", message: "expected object, got array" }] },
        },
      },
    });
  });
});

describe("without the deployment secret", () => {
  it("answers 503 on PUT and test, saying how to set it; reading and deleting still work", async () => {
    const unavailable = {
      status: 503,
      body: {
        error: {
          code: "secret_not_configured",
          message: `model connections need the deployment secret: the deployment secret TOOLPROOF_SECRET is not configured: ${HOW}`,
        },
      },
    };
    expect(await withSecret(undefined, "PUT", "/api/connections/no-secret", valid)).toEqual(unavailable);
    expect(await withSecret(undefined, "POST", "/api/connections/stored/test")).toEqual(unavailable);
    expect((await withSecret(undefined, "GET", "/api/connections/stored")).status).toBe(200);
    expect((await withSecret("too-short", "PUT", "/api/connections/no-secret", valid)).body).toEqual({
      error: {
        code: "secret_not_configured",
        message: `model connections need the deployment secret: the deployment secret TOOLPROOF_SECRET is not at least 32 bytes of base64url: ${HOW}`,
      },
    });
  });

  it("answers 409 when the stored key does not open under a changed secret, until the key is sent again", async () => {
    const changed = Buffer.alloc(32, 3).toString("base64url");
    const unreadable =
      'the stored API key of connection "stored" does not open with the current TOOLPROOF_SECRET (the secret was changed, or the row was copied from elsewhere): PUT the connection again with its api_key';
    expect(await withSecret(changed, "POST", "/api/connections/stored/test")).toEqual({
      status: 409,
      body: { error: { code: "connection_key_unreadable", message: unreadable } },
    });
    expect(
      await withSecret(changed, "PUT", "/api/connections/stored", { base_url: valid.base_url, model: "other" }),
    ).toEqual({
      status: 409,
      body: {
        error: {
          code: "connection_key_unreadable",
          message: `${unreadable} (or send both api_key and headers to replace them)`,
        },
      },
    });
    expect((await withSecret(changed, "PUT", "/api/connections/stored", { ...valid, headers: {} })).status).toBe(200);
    // Sealed again under the changed secret: now the usual one cannot open it.
    expect((await answer(await call("POST", "/api/connections/stored/test", { key: tenant.key }))).status).toBe(409);
    await call("PUT", "/api/connections/stored", { key: tenant.key, body: valid });
  });
});

describe("missing connections and odd requests", () => {
  it("answers 404 for a connection that does not exist, on every route", async () => {
    const missing = { status: 404, body: { error: { code: "not_found", message: "connection not found" } } };
    expect(await answer(await call("GET", "/api/connections/ghost", { key: tenant.key }))).toEqual(missing);
    expect(await answer(await call("DELETE", "/api/connections/ghost", { key: tenant.key }))).toEqual(missing);
    expect(await answer(await call("POST", "/api/connections/ghost/test", { key: tenant.key }))).toEqual(missing);
  });

  it("takes no fields on test, and checks list paging", async () => {
    expect(
      await answer(await call("POST", "/api/connections/stored/test", { key: tenant.key, body: { model: "x" } })),
    ).toEqual(invalidAnswer({ path: "/model", message: 'unknown field "model"' }));
    expect(await answer(await call("GET", "/api/connections?limit=0", { key: tenant.key }))).toEqual(
      invalidAnswer({ path: "/query/limit", message: "expected a whole number from 1 to 200" }),
    );
    expect(await answer(await call("GET", "/api/connections?cursor=nonsense", { key: tenant.key }))).toEqual(
      invalidAnswer({ path: "/query/cursor", message: "not a cursor this list handed out" }),
    );
  });
});
