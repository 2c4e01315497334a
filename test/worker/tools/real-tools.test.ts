/**
 * Real-tools runs through the real app: upstream declarations, the permission, the allowlist and
 * address refusals, allow_writes, forwarding over HTTP dispatch and MCP to a local upstream (an
 * HTTP tool and an MCP server the tests start), contract violations, time and size bounds, and
 * record → draft → check → save.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { UPSTREAM_LIMITS } from "../../../src/core/tools/upstream.js";
import { MAX_EVIDENCE_ROW_BYTES } from "../../../src/worker/attempts/call-records.js";
import { MAX_CALLS, RETENTION_MS } from "../../../src/worker/attempts/lifetimes.js";
import type { AttemptObject } from "../../../src/worker/attempts/object.js";
import { ForwardWaiters } from "../../../src/worker/attempts/real/forward-waiters.js";
import { BIG_ANSWER_QUOTES } from "../../support/upstream/answers.js";
import { upstream } from "../../support/upstream/in-tests.js";
import { answer, call, invalidAnswer, keyWith, newTenant, type TestTenant } from "../helpers.js";
import {
  counterTool,
  dispatch,
  dispatchJson,
  evidence,
  readAttempt,
  stubOf,
  type CreatedAttempt,
  type CreatedSimulation,
} from "../simulation-helpers.js";

const invoiceOutput = {
  type: "object",
  properties: {
    invoice_id: { type: "string" },
    status: { type: "string" },
    amount: { type: "number" },
    fetched_at: { type: "string" },
    request_id: { type: "string" },
  },
  required: ["invoice_id", "status"],
};
const billingTool = {
  name: "billing",
  description: "Invoices of the real billing API.",
  kind: "http",
  operations: [
    {
      operation_id: "get_invoice",
      description: "Return the status and amount of one invoice.",
      input_schema: {
        type: "object",
        properties: { invoice_id: { type: "string" } },
        required: ["invoice_id"],
        additionalProperties: false,
      },
      output_schema: invoiceOutput,
    },
    {
      operation_id: "place_hold",
      description: "Place one invoice on hold until someone releases it.",
      input_schema: {
        type: "object",
        properties: { invoice_id: { type: "string" }, reason: { type: "string" } },
        required: ["invoice_id", "reason"],
      },
      output_schema: {
        type: "object",
        properties: { invoice_id: { type: "string" }, status: { type: "string" }, reason: { type: "string" } },
        required: ["invoice_id", "status"],
      },
    },
    { operation_id: "slow", description: "Answers slowly.", input_schema: { type: "object" }, output_schema: true },
    {
      operation_id: "big",
      description: "Answers with a large body.",
      input_schema: { type: "object" },
      output_schema: true,
    },
    {
      operation_id: "get_invoice_slowly",
      description: "Return one invoice, after a second.",
      input_schema: {
        type: "object",
        properties: { invoice_id: { type: "string" } },
        required: ["invoice_id"],
        additionalProperties: false,
      },
      output_schema: invoiceOutput,
    },
  ],
};
const weatherTool = {
  name: "weather",
  description: "The weather, from an upstream MCP server.",
  kind: "mcp",
  operations: [
    {
      operation_id: "get_weather",
      description: "The temperature in one city, in degrees Celsius.",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      output_schema: {
        type: "object",
        properties: { city: { type: "string" }, temp_c: { type: "number" } },
        required: ["city", "temp_c"],
      },
    },
  ],
};

const UP = upstream();
const httpUpstream = (overrides: Record<string, unknown> = {}) => ({
  base_url: UP.url,
  operations: {
    get_invoice: { method: "GET", path: "/invoices/{invoice_id}" },
    place_hold: { method: "POST", path: "/invoices/{invoice_id}/hold", allow_writes: true },
    slow: { method: "GET", path: "/slow" },
    big: { method: "GET", path: "/big" },
    get_invoice_slowly: { method: "GET", path: "/delayed/{invoice_id}" },
  },
  credentials: { bearer: "real-secret-token" },
  ...overrides,
});

async function registered(
  tenant: TestTenant,
  spec: unknown,
): Promise<{ id: string; operations: Array<{ operation_id: string; contract_hash: string }> }> {
  const created = await call("POST", "/api/tools", { key: tenant.key, body: spec });
  expect(created.status).toBe(201);
  // SAFETY: documented Tool shape.
  return (await created.json()) as { id: string; operations: Array<{ operation_id: string; contract_hash: string }> };
}

async function allowHosts(tenant: TestTenant, hosts: string[]): Promise<void> {
  expect(await answer(await call("PUT", "/api/upstream-hosts", { key: tenant.key, body: { hosts } }))).toEqual({
    status: 200,
    body: { hosts },
  });
}

/** One real call of billing__get_invoice as the evidence shows it; `fields` replaces what differs. */
function realEvidence(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    seq: 1,
    call_id: null,
    tool: "billing__get_invoice",
    operation_id: "get_invoice",
    revision: null,
    variant: "real",
    rule: null,
    outcome: "result",
    delay_ms: 0,
    at: expect.any(String),
    source: "real",
    upstream: { status: 200, latency_ms: expect.any(Number), contract_violations: [] },
    ...fields,
  };
}

async function realSimulation(tenant: TestTenant, body: unknown): Promise<CreatedSimulation> {
  const response = await call("POST", "/api/simulations", { key: tenant.key, body });
  const created: unknown = await response.json();
  expect({ status: response.status, created }).toMatchObject({ status: 201 });
  // SAFETY: a 201 answer has the Simulation shape.
  return created as CreatedSimulation;
}

