/**
 * The MCP endpoint through the official SDK client over Streamable HTTP, as an agent would use it:
 * the client's fetch goes straight into the Worker's fetch handler.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { AttemptObject } from "../../../src/worker/attempts/object.js";
import { getInvoiceDefinition, invoiceTool, placeOnHoldDefinition } from "../../fixtures/invoice-tools.js";
import { call, newTenant } from "../helpers.js";
import {
  counterTool,
  createSimulation,
  dispatchJson,
  evidence,
  ledgerTool,
  libraryTool,
  readAttempt,
  stubOf,
  type CreatedAttempt,
} from "../simulation-helpers.js";

const tenantPromise = newTenant();
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function connect(attempt: CreatedAttempt, token = attempt.token): Promise<Client> {
  const client = new Client(
    { name: "toolproof-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(new URL(attempt.mcp_url), {
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

async function attemptWith(tools: unknown[]): Promise<CreatedAttempt> {
  const [attempt] = (await createSimulation(await tenantPromise, { tools })).attempts;
  if (!attempt) throw new Error("no attempt");
  return attempt;
}

async function mcpError(promise: Promise<unknown>): Promise<{ code: number; message: string; data: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return { code: error.code, message: error.message, data: error.data };
    throw error;
  }
  throw new Error("expected an MCP error");
}

describe("MCP: tools/list", () => {
  it("lists exactly the attempt's pinned tools with name, description, schemas and annotations", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_mcp" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    const attempt = await attemptWith([{ tool_id: tool.id }, { inline: counterTool }]);
    const client = await connect(attempt);
    const [get, hold] = invoiceTool.operations;
    expect(await client.listTools()).toEqual({
      tools: [
        {
          name: "invoices_mcp__get_invoice",
          description: get?.description,
          inputSchema: get?.input_schema,
          outputSchema: get?.output_schema,
        },
        {
          name: "invoices_mcp__place_invoice_on_hold",
          description: hold?.description,
          inputSchema: hold?.input_schema,
          outputSchema: hold?.output_schema,
          annotations: { destructiveHint: true },
        },
        {
          name: "counter",
          description: counterTool.description,
          inputSchema: counterTool.input_schema,
          outputSchema: counterTool.output_schema,
        },
      ],
    });
  });
});

describe("MCP: tools/call", () => {
  it("answers structuredContent and a text copy, shares state and evidence with HTTP dispatch", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    const client = await connect(attempt);
    expect(await client.callTool({ name: "counter", arguments: { n: 3 } })).toEqual({
      content: [{ type: "text", text: '{"previous":0}' }],
      structuredContent: { previous: 0 },
    });
    expect(await client.callTool({ name: "counter", arguments: { n: 4 } })).toEqual({
      content: [{ type: "text", text: '{"previous":3}' }],
      structuredContent: { previous: 3 },
    });
    // HTTP dispatch sees the state MCP left, and MCP sees what HTTP set.
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 5 } })).toEqual({
      status: 200,
      body: { previous: 4 },
    });
    expect(await client.callTool({ name: "counter", arguments: { n: 6 } })).toMatchObject({
      structuredContent: { previous: 5 },
    });
    expect((await evidence(attempt)).map((c) => [c.seq, (c.arguments as { n: number }).n, c.result])).toEqual([
      [1, 3, { previous: 0 }],
      [2, 4, { previous: 3 }],
      [3, 5, { previous: 4 }],
      [4, 6, { previous: 5 }],
    ]);
  });

  it("a retried call with the same toolproof/call_id in _meta is answered once", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    const client = await connect(attempt);
    const request = { name: "counter", arguments: { n: 8 }, _meta: { "toolproof/call_id": "mcp-1" } };
    const first = await client.callTool(request);
    expect(await client.callTool(request)).toEqual(first);
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 1, state: { counter: { last: 8 } } });
  });
});

describe("the error table over MCP", () => {
  it.each([
    ["arguments that fail the input schema", "counter", { n: "three" }],
    ["a bad caller value in $number", "ledger", { mode: "amount", amount: "0x10" }],
    ["a bad caller value in $dateAdd", "ledger", { mode: "date", date: "soon" }],
  ])("tool input error (%s) comes back as isError, and the attempt may still pass", async (_name, tool, args) => {
    const attempt = await attemptWith([{ inline: ledgerTool }, { inline: counterTool }]);
    const client = await connect(attempt);
    const result = await client.callTool({ name: tool, arguments: args });
    expect(result).toEqual({
      content: [{ type: "text", text: expect.stringContaining('"code":"tool_input_error"') }],
      isError: true,
    });
    expect((await readAttempt(attempt)).body).toMatchObject({
      status: "active",
      may_pass: true,
      tool_input_errors: 1,
      harness_errors: 0,
    });
  });

  it.each([
    ["unknown_tool", "payments", {}],
    ["missing_reference", "ledger", { mode: "missing" }],
    ["bad_literal", "ledger", { mode: "literal" }],
    ["output_schema", "ledger", { mode: "bad_output" }],
  ])(
    "harness error %s is a JSON-RPC error that says so, and marks the attempt harness_failed",
    async (kind, tool, args) => {
      const attempt = await attemptWith([{ inline: ledgerTool }]);
      const client = await connect(attempt);
      expect(await mcpError(client.callTool({ name: tool, arguments: args }))).toEqual({
        code: ErrorCode.InternalError,
        message: expect.stringContaining(`harness error (${kind})`),
        data: { code: "harness_error", kind, seq: 1 },
      });
      expect((await readAttempt(attempt)).body).toMatchObject({
        status: "harness_failed",
        may_pass: false,
        harness_errors: 1,
      });
    },
  );

  it("an unknown tool names the attempt's tools and the closest one, and the client reads each part of the message once", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_hint" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    const attempt = await attemptWith([{ tool_id: tool.id }, { inline: counterTool }]);
    const client = await connect(attempt);
    expect(await mcpError(client.callTool({ name: "place_invoice_on_hold", arguments: {} }))).toEqual({
      code: ErrorCode.InternalError,
      message:
        'MCP error -32603: harness error (unknown_tool): no tool named "place_invoice_on_hold" is pinned in this attempt, so the call was not forwarded anywhere; did you mean "invoices_hint__place_invoice_on_hold"? the attempt\'s tools: invoices_hint__get_invoice, invoices_hint__place_invoice_on_hold, counter',
      data: { code: "harness_error", kind: "unknown_tool", seq: 1 },
    });
  });

  it("refusals are the HTTP error table's errors, their code in data: a lone surrogate in a name, a reused call id", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    const client = await connect(attempt);
    const surrogate = await mcpError(client.callTool({ name: "count\ud800er", arguments: { n: 1 } }));
    await client.callTool({ name: "counter", arguments: { n: 1 }, _meta: { "toolproof/call_id": "k" } });
    const reused = await mcpError(
      client.callTool({ name: "counter", arguments: { n: 2 }, _meta: { "toolproof/call_id": "k" } }),
    );
    const wellFormed =
      "expected well-formed Unicode text: this string has a lone UTF-16 surrogate, which cannot be stored";
    expect([surrogate, reused]).toEqual([
      {
        code: ErrorCode.InvalidParams,
        message: `MCP error -32602: /tool: ${wellFormed}`,
        data: { code: "invalid_request", details: { problems: [{ path: "/tool", message: wellFormed }] } },
      },
      {
        code: ErrorCode.InvalidParams,
        message: 'MCP error -32602: /call_id: "k" was already used by call 1 with a different tool or arguments',
        data: { code: "call_id_reused", details: { call_id: "k", seq: 1 } },
      },
    ]);
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 1, status: "active" });
  });

  it("harness errors missing_definition and unknown_operation: names an MCP client cannot list fail closed the same way", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_partial" },
      { get_invoice: getInvoiceDefinition },
    );
    const attempt = await attemptWith([{ tool_id: tool.id, operation_id: "get_invoice" }]);
    const client = await connect(attempt);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["invoices_partial__get_invoice"]);
    const unpinned = await mcpError(
      client.callTool({ name: "invoices_partial__place_invoice_on_hold", arguments: {} }),
    );
    expect(unpinned).toMatchObject({
      code: ErrorCode.InternalError,
      data: { code: "harness_error", kind: "unknown_tool" },
    });
    // Over HTTP, naming the tool and operation separately tells the two apart.
    expect(
      await dispatchJson(attempt, { tool: tool.id, operation_id: "place_invoice_on_hold", arguments: {} }),
    ).toMatchObject({ status: 500, body: { error: { kind: "missing_definition" } } });
    expect(await dispatchJson(attempt, { tool: tool.id, operation_id: "refund", arguments: {} })).toMatchObject({
      status: 500,
      body: { error: { kind: "unknown_operation" } },
    });
  });

  it("harness error internal: a corrupt state row", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
      state.storage.sql.exec(`INSERT OR REPLACE INTO state (tool, value) VALUES ('counter', '[')`);
    });
    const client = await connect(attempt);
    expect(await mcpError(client.callTool({ name: "counter", arguments: { n: 1 } }))).toMatchObject({
      code: ErrorCode.InternalError,
      data: { code: "harness_error", kind: "internal" },
    });
  });

  it("harness error lease_expired: after the alarm, calls fail and the attempt is expired", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    const client = await connect(attempt);
    const stub = stubOf(attempt);
    await runInDurableObject<AttemptObject, void>(stub, (_instance, state) => {
      state.storage.sql.exec(`UPDATE attempt SET expires_at = ?`, Date.now() - 1000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await mcpError(client.callTool({ name: "counter", arguments: { n: 1 } }))).toEqual({
      code: ErrorCode.InternalError,
      message: expect.stringContaining("harness error (lease_expired)"),
      data: { code: "harness_error", kind: "lease_expired", seq: 1 },
    });
    expect((await readAttempt(attempt, (await tenantPromise).key)).body).toMatchObject({
      status: "expired",
      harness_errors: 1,
    });
  });
});

/** One JSON-RPC message posted as raw text, so the test controls every byte the SDK receives. */
async function postRaw(attempt: CreatedAttempt, text: string): Promise<unknown> {
  const response = await exports.default.fetch(
    new Request(attempt.mcp_url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${attempt.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: text,
    }),
  );
  expect(response.status).toBe(200);
  return response.json();
}

