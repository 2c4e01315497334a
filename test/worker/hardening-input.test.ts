/**
 * Input hygiene over HTTP (issue 9): bodies nested past the limit, YAML aliases that contain
 * themselves, numbers JSON cannot carry, lone surrogates in names, "__proto__" in schemas and
 * content types. Every one is a 4xx that names the field or the limit; none is a 500.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { contractHash } from "../../src/core/contract/index.js";
import { MAX_JSON_DEPTH, NOT_WELL_FORMED } from "../../src/core/json-input.js";
import type { JsonObject } from "../../src/core/json.js";
import { invoiceTool } from "../fixtures/invoice-tools.js";
import { call, newTenant, type TestTenant } from "./helpers.js";
import {
  createSimulation,
  dispatch,
  evidence,
  mirrorTool,
  readAttempt,
  type CreatedAttempt,
} from "./simulation-helpers.js";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

/** `{"deep": [[[...]]]}` as text: the body nests `levels` levels in all. */
function deepBody(levels: number): string {
  return `{"deep":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
}

const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (the limit for a request body)`;

/** The answer to a body nested past the limit: the first container past it, by its pointer. */
function tooDeepAnswer(): { status: number; body: unknown } {
  const path = `/deep${"/0".repeat(MAX_JSON_DEPTH - 1)}`;
  return {
    status: 400,
    body: {
      error: {
        code: "invalid_request",
        message: `${path}: ${TOO_DEEP}`,
        details: { problems: [{ path, message: TOO_DEEP }] },
      },
    },
  };
}

async function echoAttempt(): Promise<CreatedAttempt> {
  const [attempt] = (await createSimulation(tenant, { tools: [{ inline: mirrorTool }] })).attempts;
  if (!attempt) throw new Error("no attempt");
  return attempt;
}

function rawDispatch(attempt: CreatedAttempt, text: string): Promise<Response> {
  return call("POST", `/api/attempts/${attempt.id}/dispatch`, { key: attempt.token, body: text });
}

describe("bodies nested past the limit answer 400 naming it, on every route that reads one", () => {
  it.each([
    ["POST", "/api/tools", 2_000],
    ["POST", "/api/tools/testing", 2_000],
    ["POST", "/api/simulations", 2_000],
    ["POST", "/api/tools/import/platform", 2_000],
    ["POST", "/api/tools/import/mcp", 2_000],
    ["PUT", "/api/policies/deep", 5_000],
    ["POST", "/api/policies/deep/check", 5_000],
    ["PUT", "/api/suites/deep", 5_000],
  ])("%s %s (%i levels)", async (method, path, levels) => {
    expect(await answer(await call(method, path, { key: tenant.key, body: deepBody(levels) }))).toEqual(
      tooDeepAnswer(),
    );
  });

  it("POST /api/attempts/:id/complete (5,000 levels), and the attempt stays open", async () => {
    const attempt = await echoAttempt();
    expect(
      await answer(
        await call("POST", `/api/attempts/${attempt.id}/complete`, { key: attempt.token, body: deepBody(5_000) }),
      ),
    ).toEqual(tooDeepAnswer());
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "active", completion: null });
  });

  it("accepts a body at exactly the limit", async () => {
    const atLimit = `{"output":${"[".repeat(MAX_JSON_DEPTH - 1)}${"]".repeat(MAX_JSON_DEPTH - 1)}}`;
    const attempt = await echoAttempt();
    expect(
      (await call("POST", `/api/attempts/${attempt.id}/complete`, { key: attempt.token, body: atLimit })).status,
    ).toBe(200);
  });
});

function putYaml(path: string, body: string): Promise<Response> {
  return call("PUT", path, { key: tenant.key, body, headers: { "content-type": "application/yaml" } });
}

/** How a YAML body that parsed but cannot be used is answered. */
function unusableYaml(detail: string): { status: number; body: unknown } {
  return {
    status: 400,
    body: { error: { code: "malformed_yaml", message: `the request body is not usable: ${detail}` } },
  };
}

const ALIAS_LOOP = "/0: expected a JSON value; this value contains itself (a YAML alias inside its own anchor)";

describe("YAML suites", () => {
  it("refuses an alias inside its own anchor with 400, and nesting past the limit likewise", async () => {
    const yaml = { "content-type": "application/yaml" };
    expect(await answer(await putYaml("/api/suites/alias-loop", "&a [*a]"))).toEqual(unusableYaml(ALIAS_LOOP));
    const deep = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    expect(
      await answer(await call("PUT", "/api/suites/deep-yaml", { key: tenant.key, body: deep, headers: yaml })),
    ).toMatchObject({ status: 400, body: { error: { code: "malformed_yaml" } } });
  });
});