describe("real-tools runs over HTTP", () => {
  let tenant: TestTenant;
  let tool: Awaited<ReturnType<typeof registered>>;
  beforeAll(async () => {
    tenant = await newTenant();
    tool = await registered(tenant, billingTool);
    const put = await call("PUT", `/api/tools/${tool.id}/upstream`, {
      key: tenant.key,
      body: httpUpstream({ timeout_ms: 500, max_body_bytes: 1000 }),
    });
    expect(put.status).toBe(200);
    await allowHosts(tenant, ["127.0.0.1"]);
  });

  it("reads the upstream back with credentials only as credentials_set", async () => {
    const read = await answer(await call("GET", `/api/tools/${tool.id}/upstream`, { key: tenant.key }));
    expect(read).toEqual({
      status: 200,
      body: {
        tool_id: tool.id,
        kind: "http",
        base_url: UP.url,
        operations: httpUpstream().operations,
        timeout_ms: 500,
        max_body_bytes: 1000,
        credentials_set: true,
        credential_headers: ["authorization"],
        updated_at: expect.any(String),
        updated_by: tenant.keyId,
      },
    });
    expect(JSON.stringify(read)).not.toContain("real-secret-token");
  });

  it("forwards a call, gives the agent the real answer, and records source real with status and latency", async () => {
    await UP.clear();
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }],
    });
    expect(simulation.pinned).toEqual([
      {
        mode: "real",
        tool_id: tool.id,
        tool_name: "billing",
        tool: "billing__get_invoice",
        operation_id: "get_invoice",
        revision: null,
        variant: "real",
        contract_hash: tool.operations[0]?.contract_hash,
      },
    ]);
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    const got = await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV 1/2" } });
    expect(got).toEqual({
      status: 200,
      body: {
        invoice_id: "INV 1/2",
        status: "open",
        amount: 120.5,
        fetched_at: expect.any(String),
        request_id: expect.stringMatching(/^req-\d+$/),
      },
    });
    const sent = await UP.requests();
    expect(sent.map((r) => ({ method: r.method, path: r.path, authorization: r.headers.authorization }))).toEqual([
      { method: "GET", path: "/invoices/INV%201%2F2", authorization: "Bearer real-secret-token" },
    ]);
    const calls = await evidence(attempt);
    expect(calls).toEqual([realEvidence({ arguments: { invoice_id: "INV 1/2" }, result: got.body })]);
  });

  it("records a real answer that breaks the output schema as a contract violation, and the agent still gets it", async () => {
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    expect(await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-BAD" } })).toEqual(
      { status: 200, body: { invoice_id: "INV-BAD", status: 42 } },
    );
    expect(await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-404" } })).toEqual(
      { status: 200, body: { error: "not_found" } },
    );
    const calls = await evidence(attempt);
    expect(calls.map((c) => (c as { upstream?: unknown }).upstream)).toEqual([
      {
        status: 200,
        latency_ms: expect.any(Number),
        contract_violations: [{ path: "/status", message: expect.stringContaining("string") }],
      },
      {
        status: 404,
        latency_ms: expect.any(Number),
        contract_violations: [
          { path: "", message: expect.stringContaining("invoice_id") },
          { path: "", message: expect.stringContaining("status") },
        ],
      },
    ]);
    const read = await readAttempt(attempt);
    expect(read.body).toMatchObject({
      status: "active",
      calls: 2,
      harness_errors: 0,
      real_calls: 2,
      contract_violations: 2,
    });
  });

  it("answers arguments that break the input schema as the agent's tool input error, and forwards nothing", async () => {
    await UP.clear();
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    const got = await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice: "INV-1" } });
    expect(got).toMatchObject({ status: 422, body: { error: { code: "tool_input_error" } } });
    expect(await UP.requests()).toEqual([]);
  });

  it("refuses a path argument that is a dot segment or empty as the agent's tool input error, and sends nothing", async () => {
    // "/invoices/.." would reach the upstream's parent resource with the credentials attached.
    await UP.clear();
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    const answers = [];
    for (const id of ["..", ".", ""])
      answers.push(await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: id } }));
    const refusal = (id: string) => {
      const why = id === "" ? "an empty value" : `"${id}"`;
      const message = `/invoice_id: ${why} cannot be sent as the path segment {invoice_id} of /invoices/{invoice_id}: the URL would name another resource than the one the argument means (a dot segment moves up or stays, an empty one joins its neighbours)`;
      return {
        status: 422,
        body: {
          error: {
            code: "tool_input_error",
            message: `the arguments cannot be sent to the real handler of billing__get_invoice: ${message}`,
            details: [{ path: "/invoice_id", message: message.slice("/invoice_id: ".length) }],
          },
        },
      };
    };
    expect(answers).toEqual([refusal(".."), refusal("."), refusal("")]);
    expect(await UP.requests()).toEqual([]);
    // A dot inside a value is data, and a value that only looks encoded is encoded again.
    expect(
      (await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "%2e%2e" } })).status,
    ).toBe(200);
    expect(
      (await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "..." } })).status,
    ).toBe(200);
    expect((await UP.requests()).map((r) => r.path)).toEqual(["/invoices/%252e%252e", "/invoices/..."]);
    expect((await evidence(attempt)).map((c) => (c as { outcome: string }).outcome)).toEqual([
      "tool_input_error",
      "tool_input_error",
      "tool_input_error",
      "result",
      "result",
    ]);
  });

  it("bounds each upstream call in time and in body size, as an upstream harness error", async () => {
    const simulation = await realSimulation(tenant, {
      tools: [
        { tool_id: tool.id, operation_id: "slow", mode: "real" },
        { tool_id: tool.id, operation_id: "big", mode: "real" },
      ],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    const slow = await dispatchJson(attempt, { tool: "billing__slow", arguments: {} });
    expect(slow).toEqual({
      status: 500,
      body: {
        error: {
          code: "harness_error",
          kind: "upstream",
          message:
            "the real handler of billing__slow gave no usable answer: no answer within the upstream's time limit of 500 ms (timeout_ms)",
          details: [],
        },
      },
    });
    const big = await dispatchJson(attempt, { tool: "billing__big", arguments: {} });
    expect(big).toEqual({
      status: 500,
      body: {
        error: {
          code: "harness_error",
          kind: "upstream",
          message:
            "the real handler of billing__big gave no usable answer: the answer's body is larger than the upstream's limit of 1000 bytes (max_body_bytes)",
          details: [],
        },
      },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({
      status: "harness_failed",
      harness_errors: 2,
      real_calls: 2,
      contract_violations: 0,
    });
  });

  it("a real answer that its call's evidence could not hold is not given: the call is recorded as evidence_too_large with the upstream's status", async () => {
    // The upstream allows the largest answers there are; /big answers a body of about 1 MB, all
    // quotes, which the evidence's texts escape to twice that: no stored row takes it whole (the
    // local runtime stores it; a deployed Durable Object would refuse the insert, losing the call).
    const roomy = await registered(tenant, { ...billingTool, name: "billing_roomy" });
    const put = await call("PUT", `/api/tools/${roomy.id}/upstream`, {
      key: tenant.key,
      body: httpUpstream({ max_body_bytes: 1_900_000 }),
    });
    expect(put.status).toBe(200);
    const [attempt] = (
      await realSimulation(tenant, { tools: [{ tool_id: roomy.id, operation_id: "big", mode: "real" }] })
    ).attempts;
    if (!attempt) throw new Error("no attempt");
    const answered = await dispatchJson(attempt, { tool: "billing_roomy__big", arguments: {} });
    const recorded = await evidence(attempt);
    // SAFETY: a real call's evidence carries its upstream record (checked whole below).
    const upstreamRecord = (recorded[0] as { upstream?: { latency_ms: number } } | undefined)?.upstream;
    const latency = upstreamRecord?.latency_ms ?? -1;
    // As the flush binds the row's texts: the arguments, the result (a JSON string of the quotes),
    // no error or state change yet, and the upstream's record.
    const bytes = JSON.stringify([
      "{}",
      JSON.stringify('"'.repeat(BIG_ANSWER_QUOTES)),
      null,
      null,
      JSON.stringify({ status: 200, latency_ms: latency, contract_violations: [] }),
    ]).length;
    const error = {
      code: "harness_error",
      kind: "evidence_too_large",
      message: `the real handler's answer would make the call's evidence ${bytes} bytes; one call's evidence may be at most 1900000 bytes, a row of the attempt's storage and of D1: the answer is not given (the real system has had the call)`,
      details: [],
    };
    expect(answered).toEqual({ status: 500, body: { error } });
    expect(recorded).toEqual([
      {
        seq: 1,
        call_id: null,
        tool: "billing_roomy__big",
        operation_id: "big",
        revision: null,
        variant: "real",
        rule: null,
        arguments: {},
        outcome: "harness_error",
        error,
        delay_ms: 0,
        at: expect.any(String),
        source: "real",
        upstream: { status: 200, latency_ms: latency, contract_violations: [] },
      },
    ]);
    expect((await readAttempt(attempt)).body).toMatchObject({
      status: "harness_failed",
      real_calls: 1,
      harness_errors: 1,
    });
  });

  it("forwards a write the upstream allows, with its body", async () => {
    await UP.clear();
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "place_hold", mode: "real" }],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    expect(
      await dispatchJson(attempt, {
        tool: "billing__place_hold",
        arguments: { invoice_id: "INV-7", reason: "disputed" },
      }),
    ).toEqual({
      status: 200,
      body: { invoice_id: "INV-7", status: "on_hold", reason: "disputed" },
    });
    expect((await UP.requests()).map((r) => ({ method: r.method, path: r.path, body: r.body }))).toEqual([
      { method: "POST", path: "/invoices/INV-7/hold", body: '{"reason":"disputed"}' },
    ]);
  });
});

