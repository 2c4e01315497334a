/**
 * Bodies are UTF-8 (RFC 8259 requires it of JSON between systems): bytes that are not, or a
 * Content-Type that names another charset, are refused before anything reads them, never decoded
 * into other text. And a body is read as JSON or YAML only when the Content-Type's media type is
 * one of those types, whole: it ends where the parameters (";") or the header end, so
 * application/json-foo or application/yaml.v2 is an unknown type (415), never JSON or YAML by its
 * first letters.
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
        message: `${JSON.stringify(contentType)} names the charset ${JSON.stringify(charset)}; request bodies are read as UTF-8 only (send the text as UTF-8, or leave the charset out)`,
      },
    },
  };
}

/** The 415 answer for a Content-Type that names the charset more than once, with different values. */
function charsetTwice(contentType: string, first: string, second: string): { status: number; body: unknown } {
  return {
    status: 415,
    body: {
      error: {
        code: "unsupported_media_type",
        message: `${JSON.stringify(contentType)} names the charset twice, as ${JSON.stringify(first)} and ${JSON.stringify(second)}; request bodies are read as UTF-8 only (name the charset once, as UTF-8, or leave it out)`,
      },
    },
  };
}

const ISO_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const JSON_POLICY = '{"tools":{"get_invoice":"never_require"}}';
const YAML_POLICY = "tools:\n  get_invoice: never_require\n";
let policies = 0;

/** PUT of a new policy with this Content-Type (the body JSON or YAML to match), and the 201 it should answer. */
async function putPolicy(
  contentType: string,
  body: string,
): Promise<{ got: { status: number; body: unknown }; created: { status: number; body: unknown } }> {
  const name = `content-type-${++policies}`;
  const response = await call("PUT", `/api/policies/${name}`, {
    key: tenant.key,
    body,
    headers: { "content-type": contentType },
  });
  const created = { status: 201, body: { name, version: 1, created_by: tenant.keyId, created_at: ISO_TIME } };
  return { got: await answer(response), created };
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
    ["application/json ;\tCHARSET=latin1", "latin1"],
    ['application/json; x="a;b"; charset=latin1', "latin1"],
    ['application/json; x="a\\\\"; charset=latin1', "latin1"],
    ['application/json; charset="lat\\in1"', "latin1"],
    ["application/json; charset=latin1; charset=LATIN1", "latin1"],
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

  it.each([
    'application/json; x="a;charset=latin1"',
    'application/json; x="a\\";charset=latin1"',
    'application/json; x="a;charset=latin1";charset=utf-8',
    'application/json; charset="utf\\-8"',
    "application/json; charset=utf-8; charset=UTF-8",
  ])(
    "reads %s as UTF-8: a quoted parameter hides no charset, and the same charset twice is one",
    async (contentType) => {
      const json = await putPolicy(contentType, JSON_POLICY);
      expect(json.got).toEqual(json.created);
      const yaml = await putPolicy(contentType.replace("application/json", "application/yaml"), YAML_POLICY);
      expect(yaml.got).toEqual(yaml.created);
    },
  );

  it.each([
    ["application/json; charset=utf-8; charset=latin1", "utf-8", "latin1"],
    ["application/json; charset=latin1; charset=utf-8", "latin1", "utf-8"],
    ['application/json; Charset="utf-8" ; charset=utf8', "utf-8", "utf8"],
  ])(
    "refuses %s, which names the charset twice, with 415 in JSON and YAML bodies alike",
    async (contentType, first, second) => {
      const json = await putPolicy(contentType, JSON_POLICY);
      expect(json.got).toEqual(charsetTwice(contentType, first, second));
      const yamlType = contentType.replace("application/json", "application/yaml");
      const yaml = await putPolicy(yamlType, YAML_POLICY);
      expect(yaml.got).toEqual(charsetTwice(yamlType, first, second));
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

  it("refuses a Content-Type that names the charset twice with 415, and calls nothing", async () => {
    const attempt = await echoAttempt();
    const contentType = "application/json; charset=utf-8; charset=latin1";
    const response = await send(`/api/attempts/${attempt.id}/mcp`, `${callText}"}}}`, {
      authorization: `Bearer ${attempt.token}`,
      "content-type": contentType,
      accept,
    });
    const twice = charsetTwice(contentType, "utf-8", "latin1").body as { error: { message: string } };
    expect(await answer(response)).toEqual({
      status: 415,
      body: {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: `Unsupported Media Type: ${twice.error.message}` },
      },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
  });
});

function unsupported(accepted: string, contentType: string): { status: number; body: unknown } {
  return {
    status: 415,
    body: {
      error: {
        code: "unsupported_media_type",
        message: `expected Content-Type: ${accepted}, got ${JSON.stringify(contentType)}`,
      },
    },
  };
}

describe("JSON media types", () => {
  it.each([
    "application/json",
    "application/vnd.foo+json",
    "application/json-patch+json",
    "APPLICATION/JSON ; charset=utf-8",
    "application/json;charset=utf-8",
    "Application/Problem+JSON",
  ])("reads %s as JSON", async (contentType) => {
    const { got, created } = await putPolicy(contentType, JSON_POLICY);
    expect(got).toEqual(created);
  });

  it.each([
    "application/json-foo",
    "application/json.v2",
    "application/json-foo; charset=utf-8",
    "application/vnd.foo+json-seq",
    'text/plain; x="a b"',
  ])("refuses %s with 415, as any other unknown type", async (contentType) => {
    const { got } = await putPolicy(contentType, JSON_POLICY);
    expect(got).toEqual(unsupported("application/json or application/yaml", contentType));
    const tool = await call("POST", "/api/tools", {
      key: tenant.key,
      body: "{}",
      headers: { "content-type": contentType },
    });
    expect(await answer(tool)).toEqual(unsupported("application/json", contentType));
  });
});

describe("YAML media types", () => {
  it.each([
    "application/yaml",
    "text/yaml",
    "application/x-yaml",
    "text/x-yaml",
    "Application/YAML ; charset=UTF-8",
    "text/yaml;charset=utf-8",
  ])("reads %s as YAML", async (contentType) => {
    const { got, created } = await putPolicy(contentType, YAML_POLICY);
    expect(got).toEqual(created);
  });

  it.each(["application/yaml-foo", "text/yaml.v2", "application/x-yaml-foo; charset=utf-8"])(
    "refuses %s with 415, never reading it as YAML",
    async (contentType) => {
      const { got } = await putPolicy(contentType, YAML_POLICY);
      expect(got).toEqual(unsupported("application/json or application/yaml", contentType));
    },
  );
});