describe("MCP: tools/call params exactly as sent", () => {
  it.each([
    ["a name that is not a string", '{"name":{},"arguments":{}}'],
    ["no name", '{"arguments":{"n":1}}'],
    ["arguments that are not an object", '{"name":"counter","arguments":0}'],
  ])(
    "%s is -32602 invalid params (never -32603, which means a harness error), and nothing is recorded",
    async (_name, params) => {
      const attempt = await attemptWith([{ inline: counterTool }]);
      const answer = await postRaw(attempt, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${params}}`);
      expect(answer).toEqual({
        jsonrpc: "2.0",
        id: 7,
        error: { code: ErrorCode.InvalidParams, message: expect.stringContaining("Invalid tools/call request: ") },
      });
      expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0, status: "active", may_pass: true });
    },
  );

  it('an own "__proto__" argument reaches the input schema as HTTP dispatch sees it, not dropped on the way', async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    const answer = await postRaw(
      attempt,
      '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"counter","arguments":{"n":1,"__proto__":{"x":1}}}}',
    );
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: 8,
      result: {
        content: [{ type: "text", text: expect.stringContaining('"code":"tool_input_error"') }],
        isError: true,
      },
    });
    const [row] = await evidence(attempt);
    // Compared as text: an own "__proto__" key is invisible to most object comparisons.
    expect([row?.seq, row?.tool, row?.outcome, JSON.stringify(row?.arguments)]).toEqual([
      1,
      "counter",
      "tool_input_error",
      '{"n":1,"__proto__":{"x":1}}',
    ]);
  });
});

describe("MCP access", () => {
  it("after the lease, initialize and tools/list are refused as every read is (token_expired); a call of a client connected before is still the recorded lease_expired harness error", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    const client = await connect(attempt);
    const stub = stubOf(attempt);
    await runInDurableObject<AttemptObject, void>(stub, (_instance, state) => {
      state.storage.sql.exec(`UPDATE attempt SET expires_at = ?`, Date.now() - 1000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // A new connection: its initialize is answered with the same refusal as tools/list (it was answered before).
    expect(await mcpError(connect(attempt))).toEqual({
      code: ErrorCode.InvalidRequest,
      message: "MCP error -32600: the attempt's lease has ended, and its token with it",
      data: { code: "token_expired" },
    });
    expect(await mcpError(client.listTools())).toEqual({
      code: ErrorCode.InvalidRequest,
      message: "MCP error -32600: the attempt's lease has ended, and its token with it",
      data: { code: "token_expired" },
    });
    expect(await mcpError(client.callTool({ name: "counter", arguments: { n: 1 } }))).toMatchObject({
      data: { code: "harness_error", kind: "lease_expired", seq: 1 },
    });
  });

  it("refuses a wrong or missing token, or an API key, with 403, so a client that speaks OAuth (the MCP Inspector) reports it instead of starting OAuth", async () => {
    // The official SDK's client, with an OAuth provider as the Inspector gives it, starts OAuth
    // discovery on any 401, whatever the WWW-Authenticate header says; a 403 it only reports.
    const simulation = await createSimulation(await tenantPromise, { tools: [{ inline: counterTool }], attempts: 2 });
    const [a, b] = simulation.attempts;
    if (!a || !b) throw new Error("two attempts expected");
    const tenant = await tenantPromise;
    const outcomes = [];
    for (const token of [a.token, tenant.key, null]) {
      const fetched: string[] = [];
      const oauth: string[] = [];
      const provider: OAuthClientProvider = {
        redirectUrl: "http://127.0.0.1:6274/oauth/callback",
        clientMetadata: { redirect_uris: ["http://127.0.0.1:6274/oauth/callback"], client_name: "inspector-like" },
        clientInformation: () => undefined,
        saveClientInformation: () => void oauth.push("register"),
        tokens: () => undefined,
        saveTokens: () => void oauth.push("tokens"),
        redirectToAuthorization: () => void oauth.push("authorize"),
        saveCodeVerifier: () => undefined,
        codeVerifier: () => "",
      };
      const client = new Client({ name: "inspector-like", version: "2.12.0" });
      const transport = new StreamableHTTPClientTransport(new URL(b.mcp_url), {
        authProvider: provider,
        fetch: (url, init) => {
          fetched.push(String(url));
          return exports.default.fetch(new Request(url, init));
        },
        ...(token === null ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      });
      const error: unknown = await client.connect(transport).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      outcomes.push({
        error:
          error instanceof StreamableHTTPError
            ? { code: error.code, said: /"code":"(\w+)"/.exec(error.message)?.[1] }
            : String(error),
        fetched: [...new Set(fetched)],
        oauth,
      });
    }
    const refused = { error: { code: 403, said: "unauthorized" }, fetched: [b.mcp_url], oauth: [] };
    expect(outcomes).toEqual([refused, refused, refused]);
  });

  it("refuses another attempt's token before any MCP is spoken", async () => {
    const simulation = await createSimulation(await tenantPromise, { tools: [{ inline: counterTool }], attempts: 2 });
    const [a, b] = simulation.attempts;
    if (!a || !b) throw new Error("two attempts expected");
    await expect(connect(b, a.token)).rejects.toThrow(/"code":"unauthorized"/);
    const get = await call("GET", `/api/attempts/${a.id}/mcp`, { key: a.token });
    expect({ status: get.status, body: await get.json() }).toEqual({
      status: 405,
      body: {
        error: {
          code: "method_not_allowed",
          message: "this MCP endpoint is stateless: send JSON-RPC messages with POST",
        },
      },
    });
  });
});