describe("YAML bodies keep whole numbers as written", () => {
  it("refuses a whole number past 2^53 in a YAML policy with 400 naming where it is, and stores nothing", async () => {
    const body = "schema_version: 1\ntools:\n  - name: refund\n    max_calls: 9007199254740993\n";
    expect(await answer(await putYaml("/api/policies/big-yaml-number", body))).toEqual(
      unusableYaml(
        "/tools/0/max_calls: the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992, so it would be kept as another number; send it as a string",
      ),
    );
    expect((await call("GET", "/api/policies/big-yaml-number", { key: tenant.key })).status).toBe(404);
  });
});

describe("YAML policies", () => {
  it("refuses an alias inside its own anchor (&a [*a]) with 400, not a stack overflow", async () => {
    expect(await answer(await putYaml("/api/policies/alias-loop", "&a [*a]"))).toEqual(unusableYaml(ALIAS_LOOP));
  });

  it("refuses YAML nested past the limit, and aliases that expand past the body limit", async () => {
    const flow = `tools: ${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    const deep = await answer(
      await call("PUT", "/api/policies/deep-yaml", {
        key: tenant.key,
        body: flow,
        headers: { "content-type": "application/yaml" },
      }),
    );
    expect(deep).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_yaml",
          message: `the request body is not usable: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (the limit for a JSON document)`,
        },
      },
    });
    const items = JSON.stringify(Array.from({ length: 1000 }, () => "x".repeat(48)));
    const bomb = `tools: {}\nx: &a ${items}\ny: [${Array(40).fill("*a").join(", ")}]\n`;
    const expanded = await answer(
      await call("PUT", "/api/policies/expands", {
        key: tenant.key,
        body: bomb,
        headers: { "content-type": "application/yaml" },
      }),
    );
    expect(expanded).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_yaml",
          message: `the request body is not usable: the document stands for ${JSON.stringify({ tools: {}, x: JSON.parse(items), y: Array(40).fill(JSON.parse(items)) }).length} bytes of JSON (YAML aliases repeat what they name); the limit is 131072 bytes`,
        },
      },
    });
  });

  it("names YAML among the accepted content types when the header is missing or wrong", async () => {
    const yaml = "tools:\n  get_invoice: never_require\n";
    expect(
      await answer(
        await call("PUT", "/api/policies/no-type", {
          key: tenant.key,
          body: yaml,
          headers: { "content-type": "text/plain" },
        }),
      ),
    ).toEqual({
      status: 415,
      body: {
        error: {
          code: "unsupported_media_type",
          message: 'expected Content-Type: application/json or application/yaml, got "text/plain"',
        },
      },
    });
    const asJson = await answer(
      await call("PUT", "/api/policies/no-type", {
        key: tenant.key,
        body: yaml,
        headers: { "content-type": "application/json" },
      }),
    );
    expect(asJson).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_json",
          message: expect.stringMatching(
            /^the request body is not valid JSON: [\s\S]* \(a body in another format needs its Content-Type: application\/yaml\)$/,
          ),
        },
      },
    });
  });
});

describe("dispatch arguments no call can use are the agent's tool input error, not a harness error", () => {
  it("answers 8,000 levels of arguments to an echoing mock with 422 tool_input_error; the attempt is not failed", async () => {
    const attempt = await echoAttempt();
    const args = `${"[".repeat(8_000)}${"]".repeat(8_000)}`;
    const response = await rawDispatch(attempt, `{"tool":"echo","arguments":{"a":${args}}}`);
    const path = `/a${"/0".repeat(MAX_JSON_DEPTH - 1)}`;
    const message = `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (the limit for the arguments)`;
    expect(await answer(response)).toEqual({
      status: 422,
      body: {
        error: {
          code: "tool_input_error",
          message: `the arguments cannot be used: ${path}: ${message}`,
          details: [{ path, message }],
        },
      },
    });
    // The same agent can go on: a good call answers, and the attempt is still active.
    expect(await answer(await dispatch(attempt, { tool: "echo", arguments: { ok: true } }))).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "active", harness_errors: 0 });
  });

  it("refuses 1e400 (Infinity to JSON.parse) instead of echoing it as null", async () => {
    const attempt = await echoAttempt();
    const message =
      "expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)";
    expect(await answer(await rawDispatch(attempt, '{"tool":"echo","arguments":{"n":1e400}}'))).toEqual({
      status: 422,
      body: {
        error: {
          code: "tool_input_error",
          message: `the arguments cannot be used: /n: ${message}`,
          details: [{ path: "/n", message }],
        },
      },
    });
    expect(await evidence(attempt)).toEqual([]);
  });

  it("refuses 1e400 in a management body as invalid_request naming the field", async () => {
    const text = JSON.stringify(invoiceTool).replace('"type":"object"', '"type":"object","maxProperties":1e400');
    const message =
      "expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)";
    const response = await call("POST", "/api/tools", { key: tenant.key, body: text });
    const body = await answer(response);
    expect(body.status).toBe(400);
    expect(body.body).toEqual({
      error: {
        code: "invalid_request",
        message: expect.stringMatching(/: expected a finite number/),
        details: { problems: [{ path: expect.stringMatching(/\/maxProperties$/), message }] },
      },
    });
  });
});

describe("whole numbers past 2^53, which JSON.parse would read as another number", () => {
  const lost = (literal: string, readsAs: string) =>
    `the whole number ${literal} is past 2^53 and reads as ${readsAs}, so it would be kept as another number; send it as a string`;

  it("refuses one in dispatch arguments as the agent's tool input error; nothing is recorded", async () => {
    const attempt = await echoAttempt();
    const message = lost("-12345678901234567890", "-12345678901234567000");
    const text = '{"tool":"echo","arguments":{"ids":[9007199254740992, -12345678901234567890]}}';
    expect(await answer(await rawDispatch(attempt, text))).toEqual({
      status: 422,
      body: {
        error: {
          code: "tool_input_error",
          message: `the arguments cannot be used: /ids/1: ${message}`,
          details: [{ path: "/ids/1", message }],
        },
      },
    });
    expect(await evidence(attempt)).toEqual([]);
    // 2^53 itself reads exactly, and so does a number written with a fraction or an exponent.
    expect(
      await answer(await rawDispatch(attempt, '{"tool":"echo","arguments":{"a":9007199254740992,"b":1e20,"c":0.1}}')),
    ).toEqual({ status: 200, body: { a: 9007199254740992, b: 1e20, c: 0.1 } });
  });

  it("refuses one in a management body as invalid_request naming the field; nothing is stored", async () => {
    const before = await call("GET", "/api/tools", { key: tenant.key });
    const text = JSON.stringify(invoiceTool).replace(
      '"type":"object"',
      '"type":"object","maxProperties":18014398509481985',
    );
    const message = lost("18014398509481985", "18014398509481984");
    const response = await call("POST", "/api/tools", { key: tenant.key, body: text });
    const body = await answer(response);
    expect(body).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: expect.stringMatching(/\/maxProperties: the whole number 18014398509481985 is past 2\^53/),
          details: { problems: [{ path: expect.stringMatching(/\/maxProperties$/), message }] },
        },
      },
    });
    const after = await call("GET", "/api/tools", { key: tenant.key });
    expect(await after.json()).toEqual(await before.json());
  });
});

describe("a key written twice in one object, of which JSON.parse would keep only the last", () => {
  const twice = (key: string) =>
    `the key "${key}" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word`;

  it("refuses one in dispatch arguments as the agent's tool input error; nothing is recorded", async () => {
    const attempt = await echoAttempt();
    const text = '{"tool":"echo","arguments":{"order":{"id":"#W1","id":"#W2"}}}';
    expect(await answer(await rawDispatch(attempt, text))).toEqual({
      status: 422,
      body: {
        error: {
          code: "tool_input_error",
          message: `the arguments cannot be used: /order/id: ${twice("id")}`,
          details: [{ path: "/order/id", message: twice("id") }],
        },
      },
    });
    expect(await evidence(attempt)).toEqual([]);
    // A field of the request itself given twice is the request's mistake, not the arguments'.
    expect(await answer(await rawDispatch(attempt, '{"tool":"nope","tool":"echo","arguments":{}}'))).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `/tool: ${twice("tool")}`,
          details: { problems: [{ path: "/tool", message: twice("tool") }] },
        },
      },
    });
    expect(await evidence(attempt)).toEqual([]);
  });

  it("refuses one in a management body as invalid_request naming it, the top level's included; nothing is stored", async () => {
    const before = await call("GET", "/api/tools", { key: tenant.key });
    const text = JSON.stringify(invoiceTool).replace('{"name":', '{"name":null,"name":');
    expect(await answer(await call("POST", "/api/tools", { key: tenant.key, body: text }))).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `/name: ${twice("name")}`,
          details: { problems: [{ path: "/name", message: twice("name") }] },
        },
      },
    });
    const after = await call("GET", "/api/tools", { key: tenant.key });
    expect(await after.json()).toEqual(await before.json());
  });
});

describe("names that are not well-formed Unicode", () => {
  it("refuses lone surrogates in call_id: three different ones can no longer collapse into one stored row", async () => {
    const attempt = await echoAttempt();
    for (const surrogate of ["\ud800", "\ud801", "\udbff"]) {
      expect(await answer(await dispatch(attempt, { tool: "echo", arguments: {}, call_id: surrogate }))).toEqual({
        status: 400,
        body: {
          error: {
            code: "invalid_request",
            message: `/call_id: ${NOT_WELL_FORMED}`,
            details: { problems: [{ path: "/call_id", message: NOT_WELL_FORMED }] },
          },
        },
      });
    }
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
  });

  it("refuses a lone surrogate in tool or operation_id with 400 (it used to be a 500 from the header builder)", async () => {
    const attempt = await echoAttempt();
    expect(
      await answer(await dispatch(attempt, { tool: "echo\udc00", operation_id: "\ud800", arguments: {} })),
    ).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `/tool: ${NOT_WELL_FORMED} (and 1 more problem)`,
          details: {
            problems: [
              { path: "/tool", message: NOT_WELL_FORMED },
              { path: "/operation_id", message: NOT_WELL_FORMED },
            ],
          },
        },
      },
    });
  });

  it("refuses lone surrogates anywhere in a management body, keys included", async () => {
    const body = { ...invoiceTool, description: "bad \ud800 text" };
    expect(await answer(await call("POST", "/api/tools", { key: tenant.key, body }))).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `/description: ${NOT_WELL_FORMED}`,
          details: { problems: [{ path: "/description", message: NOT_WELL_FORMED }] },
        },
      },
    });
    const inline = { ...mirrorTool, annotations: { "k\udfff": true } };
    const key = await answer(
      await call("POST", "/api/simulations", { key: tenant.key, body: { tools: [{ inline }] } }),
    );
    expect(key).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `/tools/0/inline/annotations/k\udfff: ${NOT_WELL_FORMED} (in the key)`,
          details: {
            problems: [{ path: "/tools/0/inline/annotations/k\udfff", message: `${NOT_WELL_FORMED} (in the key)` }],
          },
        },
      },
    });
  });
});

describe("a schema property named __proto__", () => {
  it("is stored, answered and hashed as sent, never dropped", async () => {
    const inputText =
      '{"type":"object","properties":{"__proto__":{"type":"string"},"id":{"type":"string"}},"required":["__proto__"]}';
    const text = `{"name":"proto_tool","description":"d","kind":"http","operations":[{"operation_id":"get","description":"Get","input_schema":${inputText},"output_schema":{"type":"object"}}]}`;
    const created = await call("POST", "/api/tools", { key: tenant.key, body: text });
    expect(created.status).toBe(201);
    // SAFETY: the documented Tool shape.
    const tool = (await created.json()) as {
      id: string;
      operations: Array<{ input_schema: object; contract_hash: string }>;
    };
    const stored = await (await call("GET", `/api/tools/${tool.id}`, { key: tenant.key })).text();
    expect(stored).toContain(`"input_schema":${inputText}`);
    const expectedHash = await contractHash({
      tool: tool.id,
      operation: "get",
      description: "Get",
      input_schema: JSON.parse(inputText) as JsonObject,
      output_schema: { type: "object" },
    });
    expect(tool.operations[0]?.contract_hash).toBe(expectedHash);
    expect(
      Object.keys((tool.operations[0]?.input_schema as { properties: object } | undefined)?.properties ?? {}),
    ).toEqual(["__proto__", "id"]);
  });
});

/** A request MCP cannot read as one: HTTP 400, JSON-RPC -32600, the problem's pointer into the body. */
function refusedWhole(path: string, message: string): { status: number; body: unknown } {
  const error = {
    code: -32600,
    message: `${path}: ${message}`,
    data: { code: "invalid_request", details: { problems: [{ path, message }] } },
  };
  return { status: 400, body: { jsonrpc: "2.0", id: null, error } };
}

describe("MCP tools/call with arguments no call can use", () => {
  /** One raw JSON-RPC request: the SDK client would write 1e400 as null before it left. */
  async function rpc(attempt: CreatedAttempt, text: string): Promise<{ status: number; body: unknown }> {
    const response = await call("POST", `/api/attempts/${attempt.id}/mcp`, {
      key: attempt.token,
      body: text,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    });
    return answer(response);
  }

  it.each([
    [
      "1e400",
      '{"n":1e400}',
      "/n",
      "expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)",
    ],
    [
      "8,000 levels",
      `{"a":${"[".repeat(8_000)}${"]".repeat(8_000)}}`,
      `/a${"/0".repeat(MAX_JSON_DEPTH - 1)}`,
      `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (the limit for the arguments)`,
    ],
    [
      "a key given twice",
      '{"n":1,"n":2}',
      "/n",
      'the key "n" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word',
    ],
    [
      "a whole number past 2^53",
      '{"order":{"id":9007199254740993}}',
      "/order/id",
      "the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992, so it would be kept as another number; send it as a string",
    ],
  ])("answers %s as a tool result with isError, as HTTP answers 422", async (_name, args, path, message) => {
    const attempt = await echoAttempt();
    const reply = await rpc(
      attempt,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${args}}}`,
    );
    const error = {
      code: "tool_input_error",
      message: `the arguments cannot be used: ${path}: ${message}`,
      details: [{ path, message }],
    };
    expect(reply).toEqual({
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: JSON.stringify({ error }) }], isError: true },
      },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "active", calls: 0 });
  });

  it("in a batch, only the call whose arguments lose a value is refused; the others run and are recorded", async () => {
    const attempt = await echoAttempt();
    const callText = (id: number, args: string): string =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":${args}}}`;
    const reply = await rpc(attempt, `[${callText(1, '{"a":1,"a":2}')},${callText(2, '{"a":3}')}]`);
    const message =
      'the key "a" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word';
    const error = {
      code: "tool_input_error",
      message: `the arguments cannot be used: /a: ${message}`,
      details: [{ path: "/a", message }],
    };
    expect(reply).toEqual({
      status: 200,
      body: [
        {
          jsonrpc: "2.0",
          id: 1,
          result: { content: [{ type: "text", text: JSON.stringify({ error }) }], isError: true },
        },
        {
          jsonrpc: "2.0",
          id: 2,
          result: { content: [{ type: "text", text: '{"a":3}' }], structuredContent: { a: 3 } },
        },
      ],
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "active", calls: 1 });
  });

  it("a key given twice outside the arguments makes the whole request ambiguous: refused, nothing called", async () => {
    const attempt = await echoAttempt();
    const reply = await rpc(
      attempt,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":"echo2","arguments":{}}}',
    );
    const message =
      'the key "name" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word';
    expect(reply).toEqual(refusedWhole("/params/name", message));
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "active", calls: 0 });
  });

  const TWICE = (key: string): string =>
    `the key "${key}" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word`;
  const callText = (id: number | string, args: string): string =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"echo","arguments":${args}}}`;

  it("a body the SDK would read another way than toolproof (two byte order marks) is a parse error, and nothing runs", async () => {
    const attempt = await echoAttempt();
    const reply = await rpc(attempt, `\uFEFF\uFEFF${callText(1, '{"a":1,"a":2}')}`);
    expect(reply).toEqual({
      status: 400,
      body: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: Invalid JSON" } },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
  });

  it("every call of a batch is checked, however many problems the calls before it have", async () => {
    const attempt = await echoAttempt();
    const many = Array.from({ length: 25 }, (_, i) => `"n${i}":9007199254740993`).join(",");
    const reply = await rpc(
      attempt,
      `[${callText(1, `{${many}}`)},${callText(2, '{"a":1,"a":2}')},${callText(3, '{"a":3}')}]`,
    );
    const lost =
      "the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992, so it would be kept as another number; send it as a string";
    const first = Array.from({ length: 20 }, (_, i) => ({ path: `/n${i}`, message: lost }));
    const refusal = (details: { path: string; message: string }[]) => ({
      content: [
        {
          type: "text",
          text: JSON.stringify({
            error: {
              code: "tool_input_error",
              message: `the arguments cannot be used: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`,
              details,
            },
          }),
        },
      ],
      isError: true,
    });
    expect(reply).toEqual({
      status: 200,
      body: [
        { jsonrpc: "2.0", id: 1, result: refusal(first) },
        { jsonrpc: "2.0", id: 2, result: refusal([{ path: "/a", message: TWICE("a") }]) },
        {
          jsonrpc: "2.0",
          id: 3,
          result: { content: [{ type: "text", text: '{"a":3}' }], structuredContent: { a: 3 } },
        },
      ],
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 1 });
  });

  it.each([
    ["two calls", [callText(9, '{"a":1}'), callText(9, '{"a":2}')]],
    ["a listing and a call", ['{"jsonrpc":"2.0","id":9,"method":"tools/list"}', callText(9, '{"a":2}')]],
  ])(
    "a batch that gives one id to %s is refused whole: no answer could say which was which",
    async (_name, messages) => {
      const attempt = await echoAttempt();
      const message =
        "the id 9 is also the id of the message at /0; each request of a batch needs an id of its own, or its answer cannot be told apart";
      expect(await rpc(attempt, `[${messages.join(",")}]`)).toEqual(refusedWhole("/1/id", message));
      expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
    },
  );

  it.each([5, null, true, { k: 1 }, ["a"]])(
    "a toolproof/call_id that is not a string (%j) is refused as over HTTP, and nothing is recorded",
    async (callId) => {
      const attempt = await echoAttempt();
      const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},"_meta":{"toolproof/call_id":${JSON.stringify(callId)}}}}`;
      const message = "expected a string of 1 to 200 characters";
      expect(await rpc(attempt, text)).toEqual({
        status: 200,
        body: {
          jsonrpc: "2.0",
          id: 1,
          error: {
            code: -32602,
            message: `/call_id: ${message}`,
            data: { code: "invalid_request", details: { problems: [{ path: "/call_id", message }] } },
          },
        },
      });
      expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
    },
  );

  it("a key that is not well-formed Unicode is refused naming it, over MCP as over HTTP, and nothing is recorded", async () => {
    const attempt = await echoAttempt();
    const details = [{ path: "/\ud800", message: `${NOT_WELL_FORMED} (in the key)` }];
    const error = {
      code: "tool_input_error",
      message: `the arguments cannot be used: /\ud800: ${NOT_WELL_FORMED} (in the key)`,
      details,
    };
    const dispatched = await rawDispatch(attempt, '{"tool":"echo","arguments":{"a":1,"\\ud800":1}}');
    expect(await answer(dispatched)).toEqual({ status: 422, body: { error } });
    expect(await rpc(attempt, callText(1, '{"a":1,"\\ud800":1}'))).toEqual({
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: JSON.stringify({ error }) }], isError: true },
      },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0 });
  });
});