describe("real-tools evidence: one call per call_id, the same figures wherever the attempt is read from", () => {
  let tenant: TestTenant;
  let tool: Awaited<ReturnType<typeof registered>>;
  beforeAll(async () => {
    tenant = await newTenant();
    tool = await registered(tenant, billingTool);
    expect(
      (
        await call("PUT", `/api/tools/${tool.id}/upstream`, {
          key: tenant.key,
          body: httpUpstream({ timeout_ms: 5000 }),
        })
      ).status,
    ).toBe(200);
    await allowHosts(tenant, ["127.0.0.1"]);
  });

  /** An attempt of the slow real operation (and `extra` entries), with an invoice id of its own: the upstream's log is shared. */
  async function slowAttempt(
    label: string,
    extra: unknown[] = [],
  ): Promise<{ attempt: CreatedAttempt; invoice: string }> {
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice_slowly", mode: "real" }, ...extra],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    return { attempt, invoice: `INV-${label}-${attempt.id}` };
  }

  /** What the local upstream received for one path (the log is shared by every test file, so it is filtered, never cleared). */
  async function sentTo(path: string): Promise<string[]> {
    return (await UP.requests()).filter((r) => r.path === path).map((r) => `${r.method} ${r.path}`);
  }

  it("a call_id repeated while its real call is still out reaches the upstream once, and both callers get its answer", async () => {
    const { attempt, invoice } = await slowAttempt("once");
    const body = { tool: "billing__get_invoice_slowly", call_id: "c-1", arguments: { invoice_id: invoice } };
    const [first, second] = await Promise.all([dispatch(attempt, body), dispatch(attempt, body)]);
    const answers = await Promise.all(
      [first, second].map(async (response) => ({
        status: response.status,
        seq: response.headers.get("x-toolproof-seq"),
        replayed: response.headers.get("x-toolproof-replayed"),
        body: await response.json(),
      })),
    );
    const recorded = {
      invoice_id: invoice,
      status: "open",
      amount: 120.5,
      fetched_at: expect.any(String),
      request_id: expect.stringMatching(/^req-\d+$/),
    };
    // Which of the two was sent is up to the runtime; the other is the replay of its answer.
    expect(answers.map((a) => a.replayed).sort()).toEqual(["true", null].sort());
    expect(answers.map(({ replayed: _replayed, ...rest }) => rest)).toEqual([
      { status: 200, seq: "1", body: recorded },
      { status: 200, seq: "1", body: answers[0]?.body },
    ]);
    expect(await sentTo(`/delayed/${invoice}`)).toEqual([`GET /delayed/${invoice}`]);
    const calls = await evidence(attempt);
    expect(calls).toEqual([
      realEvidence({
        call_id: "c-1",
        tool: "billing__get_invoice_slowly",
        operation_id: "get_invoice_slowly",
        arguments: { invoice_id: invoice },
        result: answers[0]?.body,
      }),
    ]);
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 1, real_calls: 1, contract_violations: 0 });
  });

  it("a mock call reusing the call_id of a real call still out is a call_id conflict, and the real answer is recorded", async () => {
    const { attempt, invoice } = await slowAttempt("mixed", [{ inline: counterTool }]);
    const out = dispatchJson(attempt, {
      tool: "billing__get_invoice_slowly",
      call_id: "c-1",
      arguments: { invoice_id: invoice },
    });
    await waitFor(async () => (await sentTo(`/delayed/${invoice}`)).length === 1);
    expect(await dispatchJson(attempt, { tool: "counter", call_id: "c-1", arguments: { n: 1 } })).toEqual({
      status: 409,
      body: {
        error: {
          code: "call_id_reused",
          message:
            '/call_id: "c-1" is already used by a call still out at its real handler, with a different tool or arguments',
          details: { call_id: "c-1", seq: null },
        },
      },
    });
    const answered = await out;
    expect(answered).toEqual({
      status: 200,
      body: {
        invoice_id: invoice,
        status: "open",
        amount: 120.5,
        fetched_at: expect.any(String),
        request_id: expect.stringMatching(/^req-\d+$/),
      },
    });
    expect(
      (await evidence(attempt)).map((c) => ({ seq: c.seq, call_id: c.call_id, tool: c.tool, result: c.result })),
    ).toEqual([{ seq: 1, call_id: "c-1", tool: "billing__get_invoice_slowly", result: answered.body }]);
  });

  it("a call_id whose Worker never came back with the answer is sent again once its mark lapses, and recorded once", async () => {
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    const invoice = `INV-lapsed-${attempt.id}`;
    const args = { invoice_id: invoice };
    // As a crashed Worker leaves it: the call marked out, and no recordReal ever coming.
    const markOut = (callId: string, inMs: number) =>
      runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
        state.storage.sql.exec(
          `INSERT INTO forwards (call_id, tool, operation_id, arguments, deadline) VALUES (?, 'billing__get_invoice', 'get_invoice', ?, ?)`,
          callId,
          JSON.stringify(args),
          Date.now() + inMs,
        );
      });
    await markOut("c-lapsed", -1);
    await markOut("c-waits", 400);
    const started = Date.now();
    const [lapsed, waited] = await Promise.all([
      dispatchJson(attempt, { tool: "billing__get_invoice", call_id: "c-lapsed", arguments: args }),
      dispatchJson(attempt, { tool: "billing__get_invoice", call_id: "c-waits", arguments: args }).then((answer) => ({
        ...answer,
        after: Date.now() - started,
      })),
    ]);
    const body = {
      invoice_id: invoice,
      status: "open",
      amount: 120.5,
      fetched_at: expect.any(String),
      request_id: expect.stringMatching(/^req-\d+$/),
    };
    expect([lapsed, waited]).toEqual([
      { status: 200, body },
      { status: 200, body, after: expect.any(Number) },
    ]);
    // The second waited for the mark's deadline before it was sent.
    expect(waited.after).toBeGreaterThanOrEqual(390);
    expect(await sentTo(`/invoices/${invoice}`)).toEqual([`GET /invoices/${invoice}`, `GET /invoices/${invoice}`]);
    expect((await evidence(attempt)).map((c) => c.call_id).sort()).toEqual(["c-lapsed", "c-waits"]);
    const marks = await runInDurableObject<AttemptObject, unknown[]>(stubOf(attempt), (_instance, state) =>
      state.storage.sql.exec(`SELECT call_id FROM forwards`).toArray(),
    );
    expect(marks).toEqual([]);
  });

  it("a call_id repeated with other arguments while its real call is out is a call_id conflict, and nothing more is sent", async () => {
    const { attempt, invoice } = await slowAttempt("conflict");
    const out = dispatch(attempt, {
      tool: "billing__get_invoice_slowly",
      call_id: "c-1",
      arguments: { invoice_id: invoice },
    });
    // Once the first is out (the upstream has it), the same call_id with other arguments arrives.
    await waitFor(async () => (await sentTo(`/delayed/${invoice}`)).length === 1);
    const other = await dispatchJson(attempt, {
      tool: "billing__get_invoice_slowly",
      call_id: "c-1",
      arguments: { invoice_id: `${invoice}-other` },
    });
    expect(other).toEqual({
      status: 409,
      body: {
        error: {
          code: "call_id_reused",
          message:
            '/call_id: "c-1" is already used by a call still out at its real handler, with a different tool or arguments',
          details: { call_id: "c-1", seq: null },
        },
      },
    });
    expect((await out).status).toBe(200);
    expect(await sentTo(`/delayed/${invoice}-other`)).toEqual([]);
    expect((await evidence(attempt)).map((c) => ({ seq: c.seq, call_id: c.call_id, arguments: c.arguments }))).toEqual([
      { seq: 1, call_id: "c-1", arguments: { invoice_id: invoice } },
    ]);
  });

  it("real calls out at once when the call limit is reached are all recorded: the real system has acted on each", async () => {
    const { attempt } = await slowAttempt("limit");
    expect((await readAttempt(attempt)).status).toBe(200);
    // One call short of the limit: both calls below pass the limit check when they are handed out.
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (instance) => {
      const live: unknown = Reflect.get(instance, "live");
      if (typeof live !== "object" || live === null) throw new Error("the attempt is not loaded");
      Reflect.set(live, "nextSeq", MAX_CALLS);
    });
    const invoices = [`INV-limit-a-${attempt.id}`, `INV-limit-b-${attempt.id}`];
    const answers = await Promise.all(
      invoices.map((invoice_id) =>
        dispatchJson(attempt, { tool: "billing__get_invoice_slowly", arguments: { invoice_id } }),
      ),
    );
    expect(answers).toEqual(
      invoices.map((invoice_id) => ({
        status: 200,
        body: {
          invoice_id,
          status: "open",
          amount: 120.5,
          fetched_at: expect.any(String),
          request_id: expect.stringMatching(/^req-\d+$/),
        },
      })),
    );
    for (const invoice of invoices) expect(await sentTo(`/delayed/${invoice}`)).toEqual([`GET /delayed/${invoice}`]);
    const calls = await evidence(attempt);
    expect(calls.map((c) => c.seq)).toEqual([MAX_CALLS, MAX_CALLS + 1]);
    expect(calls.map((c) => c.result).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      answers.map((a) => a.body).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    // The limit still holds for the next call.
    expect(
      await dispatchJson(attempt, { tool: "billing__get_invoice_slowly", arguments: { invoice_id: "INV-after" } }),
    ).toEqual({
      status: 429,
      body: {
        error: {
          code: "call_limit",
          message: `this attempt has made the most calls one attempt may make (${MAX_CALLS})`,
          details: { limit: MAX_CALLS },
        },
      },
    });
  });

  it("a release while a real call is out loses nothing: the call is answered, recorded and reaches D1", async () => {
    const { attempt, invoice, answers } = await releasedWhileOut(false);
    expect(answers).toEqual([{ status: 200, body: invoiceAnswer(invoice) }]);
    expect(await sentTo(`/delayed/${invoice}`)).toEqual([`GET /delayed/${invoice}`]);
    // Recorded after the release's flush: the object's alarm still copies it to D1.
    expect(await runDurableObjectAlarm(stubOf(attempt))).toBe(true);
    expect(await inD1(attempt)).toEqual([{ seq: 1, call_id: "c-1", result: answers[0]?.body }]);
  });

  it("a release while a repeat of a call_id waits for its real answer cuts neither off", async () => {
    const { attempt, invoice, answers } = await releasedWhileOut(true);
    expect(answers).toEqual([
      { status: 200, body: invoiceAnswer(invoice) },
      { status: 200, body: answers[0]?.body },
    ]);
    expect(await sentTo(`/delayed/${invoice}`)).toEqual([`GET /delayed/${invoice}`]);
    expect(await runDurableObjectAlarm(stubOf(attempt))).toBe(true);
    expect(await inD1(attempt)).toEqual([{ seq: 1, call_id: "c-1", result: answers[0]?.body }]);
  });

  it("an object reset while a real call is out (a deploy does that) still records the call's answer", async () => {
    const { attempt, invoice } = await slowAttempt("reset");
    const out = dispatchJson(attempt, {
      tool: "billing__get_invoice_slowly",
      call_id: "c-1",
      arguments: { invoice_id: invoice },
    });
    await waitFor(async () => (await sentTo(`/delayed/${invoice}`)).length === 1);
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
      setTimeout(() => state.abort("reset while the call is out"), 0);
    });
    const answered = await out;
    expect(answered).toEqual({ status: 200, body: invoiceAnswer(invoice) });
    expect((await evidence(attempt)).map((c) => ({ seq: c.seq, call_id: c.call_id, result: c.result }))).toEqual([
      { seq: 1, call_id: "c-1", result: answered.body },
    ]);
  });

  /** Sends a slow real call (and, with `repeat`, its call_id again, waiting), releases the attempt meanwhile, and collects the answers. */
  async function releasedWhileOut(repeat: boolean) {
    const { attempt, invoice } = await slowAttempt("release");
    const body = { tool: "billing__get_invoice_slowly", call_id: "c-1", arguments: { invoice_id: invoice } };
    const pending = [dispatchJson(attempt, body)];
    await waitFor(async () => (await sentTo(`/delayed/${invoice}`)).length === 1);
    if (repeat) {
      pending.push(dispatchJson(attempt, body));
      await waitFor(() =>
        runInDurableObject<AttemptObject, boolean>(stubOf(attempt), (instance) => {
          const waiting: unknown = Reflect.get(instance, "waiting");
          return waiting instanceof ForwardWaiters && waiting.busy();
        }),
      );
    }
    // The eval consumer releases an attempt once its repetition is recorded; here, while the call is out.
    const released = await runInDurableObject<AttemptObject, unknown>(stubOf(attempt), (instance, state) => {
      const setup: unknown = JSON.parse(String(state.storage.sql.exec(`SELECT setup FROM attempt_setup`).one().setup));
      const tokenHash =
        typeof setup === "object" && setup !== null && "token_hash" in setup ? String(setup.token_hash) : "";
      return instance.release(tokenHash);
    });
    expect(released).toEqual({ kind: "released", last_seq: 0 });
    return { attempt, invoice, answers: await Promise.all(pending) };
  }

  function invoiceAnswer(invoice: string) {
    return {
      invoice_id: invoice,
      status: "open",
      amount: 120.5,
      fetched_at: expect.any(String),
      request_id: expect.stringMatching(/^req-\d+$/),
    };
  }

  async function inD1(attempt: Pick<CreatedAttempt, "id">): Promise<unknown[]> {
    const rows = await env.DB.prepare(`SELECT seq, call_id, result FROM attempt_calls WHERE attempt_id = ?`)
      .bind(attempt.id)
      .all();
    return rows.results.map((r) => ({ ...r, result: JSON.parse(String(r.result)) }));
  }

  it("an attempt read back from D1 after its object is retired shows the same view as the live object did, real-call figures included", async () => {
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    expect(
      (await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-1" } })).status,
    ).toBe(200);
    expect(
      (await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-BAD" } })).status,
    ).toBe(200);
    expect(
      (await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice: "INV-1" } })).status,
    ).toBe(422);
    await retire(attempt);
    // Past its lease, read by the live object: the view the retired attempt must keep.
    const live = await readAttempt(attempt, tenant.key);
    expect(live).toEqual({
      status: 200,
      body: {
        id: attempt.id,
        simulation_id: simulation.id,
        status: "expired",
        may_pass: false,
        state: { billing: {} },
        calls: 3,
        tool_input_errors: 1,
        harness_errors: 0,
        real_calls: 2,
        contract_violations: 1,
        expires_at: expect.any(String),
        lease_ended: true,
        completion: null,
      },
    });
    expect(await runDurableObjectAlarm(stubOf(attempt))).toBe(true);
    expect(
      await runInDurableObject<AttemptObject, boolean>(
        stubOf(attempt),
        (_instance, state) =>
          state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE name = 'attempt'`).toArray().length > 0,
      ),
    ).toBe(false);
    expect(await readAttempt(attempt, tenant.key)).toEqual(live);
  });

  it("a damaged upstream record leaves the call a real one without figures, and neither read fails", async () => {
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    const got = await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-BAD" } });
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
      state.storage.sql.exec(`UPDATE calls SET upstream = '{"status":'`);
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 1, real_calls: 1, contract_violations: 0 });
    const calls = await evidence(attempt);
    // No upstream key at all: the record cannot be read.
    expect(calls).toEqual([
      realEvidence({ arguments: { invoice_id: "INV-BAD" }, result: got.body, upstream: undefined }),
    ]);
    expect(calls[0]).not.toHaveProperty("upstream");
    // D1 got the same damaged text: counted alike there.
    await retire(attempt);
    const live = await readAttempt(attempt, tenant.key);
    expect(await runDurableObjectAlarm(stubOf(attempt))).toBe(true);
    expect(await readAttempt(attempt, tenant.key)).toEqual(live);
    expect(live.body).toMatchObject({ real_calls: 1, contract_violations: 0 });
  });

  it("an attempt without real operations shows no real-call figures from D1 either", async () => {
    const simulation = await realSimulation(tenant, { tools: [{ inline: counterTool }] });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    expect((await dispatchJson(attempt, { tool: "counter", arguments: { n: 4 } })).status).toBe(200);
    await retire(attempt);
    const live = await readAttempt(attempt, tenant.key);
    expect(Object.keys(live.body)).not.toContain("real_calls");
    expect(await runDurableObjectAlarm(stubOf(attempt))).toBe(true);
    expect(await readAttempt(attempt, tenant.key)).toEqual(live);
  });
});

/** Moves the attempt's lease (in its object and in D1) to long before the retention time, so the next alarm flushes and retires it. */
async function retire(attempt: Pick<CreatedAttempt, "id">): Promise<void> {
  const longAgo = Date.now() - RETENTION_MS - 1000;
  await runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
    state.storage.sql.exec(`UPDATE attempt SET expires_at = ?`, longAgo);
    Reflect.set(_instance, "live", undefined);
  });
  await env.DB.prepare(`UPDATE attempts SET expires_at = ? WHERE id = ?`)
    .bind(new Date(longAgo).toISOString(), attempt.id)
    .run();
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("waited 2 s for a condition that never held");
}

describe("real-tools refusals", () => {
  let tenant: TestTenant;
  let tool: Awaited<ReturnType<typeof registered>>;
  beforeAll(async () => {
    tenant = await newTenant();
    tool = await registered(tenant, billingTool);
  });

  it("refuses real mode to a key without AIManager:RunRealTools, even an admin key", async () => {
    const admin = await keyWith(tenant.id, ["AIManager:Admin", "AIManager:RunEvals", "AIManager:ManageTools"]);
    const refused = await answer(
      await call("POST", "/api/simulations", { key: admin, body: { tools: [{ tool_id: tool.id, mode: "real" }] } }),
    );
    expect(refused).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message:
            "/tools/0/mode: this API key lacks the permission AIManager:RunRealTools, which real mode needs (it is never implied, not even by AIManager:Admin)",
          details: {
            required_permission: "AIManager:RunRealTools",
            problems: [
              {
                path: "/tools/0/mode",
                message:
                  "real mode needs the permission AIManager:RunRealTools, which no key has unless an admin grants it",
              },
            ],
          },
        },
      },
    });
  });

  it("refuses a tool without an upstream, then a host off the allowlist, naming the entry", async () => {
    const none = await answer(
      await call("POST", "/api/simulations", {
        key: tenant.key,
        body: { tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }] },
      }),
    );
    const message = `tool "billing" declares no real handler: PUT /api/tools/${tool.id}/upstream first`;
    expect(none).toEqual({
      status: 409,
      body: {
        error: {
          code: "upstream_not_configured",
          message: `/tools/0/mode: ${message}`,
          details: { problems: [{ path: "/tools/0/mode", message }] },
        },
      },
    });

    expect(
      (await call("PUT", `/api/tools/${tool.id}/upstream`, { key: tenant.key, body: httpUpstream() })).status,
    ).toBe(200);
    const offList = await answer(
      await call("POST", "/api/simulations", {
        key: tenant.key,
        body: { tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }] },
      }),
    );
    const host =
      "the host 127.0.0.1 is not on this tenant's upstream allowlist: an admin adds it with PUT /api/upstream-hosts";
    expect(offList).toEqual({
      status: 403,
      body: {
        error: {
          code: "upstream_not_allowed",
          message: `/tools/0/mode: ${host}`,
          details: { problems: [{ path: "/tools/0/mode", message: host }] },
        },
      },
    });
  });

  it("refuses private, link-local and every other special-purpose upstream address, whatever its spelling, even on a local instance", async () => {
    for (const [address, kind] of [
      ["http://10.1.2.3", "a private"],
      ["http://169.254.169.254", "a link-local"],
      ["http://[fd00::1]", "a private"],
      ["http://[64:ff9b::169.254.169.254]", "a NAT64 (64:ff9b::/96, 64:ff9b:1::/48)"],
      ["http://[2002:a9fe:a9fe::1]", "a 6to4 (2002::/16)"],
      ["http://[::169.254.169.254]", "an IPv4-compatible (::/96, deprecated)"],
      ["http://[::ffff:0:a9fe:a9fe]", "an IPv4-translated (SIIT, ::ffff:0:0:0/96)"],
      ["http://[fec0::1]", "a site-local (fec0::/10)"],
      ["http://255.255.255.255", "a broadcast (255.255.255.255)"],
      ["http://224.0.0.1", "a multicast (224.0.0.0/4)"],
      ["http://198.18.0.1", "a reserved (IETF protocol assignments, documentation, benchmarking or future use)"],
      ["http://2852039166", "a link-local"],
      ["http://0xa9.0376.43518", "a link-local"],
    ] as const) {
      const refused = await answer(
        await call("PUT", `/api/tools/${tool.id}/upstream`, {
          key: tenant.key,
          body: httpUpstream({ base_url: address }),
        }),
      );
      const host = new URL(address).hostname;
      const message = `the host ${host} is ${kind} address, which a deployed instance never calls`;
      expect(refused).toEqual({
        status: 403,
        body: {
          error: {
            code: "upstream_not_allowed",
            message: `/base_url: ${message}`,
            details: { problems: [{ path: "/base_url", message }] },
          },
        },
      });
    }
  });

  it("refuses allowlist entries no URL's host can ever equal, naming the entry and its spelling in a URL", async () => {
    // The URL parser reads 127.1 as 127.0.0.1, so the entry "127.1" could never match a request's host.
    const refused = await answer(
      await call("PUT", "/api/upstream-hosts", {
        key: tenant.key,
        body: { hosts: ["api.example.com", "127.1", "0x7f.0.0.1", "0:0:0:0:0:0:0:1", "example.123"] },
      }),
    );
    const problems = [
      {
        path: "/hosts/1",
        message:
          'the URL parser reads "127.1" as 127.0.0.1, and the allowlist compares hosts as URLs spell them: write "127.0.0.1"',
      },
      {
        path: "/hosts/2",
        message:
          'the URL parser reads "0x7f.0.0.1" as 127.0.0.1, and the allowlist compares hosts as URLs spell them: write "127.0.0.1"',
      },
      {
        path: "/hosts/3",
        message:
          'the URL parser reads "0:0:0:0:0:0:0:1" as ::1, and the allowlist compares hosts as URLs spell them: write "::1"',
      },
      {
        path: "/hosts/4",
        message:
          '"example.123" can never be the host of a URL: a name whose last label is a number is read as an IPv4 address, and this one is not one',
      },
    ];
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `${problems[0]?.path}: ${problems[0]?.message} (and 3 more problems)`,
          details: { problems },
        },
      },
    });
    expect(await answer(await call("GET", "/api/upstream-hosts", { key: tenant.key }))).toMatchObject({ status: 200 });
    await allowHosts(tenant, ["127.0.0.1", "::1", "api.example.com"]);
  });

  it("refuses a real write whose upstream does not set allow_writes", async () => {
    await allowHosts(tenant, ["127.0.0.1"]);
    const ops = httpUpstream().operations;
    const put = await call("PUT", `/api/tools/${tool.id}/upstream`, {
      key: tenant.key,
      body: httpUpstream({
        operations: { ...ops, place_hold: { method: "POST", path: "/invoices/{invoice_id}/hold" } },
      }),
    });
    expect(put.status).toBe(200);
    const policy = await call("PUT", "/api/policies/billing-policy", {
      key: tenant.key,
      body: { write_verbs: ["place_"], tools: { billing__get_invoice: "always_require" } },
    });
    expect(policy.status).toBeLessThan(300);
    const refused = await answer(
      await call("POST", "/api/simulations", {
        key: tenant.key,
        body: {
          tools: [
            { tool_id: tool.id, operation_id: "place_hold", mode: "real" },
            { tool_id: tool.id, operation_id: "get_invoice", mode: "real" },
          ],
          policy: "billing-policy",
        },
      }),
    );
    const hold =
      '"place_hold" starts with the write verb "place_", so a real call could change a real system: set allow_writes: true on operation "place_hold" of the tool\'s upstream to allow it';
    const lookup =
      'the policy says "billing__get_invoice" must always require approval, so a real call could change a real system: set allow_writes: true on operation "get_invoice" of the tool\'s upstream to allow it';
    expect(refused).toEqual({
      status: 403,
      body: {
        error: {
          code: "real_write_not_allowed",
          message: `/tools/0/mode: ${hold} (and 1 more)`,
          details: {
            problems: [
              { path: "/tools/0/mode", message: hold },
              { path: "/tools/1/mode", message: lookup },
            ],
          },
        },
      },
    });
  });

  it("refuses a max_body_bytes larger than one call's evidence can hold, naming the field", async () => {
    // The upstream's bound is the evidence row's: an answer past it could be read but never given.
    expect(UPSTREAM_LIMITS.maxBodyBytes).toBe(MAX_EVIDENCE_ROW_BYTES);
    const refused = await answer(
      await call("PUT", `/api/tools/${tool.id}/upstream`, {
        key: tenant.key,
        body: httpUpstream({ max_body_bytes: 4 * 1024 * 1024 }),
      }),
    );
    const message =
      "expected at most 1900000: one call's evidence, the answer included, must fit one row of the attempt's storage and of D1";
    expect(refused).toEqual(invalidAnswer({ path: "/max_body_bytes", message }));
  });

  it("refuses an upstream field of the other kind and an operation the tool does not have", async () => {
    const refused = await answer(
      await call("PUT", `/api/tools/${tool.id}/upstream`, {
        key: tenant.key,
        body: { mcp_url: UP.url, operations: { nope: { method: "GET", path: "/x" } } },
      }),
    );
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: "/mcp_url: an http tool declares base_url, not mcp_url (and 2 more problems)",
          details: {
            problems: [
              { path: "/mcp_url", message: "an http tool declares base_url, not mcp_url" },
              { path: "/base_url", message: "required: the real handler's base URL" },
              {
                path: "/operations/nope",
                message:
                  'the tool has no operation "nope" (it has get_invoice, place_hold, slow, big, get_invoice_slowly)',
              },
            ],
          },
        },
      },
    });
  });

  it("refuses credentials holding CR, LF or NUL, which no header can carry, naming each, and keeps the stored upstream", async () => {
    // Each becomes a header of every real call: stored, it failed every call as "Invalid header value".
    const put = async (body: unknown) =>
      answer(await call("PUT", `/api/tools/${tool.id}/upstream`, { key: tenant.key, body }));
    const read = async () => answer(await call("GET", `/api/tools/${tool.id}/upstream`, { key: tenant.key }));
    expect((await put(httpUpstream())).status).toBe(200);
    const before = await read();
    expect(before).toMatchObject({
      status: 200,
      body: { credentials_set: true, credential_headers: ["authorization"] },
    });

    const why = "cannot contain CR, LF or NUL: it is sent as an HTTP header value, which cannot hold them";
    expect(await put(httpUpstream({ credentials: { bearer: "a\r\nX-Evil: 1" } }))).toEqual(
      invalidAnswer({ path: "/credentials/bearer", message: why }),
    );
    expect(
      await put(httpUpstream({ credentials: { headers: { "x-k": "a\r\nb", "x-ok": "fine", "x-nul": "a\0b" } } })),
    ).toEqual(
      invalidAnswer(
        { path: "/credentials/headers/x-k", message: why },
        { path: "/credentials/headers/x-nul", message: why },
      ),
    );
    expect(await put(httpUpstream({ credentials: { bearer: "ok\n", headers: { "x-lf": "\n" } } }))).toEqual(
      invalidAnswer({ path: "/credentials/bearer", message: why }, { path: "/credentials/headers/x-lf", message: why }),
    );
    expect(await read()).toEqual(before);
  });
});

describe("real-tools credentials echoed by the upstream", () => {
  it("are blanked, in every common spelling, from what the agent receives, the object's SQLite and D1's evidence", async () => {
    const tenant = await newTenant();
    const echoer = await registered(tenant, {
      name: "echoer",
      description: "An upstream that echoes what it was sent.",
      kind: "http",
      operations: [
        {
          operation_id: "echo_credentials",
          description: "Echo the request's credentials.",
          input_schema: { type: "object" },
          output_schema: true,
        },
      ],
    });
    const put = await call("PUT", `/api/tools/${echoer.id}/upstream`, {
      key: tenant.key,
      body: {
        base_url: UP.url,
        operations: { echo_credentials: { method: "GET", path: "/echo-credentials" } },
        credentials: { bearer: "real-secret-token-42", headers: { "x-api-key": "key-VALUE-0042" } },
      },
    });
    expect(put.status).toBe(200);
    await allowHosts(tenant, ["127.0.0.1"]);
    const simulation = await realSimulation(tenant, { tools: [{ tool_id: echoer.id, mode: "real" }] });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    const blanked = {
      authorization: "[redacted]",
      authorization_b64: "[redacted]",
      token_url: "[redacted]",
      token_upper: "[redacted]",
      "[redacted]": "a key as a member name",
      api_key_b64url: "[redacted]",
      plain: "nothing secret here",
    };
    expect(await dispatchJson(attempt, { tool: "echoer", arguments: {} })).toEqual({ status: 200, body: blanked });
    const stored = await runInDurableObject<AttemptObject, unknown[]>(stubOf(attempt), (_instance, state) =>
      state.storage.sql.exec(`SELECT result FROM calls`).toArray(),
    );
    expect(stored).toEqual([{ result: JSON.stringify(blanked) }]);
    // Reading the evidence flushes it to D1 first.
    expect((await evidence(attempt)).map((row) => row.result)).toEqual([blanked]);
    const fromD1 = await env.DB.prepare(`SELECT result FROM attempt_calls WHERE attempt_id = ?`).bind(attempt.id).all();
    expect(fromD1.results).toEqual([{ result: JSON.stringify(blanked) }]);
    // The upstream did get the credentials.
    const sent = (await UP.requests()).filter((r) => r.path === "/echo-credentials").at(-1);
    expect([sent?.headers.authorization, sent?.headers["x-api-key"]]).toEqual([
      "Bearer real-secret-token-42",
      "key-VALUE-0042",
    ]);
  });
});

describe("real-tools runs over MCP", () => {
  it("forwards tools/call to the upstream MCP server, over toolproof's own MCP endpoint too", async () => {
    const tenant = await newTenant();
    const tool = await registered(tenant, weatherTool);
    expect(
      (
        await call("PUT", `/api/tools/${tool.id}/upstream`, {
          key: tenant.key,
          body: { mcp_url: `${UP.url}/mcp`, operations: { get_weather: {} } },
        })
      ).status,
    ).toBe(200);
    await allowHosts(tenant, ["127.0.0.1"]);
    const simulation = await realSimulation(tenant, { tools: [{ tool_id: tool.id, mode: "real" }] });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    expect(await dispatchJson(attempt, { tool: "weather", arguments: { city: "Oslo" } })).toEqual({
      status: 200,
      body: { city: "Oslo", temp_c: 21 },
    });

    const client = new Client(
      { name: "toolproof-test", version: "1.0.0" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    const transport = new StreamableHTTPClientTransport(new URL(attempt.mcp_url), {
      requestInit: { headers: { authorization: `Bearer ${attempt.token}` } },
      fetch: (input, init) => exports.default.fetch(new Request(input, init)),
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "weather", arguments: { city: "Nowhere" } });
      expect(result).toEqual({
        content: [{ type: "text", text: '{"city":"Nowhere","temp_c":"warm"}' }],
        structuredContent: { city: "Nowhere", temp_c: "warm" },
      });
    } finally {
      await client.close();
    }
    const calls = await evidence(attempt);
    expect(calls.map((c) => ({ result: c.result, upstream: (c as { upstream?: unknown }).upstream }))).toEqual([
      {
        result: { city: "Oslo", temp_c: 21 },
        upstream: { status: 200, latency_ms: expect.any(Number), contract_violations: [] },
      },
      {
        result: { city: "Nowhere", temp_c: "warm" },
        upstream: {
          status: 200,
          latency_ms: expect.any(Number),
          contract_violations: [{ path: "/temp_c", message: expect.any(String) }],
        },
      },
    ]);
  });
});

describe("record into a checked mock", () => {
  it("drafts from a real-tools attempt, checks it, and the saved revision answers like the real handler", async () => {
    const tenant = await newTenant();
    const tool = await registered(tenant, billingTool);
    expect(
      (await call("PUT", `/api/tools/${tool.id}/upstream`, { key: tenant.key, body: httpUpstream() })).status,
    ).toBe(200);
    await allowHosts(tenant, ["127.0.0.1"]);
    const simulation = await realSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", mode: "real" }],
    });
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("no attempt");
    const first = await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-1" } });
    const second = await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-2" } });
    await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-1" } });

    const recorded = await answer(
      await call("POST", `/api/tools/${tool.id}/testing`, {
        key: tenant.key,
        body: { action: "record", operation_id: "get_invoice", attempt_ids: [attempt.id] },
      }),
    );
    const hash = tool.operations[0]?.contract_hash;
    expect(recorded).toEqual({
      status: 200,
      body: {
        operation_id: "get_invoice",
        contract_hash: hash,
        definition: {
          schema_version: 1,
          default_variant: "recorded",
          variants: {
            recorded: {
              result: expect.any(Object),
              rules: [
                { when: [{ source: "input", path: "", op: "eq", value: { invoice_id: "INV-1" } }], result: first.body },
                {
                  when: [{ source: "input", path: "", op: "eq", value: { invoice_id: "INV-2" } }],
                  result: second.body,
                },
              ],
            },
          },
          examples: [
            { variant: "recorded", input: { invoice_id: "INV-1" }, expected: first.body },
            { variant: "recorded", input: { invoice_id: "INV-2" }, expected: second.body },
          ],
        },
        report: {
          valid: true,
          errors: [],
          examples: [
            { index: 0, variant: "recorded", passed: true },
            { index: 1, variant: "recorded", passed: true },
          ],
          contract_hash: hash,
        },
        recorded: {
          calls: 3,
          sources: [
            { example: 0, attempt_id: attempt.id, seq: 1, calls: 2 },
            { example: 1, attempt_id: attempt.id, seq: 2, calls: 1 },
          ],
          volatile: [
            { example: 0, path: "/fetched_at", kind: "timestamp", value: expect.any(String) },
            {
              example: 0,
              path: "/fetched_at",
              kind: "differs_between_equal_inputs",
              value: expect.any(String),
              others: [{ attempt_id: attempt.id, seq: 3, value: expect.any(String) }],
            },
            {
              example: 0,
              path: "/request_id",
              kind: "differs_between_equal_inputs",
              value: expect.any(String),
              others: [{ attempt_id: attempt.id, seq: 3, value: expect.any(String) }],
            },
            { example: 1, path: "/fetched_at", kind: "timestamp", value: expect.any(String) },
          ],
          skipped: [],
        },
      },
    });
    // Never saved on its own.
    expect(
      (await answer(await call("GET", `/api/tools/${tool.id}/operations/get_invoice/revisions`, { key: tenant.key })))
        .body,
    ).toEqual({ items: [], next_cursor: null });

    // SAFETY: the answer checked above.
    const draft = (recorded.body as { definition: unknown }).definition;
    const saved = await answer(
      await call("POST", `/api/tools/${tool.id}/testing`, {
        key: tenant.key,
        body: { action: "save", operation_id: "get_invoice", contract_hash: hash, definition: draft },
      }),
    );
    expect(saved).toEqual({
      status: 201,
      body: {
        operation_id: "get_invoice",
        revision: 1,
        contract_hash: hash,
        created_at: expect.any(String),
        created_by: tenant.keyId,
      },
    });
    const mock = await realSimulation(tenant, { tools: [{ tool_id: tool.id, operation_id: "get_invoice" }] });
    const mocked = mock.attempts[0];
    if (!mocked) throw new Error("no attempt");
    expect(await dispatchJson(mocked, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-2" } })).toEqual({
      status: 200,
      body: second.body,
    });
  });

  it("refuses an attempt that did not run the operation for real, another tenant's, and one that does not exist", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const tool = await registered(tenant, billingTool);
    const mine = await realSimulation(tenant, { tools: [{ inline: counterTool }] });
    const theirs = await realSimulation(other, { tools: [{ inline: counterTool }] });
    const ids = [mine.attempts[0]?.id, theirs.attempts[0]?.id, "att_nope"];
    const refused = await answer(
      await call("POST", `/api/tools/${tool.id}/testing`, {
        key: tenant.key,
        body: { action: "record", operation_id: "get_invoice", attempt_ids: ids },
      }),
    );
    const problems = [
      {
        path: "/attempt_ids/0",
        message: `attempt "${ids[0]}" did not run operation "get_invoice" of this tool in real mode, so it recorded no real answers of it`,
      },
      { path: "/attempt_ids/1", message: `no attempt "${ids[1]}"` },
      { path: "/attempt_ids/2", message: 'no attempt "att_nope"' },
    ];
    expect(refused).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: `/attempt_ids/0: ${problems[0]?.message}`, details: { problems } } },
    });
  });
});
