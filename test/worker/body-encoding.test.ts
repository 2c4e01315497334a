/**
 * Bodies are UTF-8 (RFC 8259 requires it of JSON between systems): bytes that are not, or a
 * Content-Type that names another charset, are refused before anything reads them, never decoded
 * into other text.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, newTenant, type TestTenant } from "./helpers.js";
import { createSimulation, mirrorTool, readAttempt, type CreatedAttempt } from "./simulation-helpers.js";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

/** `{"name":"caf\xe9"}`: "café" as Latin-1, which is not UTF-8. */
const LATIN1_BODY = new Uint8Array([
  ...new TextEncoder().encode('{"name":"caf'),
  0xe9,
  ...new TextEncoder().encode('"}'),
]);

function send(path: string, body: Uint8Array | string, headers: Record<string, string>): Promise<Response> {
  return exports.default.fetch(new Request(`http://toolproof.test${path}`, { method: "POST", headers, body }));
}

async function echoAttempt(): Promise<CreatedAttempt> {
  const [attempt] = (await createSimulation(tenant, { tools: [{ inline: mirrorTool }] })).attempts;
  if (!attempt) throw new Error("no attempt");
  return attempt;
}

const NOT_UTF8 = { error: { code: "invalid_encoding", message: "the request body is not valid UTF-8" } };

function otherCharset(contentType: string, charset: string): { status: number; body: unknown } {
  return {
    status: 415,
    body: {
      error: {
        code: "unsupported_media_type",
        message: `"${contentType}" names the charset "${charset}"; request bodies are read as UTF-8 only (send the text as UTF-8, or leave the charset out)`,
      },
    },
  };
}

describe("API bodies", () => {
  it("refuses bytes that are not UTF-8 with 400 invalid_encoding", async () => {
    const response = await send("/api/tools/import/platform", LATIN1_BODY, {
      authorization: `Bearer ${tenant.key}`,
      "content-type": "application/json",
    });
    expect(await answer(response)).toEqual({ status: 400, body: NOT_UTF8 });
  });

  it.each([
    ["application/json; charset=latin1", "latin1"],
    ["application/json; charset=ISO-8859-1", "ISO-8859-1"],
    ['application/json;charset="utf-16"', "utf-16"],
  ])("refuses %s with 415 naming the charset, in JSON and YAML bodies alike", async (contentType, charset) => {
    const json = await call("PUT", "/api/policies/charset", {
      key: tenant.key,
      body: '{"tools":{"get_invoice":"never_require"}}',
      headers: { "content-type": contentType },
    });
    expect(await answer(json)).toEqual(otherCharset(contentType, charset));
    const yamlType = contentType.replace("application/json", "application/yaml");
    const yaml = await call("PUT", "/api/policies/charset", {
      key: tenant.key,
      body: "tools:\n  get_invoice: never_require\n",
      headers: { "content-type": yamlType },
    });
    expect(await answer(yaml)).toEqual(otherCharset(yamlType, charset));
    expect((await call("GET", "/api/policies/charset", { key: tenant.key })).status).toBe(404);
  });

  it.each(["application/json; charset=utf-8", "application/json; charset=UTF-8", 'application/json; charset="utf-8"'])(
    "reads %s as any JSON body",
    async (contentType) => {
      const response = await call("PUT", "/api/policies/utf8-declared", {
        key: tenant.key,
        body: '{"tools":{"get_invoice":"never_require"}}',
        headers: { "content-type": contentType },
      });
      expect(response.status).toBe(201);
    },
  );

  it("refuses a dispatch whose Content-Type names another charset, and records nothing", async () => {
    const attempt = await echoAttempt();
    const contentType = "application/json; charset=windows-1252";
    const response = await call("POST", `/api/attempts/${attempt.id}/dispatch`, {
      key: attempt.token,
      body: '{"tool":"echo","arguments":{"a":1}}',
      headers: { "content-type": contentType },
    });
    expect(await answer(response)).toEqual(otherCharset(contentType, "windows-1252"));
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
  });
});

describe("MCP bodies", () => {
  const accept = "application/json, text/event-stream";
  const callText = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":"caf';

  it("refuses bytes that are not UTF-8 as a parse error, and calls nothing", async () => {
    const attempt = await echoAttempt();
    const body = new Uint8Array([...new TextEncoder().encode(callText), 0xe9, ...new TextEncoder().encode('"}}}')]);
    const response = await send(`/api/attempts/${attempt.id}/mcp`, body, {
      authorization: `Bearer ${attempt.token}`,
      "content-type": "application/json",
      accept,
    });
    expect(await answer(response)).toEqual({
      status: 400,
      body: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the body is not valid UTF-8" } },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
  });

  it("refuses a Content-Type that names another charset with 415, and calls nothing", async () => {
    const attempt = await echoAttempt();
    const response = await send(`/api/attempts/${attempt.id}/mcp`, `${callText}"}}}`, {
      authorization: `Bearer ${attempt.token}`,
      "content-type": "application/json; charset=latin1",
      accept,
    });
    expect(await answer(response)).toEqual({
      status: 415,
      body: {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32000,
          message:
            'Unsupported Media Type: "application/json; charset=latin1" names the charset "latin1"; request bodies are read as UTF-8 only (send the text as UTF-8, or leave the charset out)',
        },
      },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
  });
});