describe("MCP bodies the SDK's transport refuses keep its answers now that toolproof reads the body first", () => {
  async function post(
    attempt: CreatedAttempt,
    body: string,
    contentType: string,
  ): Promise<{ status: number; body: unknown }> {
    const response = await call("POST", `/api/attempts/${attempt.id}/mcp`, {
      key: attempt.token,
      body,
      headers: { "content-type": contentType, accept: "application/json, text/event-stream" },
    });
    return answer(response);
  }
  const listing = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

  it.each([
    [
      "a body past 512 KiB: 413",
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":"${"x".repeat(512 * 1024)}"}}}`,
      "application/json",
      413,
      { code: -32000, message: `Payload Too Large: Request body must not exceed ${512 * 1024} bytes` },
    ],
    [
      "text that is not JSON: the parse error",
      "{",
      "application/json",
      400,
      { code: -32700, message: "Parse error: Invalid JSON" },
    ],
    [
      "a body that is not JSON-RPC: the parse error",
      '{"hello":1}',
      "application/json",
      400,
      { code: -32700, message: "Parse error: Invalid JSON-RPC message" },
    ],
    [
      "a content type that is not JSON: 415",
      listing,
      "text/plain",
      415,
      { code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" },
    ],
  ])("%s", async (_name, body, contentType, status, error) => {
    const attempt = await echoAttempt();
    expect(await post(attempt, body, contentType)).toEqual({ status, body: { jsonrpc: "2.0", id: null, error } });
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "active", calls: 0 });
  });

  it("a JSON body with a charset parameter is read as any other", async () => {
    const attempt = await echoAttempt();
    expect(await post(attempt, listing, "application/json; charset=utf-8")).toMatchObject({
      status: 200,
      body: { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "echo" }] } },
    });
  });
});
