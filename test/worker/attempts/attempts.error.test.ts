import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool, placeOnHoldDefinition } from "../../fixtures/invoice-tools.js";
import type { AttemptObject } from "../../../src/worker/attempts/object.js";
import { RETENTION_MS } from "../../../src/worker/attempts/lifetimes.js";
import { call, newTenant } from "../helpers.js";
import { seedDataset } from "../datasets/seed-dataset.js";
import { inlineBlobsTool } from "../../fixtures/blob-tools.js";
import {
  counterTool,
  createSimulation,
  dispatch,
  dispatchJson,
  evidence,
  ledgerTool,
  libraryTool,
  readAttempt,
  stubOf,
  type CreatedAttempt,
  completionTooLarge,
} from "../simulation-helpers.js";

const tenantPromise = newTenant();

/** A fresh attempt with the ledger, the counter and one of the two invoice operations pinned. */
async function freshAttempt(): Promise<CreatedAttempt> {
  const tenant = await tenantPromise;
  const tool = await libraryTool(
    tenant,
    { ...invoiceTool, name: `invoices_${crypto.randomUUID().slice(0, 8)}` },
    { get_invoice: getInvoiceDefinition },
  );
  const simulation = await createSimulation(tenant, {
    tools: [{ inline: ledgerTool }, { inline: counterTool }, { tool_id: tool.id, operation_id: "get_invoice" }],
  });
  const [attempt] = simulation.attempts;
  if (!attempt) throw new Error("no attempt");
  return { ...attempt, tool_name: tool.id } as CreatedAttempt & { tool_name: string };
}

/** The answer to a call after which the attempt's state would be `bytes` in its D1 row. */
function stateTooLarge(bytes: number) {
  return {
    status: 500,
    body: {
      error: {
        code: "harness_error",
        kind: "state_too_large",
        message: `the attempt's state, every tool's together as its D1 row keeps it, would be ${bytes} bytes after this call; the state and the agent's completion may be at most 1900000 bytes together: the call changed nothing`,
        details: [],
      },
    },
  };
}

const toolInputError = { code: "tool_input_error", message: expect.any(String), details: expect.any(Array) };

describe("the error table over HTTP: tool input errors (422, the agent's to recover from)", () => {
  it.each([
    ["arguments that fail the input schema", { tool: "counter", arguments: { n: "three" } }],
    ["a bad caller value in $number", { tool: "ledger", arguments: { mode: "amount", amount: "1e3" } }],
    ["a bad caller value in $dateAdd", { tool: "ledger", arguments: { mode: "date", date: "next tuesday" } }],
  ])("%s", async (_name, body) => {
    const attempt = await freshAttempt();
    const answer = await dispatchJson(attempt, body);
    expect(answer).toEqual({ status: 422, body: { error: toolInputError } });
    // Recorded, counted, state untouched, and the attempt may still pass.
    expect((await readAttempt(attempt)).body).toMatchObject({
      status: "active",
      may_pass: true,
      calls: 1,
      tool_input_errors: 1,
      harness_errors: 0,
      state: { counter: { last: 0 }, ledger: { label: "abc" } },
    });
    expect((await evidence(attempt)).map((c) => ({ outcome: c.outcome, error: c.error }))).toEqual([
      { outcome: "tool_input_error", error: toolInputError },
    ]);
  });
});

describe("the error table over HTTP: harness errors (5xx, attempt marked harness_failed)", () => {
  it.each([
    ["unknown_tool", "an unknown tool (fail closed)", () => ({ tool: "payments", arguments: { amount: 1 } })],
    [
      "unknown_operation",
      "an operation the tool does not have",
      (a: { tool_name: string }) => ({ tool: a.tool_name, operation_id: "refund", arguments: {} }),
    ],
    [
      "missing_definition",
      "an operation of the tool that was not pinned",
      (a: { tool_name: string }) => ({ tool: a.tool_name, operation_id: "place_invoice_on_hold", arguments: {} }),
    ],
    [
      "missing_reference",
      "a reference the state does not have",
      () => ({ tool: "ledger", arguments: { mode: "missing" } }),
    ],
    [
      "bad_literal",
      "a bad value in an expression from the fixture",
      () => ({ tool: "ledger", arguments: { mode: "literal" } }),
    ],
    [
      "output_schema",
      "a rendered result that fails the output schema",
      () => ({ tool: "ledger", arguments: { mode: "bad_output" } }),
    ],
  ])("%s: %s", async (kind, _name, body) => {
    const attempt = await freshAttempt();
    const answer = await dispatchJson(attempt, body(attempt as CreatedAttempt & { tool_name: string }));
    expect(answer).toEqual({
      status: 500,
      body: { error: { code: "harness_error", kind, message: expect.any(String), details: expect.any(Array) } },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({
      status: "harness_failed",
      may_pass: false,
      calls: 1,
      tool_input_errors: 0,
      harness_errors: 1,
    });
    // Sticky: a later good call and the agent completing do not clear it.
    expect((await dispatchJson(attempt, { tool: "counter", arguments: { n: 1 } })).status).toBe(200);
    await call("POST", `/api/attempts/${attempt.id}/complete`, { key: attempt.token, body: { output: "done" } });
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "harness_failed", may_pass: false });
    expect((await evidence(attempt))[0]).toMatchObject({
      outcome: "harness_error",
      error: { code: "harness_error", kind },
    });
  });

  it("evidence_too_large: a call whose evidence one stored row could not hold changes nothing and is recorded as the harness's failure", async () => {
    // Each call keeps a 240,000-character blob in the tool's state; the evidence of a call holds
    // the state before and after it. Miniflare's storage takes any size, a deployed one 2 MB a row.
    const tenant = await tenantPromise;
    const [attempt] = (await createSimulation(tenant, { tools: [{ inline: inlineBlobsTool("blobs") }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    const keep = (key: string) =>
      dispatchJson(attempt, { tool: "blobs", arguments: { key, data: key.repeat(80_000) } });
    // States of 0.24, 0.48 and 0.72 MB: the evidence of each of these calls is at most 1.44 MB.
    for (const key of ["abc", "def", "ghi"]) expect(await keep(key)).toEqual({ status: 200, body: {} });
    const answer = await keep("jkl");
    expect(answer).toEqual({
      status: 500,
      body: {
        error: {
          code: "harness_error",
          kind: "evidence_too_large",
          message:
            "the call's evidence (its arguments, its result and the tool's state before and after it) would be 1920213 bytes; one call's evidence may be at most 1900000 bytes, a row of the attempt's storage and of D1: the call changed nothing",
          details: [],
        },
      },
    });
    const state = await call("GET", `/api/attempts/${attempt.id}/state?tool=blobs&pointer=/blobs`, {
      key: attempt.token,
    });
    expect(Object.keys(((await state.json()) as { value: Record<string, string> }).value)).toEqual([
      "abc",
      "def",
      "ghi",
    ]);
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "harness_failed", calls: 4, harness_errors: 1 });
    expect((await evidence(attempt)).map((row) => [row.outcome, row.error?.kind ?? null])).toEqual([
      ["result", null],
      ["result", null],
      ["result", null],
      ["harness_error", "evidence_too_large"],
    ]);
  });

  it("state_too_large: a call after which every tool's state together would not fit the attempt's D1 row changes nothing and is recorded as the harness's failure", async () => {
    // Three tools without a dataset, each keeping three blobs of 230,000 characters (a dispatch
    // body is at most 256 KB): each call's evidence fits (at most 1.15 MB), but the flush copies
    // every tool's state into one D1 row, which a deployed D1 refuses past 2 MB (the copy would
    // then fail at every retry); Miniflare's D1 takes any size.
    const tenant = await tenantPromise;
    const tools = ["blobs_a", "blobs_b", "blobs_c"];
    const [attempt] = (
      await createSimulation(tenant, { tools: tools.map((name) => ({ inline: inlineBlobsTool(name) })) })
    ).attempts;
    if (!attempt) throw new Error("no attempt");
    const data = "x".repeat(230_000);
    const full = { k1: data, k2: data, k3: data };
    const keep = (tool: string, key: string) => dispatchJson(attempt, { tool, arguments: { key, data } });
    for (const tool of ["blobs_a", "blobs_b"])
      for (const key of Object.keys(full)) expect(await keep(tool, key)).toEqual({ status: 200, body: {} });
    expect(await keep("blobs_c", "k1")).toEqual({ status: 200, body: {} });
    expect(await keep("blobs_c", "k2")).toEqual({ status: 200, body: {} });
    // 2.07 MB with the third blob of the third tool.
    const bytes = JSON.stringify({
      blobs_a: { blobs: full },
      blobs_b: { blobs: full },
      blobs_c: { blobs: full },
    }).length;
    expect(await keep("blobs_c", "k3")).toEqual(stateTooLarge(bytes));
    expect((await readAttempt(attempt)).body).toMatchObject({
      status: "harness_failed",
      calls: 9,
      harness_errors: 1,
      state: { blobs_a: { blobs: full }, blobs_b: { blobs: full }, blobs_c: { blobs: { k1: data, k2: data } } },
    });
    expect((await evidence(attempt)).map((row) => [row.outcome, row.error?.kind ?? null])).toEqual([
      ...Array.from({ length: 8 }, () => ["result", null]),
      ["harness_error", "state_too_large"],
    ]);
  });

  it("state_too_large for a dataset tool: the records an attempt changed count once each, however often a call rewrites them", async () => {
    const tenant = await tenantPromise;
    const pin = await seedDataset(tenant, `notes_${crypto.randomUUID().slice(0, 8)}`, {
      notes: { seed: { text: "s" } },
    });
    const name = `notes_${crypto.randomUUID().slice(0, 8)}`;
    const noteInput = {
      type: "object",
      properties: { key: { type: "string" }, data: { type: "string" } },
      required: ["key", "data"],
      additionalProperties: false,
    };
    const tool = await libraryTool(
      tenant,
      {
        name,
        description: "Notes keyed by id.",
        kind: "http",
        operations: [
          {
            operation_id: "keep",
            description: "Keep a note's text.",
            input_schema: noteInput,
            output_schema: { type: "object" },
          },
        ],
      },
      {
        keep: {
          schema_version: 2,
          default_variant: "keep",
          variants: {
            keep: {
              result: {},
              set_state: [{ set: ["notes", { $input: "key" }], value: { text: { $input: "data" } } }],
            },
          },
          examples: [{ variant: "keep", input: { key: "a", data: "x" }, state: { notes: {} }, expected: {} }],
        },
      },
    );
    const [attempt] = (
      await createSimulation(tenant, {
        tools: [{ tool_id: tool.id, dataset: { name: pin.name, version: pin.version } }],
      })
    ).attempts;
    if (!attempt) throw new Error("no attempt");
    const data = "y".repeat(240_000);
    const keep = (key: string) => dispatchJson(attempt, { tool: name, arguments: { key, data } });
    // Five writes of one record: the state lists its latest value once (0.24 MB), so all are taken.
    for (let i = 0; i < 5; i++) expect(await keep("a")).toEqual({ status: 200, body: {} });
    for (const key of ["b", "c", "d", "e", "f", "g"]) expect(await keep(key)).toEqual({ status: 200, body: {} });
    const before = (await readAttempt(attempt)).body.state;
    // The object is reset first (a deploy or an eviction does that): what the attempt changed is
    // read back from its storage, and weighed with the next call.
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
      setTimeout(() => state.abort("reset before the eighth record"), 0);
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The eighth record would bring the listed changes to 1.92 MB: one more entry in the list.
    const bytes =
      JSON.stringify(before).length + JSON.stringify({ pointer: "/notes/h", value: { text: data } }).length + 1;
    expect(await keep("h")).toEqual(stateTooLarge(bytes));
    const after = (await readAttempt(attempt)).body;
    expect(after).toMatchObject({ status: "harness_failed", calls: 12, harness_errors: 1 });
    expect(after.state).toEqual(before);
  });

  it("a completion that would not fit the attempt's D1 row beside its state is refused (413) and nothing is stored; a shorter one completes", async () => {
    const tenant = await tenantPromise;
    const [attempt] = (
      await createSimulation(tenant, {
        tools: [{ inline: inlineBlobsTool("blobs_a") }, { inline: inlineBlobsTool("blobs_b") }],
      })
    ).attempts;
    if (!attempt) throw new Error("no attempt");
    const data = "x".repeat(230_000);
    const full = { k1: data, k2: data, k3: data };
    for (const tool of ["blobs_a", "blobs_b"])
      for (const key of Object.keys(full))
        expect(await dispatchJson(attempt, { tool, arguments: { key, data } })).toEqual({ status: 200, body: {} });
    const output = "o".repeat(600_000);
    const complete = (body: unknown) =>
      call("POST", `/api/attempts/${attempt.id}/complete`, { key: attempt.token, body }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
      }));
    const stateBytes = JSON.stringify({ blobs_a: { blobs: full }, blobs_b: { blobs: full } }).length;
    // As stored: the body's fields and the time it completed ("2026-12-07T01:53:39.000Z", 24 characters).
    const completionBytes = JSON.stringify({ output, completed_at: "x".repeat(24) }).length;
    const bytes = stateBytes + completionBytes;
    expect(await complete({ output })).toEqual(completionTooLarge(bytes, "output, transcript or metadata"));
    expect((await readAttempt(attempt)).body).toMatchObject({ status: "active", completion: null });
    expect(await complete({ output: "done" })).toMatchObject({ status: 200, body: { status: "completed" } });
  });

  it("unknown_tool names the attempt's function names and the one most likely meant (an operation id given for the function name)", async () => {
    const tenant = await tenantPromise;
    const name = `invoices_${crypto.randomUUID().slice(0, 8)}`;
    const tool = await libraryTool(tenant, { ...invoiceTool, name }, { get_invoice: getInvoiceDefinition });
    const [attempt] = (
      await createSimulation(tenant, {
        tools: [{ inline: counterTool }, { tool_id: tool.id, operation_id: "get_invoice" }],
      })
    ).attempts;
    if (!attempt) throw new Error("no attempt");
    const names = `${name}__get_invoice, counter`;
    const meant = `did you mean "${name}__get_invoice"? `;
    const response = await dispatch(attempt, { tool: "get_invoice", arguments: { invoice_id: "INV-1" } });
    expect({
      status: response.status,
      outcome: response.headers.get("x-toolproof-outcome"),
      body: await response.json(),
    }).toEqual({
      status: 500,
      outcome: "harness_error",
      body: {
        error: {
          code: "harness_error",
          kind: "unknown_tool",
          message: `no tool named "get_invoice" is pinned in this attempt, so the call was not forwarded anywhere; ${meant}the attempt's tools: ${names}`,
          details: [{ path: "/tool", message: `${meant}expected one of: ${names}` }],
        },
      },
    });
    // Still fail closed: recorded as a harness error, and the attempt can no longer pass.
    expect((await readAttempt(attempt)).body).toMatchObject({
      status: "harness_failed",
      may_pass: false,
      harness_errors: 1,
    });
  });

  it("internal: a failure inside the object (here a corrupt state row) is a harness error, not a crash", async () => {
    const attempt = await freshAttempt();
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
      state.storage.sql.exec(`INSERT OR REPLACE INTO state (tool, value) VALUES ('counter', 'not json')`);
    });
    const answer = await dispatchJson(attempt, { tool: "counter", arguments: { n: 1 } });
    expect(answer).toEqual({
      status: 500,
      body: {
        error: {
          code: "harness_error",
          kind: "internal",
          message: expect.stringContaining("internal failure"),
          details: [],
        },
      },
    });
    expect((await readAttempt(attempt, (await tenantPromise).key)).body).toMatchObject({
      status: "harness_failed",
      harness_errors: 1,
    });
  });

  it("lease_expired: the alarm ends the lease; every later call is a harness error and the attempt is expired", async () => {
    const attempt = await freshAttempt();
    const tenant = await tenantPromise;
    expect((await dispatchJson(attempt, { tool: "counter", arguments: { n: 5 } })).status).toBe(200);
    const stub = stubOf(attempt);
    // Move the lease end into the past, as time passing would, then let the alarm notice.
    await runInDurableObject<AttemptObject, void>(stub, (_instance, state) => {
      state.storage.sql.exec(`UPDATE attempt SET expires_at = ?`, Date.now() - 1000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const answer = await dispatchJson(attempt, { tool: "counter", arguments: { n: 6 } });
    expect(answer).toEqual({
      status: 500,
      body: {
        error: {
          code: "harness_error",
          kind: "lease_expired",
          message: "the attempt's lease has ended; no further calls are answered",
          details: [],
        },
      },
    });
    // Alarms may fire twice: running it again changes nothing.
    await runInDurableObject<AttemptObject, void>(stub, async (instance) => {
      await instance.alarm();
      await instance.alarm();
    });
    const view = await readAttempt(attempt, tenant.key);
    expect(view.body).toMatchObject({
      status: "expired",
      may_pass: false,
      lease_ended: true,
      calls: 2,
      harness_errors: 1,
      state: { counter: { last: 5 } },
    });
    const calls = await evidence(attempt, tenant.key);
    expect(calls.map((c) => [c.seq, c.outcome, c.error?.kind ?? null])).toEqual([
      [1, "result", null],
      [2, "harness_error", "lease_expired"],
    ]);
  });
});

/**
 * One call made and copied to D1, then the object's storage deleted from outside (say, a state
 * directory in memory across a reboot) and the object loaded afresh: its in-memory copy is
 * dropped as a reload would drop it.
 */
async function withLostStorage(attempt: CreatedAttempt): Promise<void> {
  await dispatch(attempt, { tool: "counter", arguments: { n: 3 } });
  await evidence(attempt, (await tenantPromise).key);
  await runInDurableObject<AttemptObject, void>(stubOf(attempt), async (instance, state) => {
    await state.storage.deleteAll();
    Reflect.set(instance, "live", undefined);
  });
}

describe("after the attempt object is gone", () => {
  it("evidence and the last state are read from D1", async () => {
    const attempt = await freshAttempt();
    const tenant = await tenantPromise;
    await dispatch(attempt, { tool: "counter", arguments: { n: 9 } });
    await dispatch(attempt, { tool: "ledger", arguments: { mode: "ok" } });
    const stub = stubOf(attempt);
    // Long past the lease and the retention time (in the object and in D1 alike): the alarm
    // flushes, then retires the storage.
    const longAgo = Date.now() - RETENTION_MS - 1000;
    await runInDurableObject<AttemptObject, void>(stub, (_instance, state) => {
      state.storage.sql.exec(`UPDATE attempt SET expires_at = ?`, longAgo);
    });
    await env.DB.prepare(`UPDATE attempts SET expires_at = ? WHERE id = ?`)
      .bind(new Date(longAgo).toISOString(), attempt.id)
      .run();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const tables = await runInDurableObject<AttemptObject, unknown[]>(stub, (_instance, state) =>
      state.storage.sql
        .exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('attempt', 'calls', 'state')`)
        .toArray(),
    );
    expect(tables).toEqual([]);

    expect((await evidence(attempt, tenant.key)).map((c) => ({ seq: c.seq, tool: c.tool, result: c.result }))).toEqual([
      { seq: 1, tool: "counter", result: { previous: 0 } },
      { seq: 2, tool: "ledger", result: { value: "ok" } },
    ]);
    expect((await readAttempt(attempt, tenant.key)).body).toMatchObject({
      status: "expired",
      lease_ended: true,
      calls: 2,
      state: { counter: { last: 9 }, ledger: { label: "abc" } },
    });
    // The token opens nothing any more.
    expect((await dispatch(attempt, { tool: "counter", arguments: { n: 1 } })).status).toBe(401);
  });

  it("an attempt whose object lost its storage during the lease can no longer pass", async () => {
    const attempt = await freshAttempt();
    const tenant = await tenantPromise;
    await withLostStorage(attempt);
    const read = await readAttempt(attempt, tenant.key);
    expect({ status: read.status, body: read.body }).toMatchObject({
      status: 200,
      body: { status: "harness_failed", may_pass: false, lease_ended: true, calls: 1, state: { counter: { last: 3 } } },
    });
    // What each path answers it is below (lost storage answers the same on every path).
  });
});

describe("lost storage answers the same on every path that opens the attempt with its token", () => {
  const lostAnswer = {
    status: 500,
    outcome: "harness_error",
    body: {
      error: {
        code: "harness_error",
        kind: "internal",
        message:
          "this attempt's stored state is gone (its Durable Object storage was lost); the call was not answered or recorded, and the attempt can no longer pass",
        details: [],
      },
    },
  };
  const mcpPost = (attempt: CreatedAttempt, key: string, message: Record<string, unknown>) =>
    call("POST", `/api/attempts/${attempt.id}/mcp`, {
      key,
      body: { jsonrpc: "2.0", id: 1, ...message },
      headers: { accept: "application/json, text/event-stream" },
    });
  const paths: Array<[string, (attempt: CreatedAttempt, key: string) => Promise<Response>]> = [
    ["POST …/dispatch", (attempt, key) => dispatch(attempt, { tool: "counter", arguments: { n: 4 } }, key)],
    [
      "POST …/complete",
      (attempt, key) => call("POST", `/api/attempts/${attempt.id}/complete`, { key, body: { output: "done" } }),
    ],
    [
      "MCP initialize",
      (attempt, key) =>
        mcpPost(attempt, key, {
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
    ],
    ["MCP tools/list", (attempt, key) => mcpPost(attempt, key, { method: "tools/list" })],
    [
      "MCP tools/call",
      (attempt, key) =>
        mcpPost(attempt, key, { method: "tools/call", params: { name: "counter", arguments: { n: 4 } } }),
    ],
  ];

  it.each(paths)(
    "%s: a harness error, and the attempt is marked harness_failed in D1; another token is still refused (401, over MCP 403)",
    async (path, send) => {
      const attempt = await freshAttempt();
      const tenant = await tenantPromise;
      await withLostStorage(attempt);
      const [other] = (await createSimulation(tenant, { tools: [{ inline: counterTool }] })).attempts;
      if (!other) throw new Error("no attempt");
      const stranger = await send(attempt, other.token);
      // MCP answers a refused token with 403: MCP clients start OAuth on a 401 (docs/simulations.md).
      const refusedStatus = path.startsWith("MCP") ? 403 : 401;
      expect({ status: stranger.status, body: await stranger.json() }).toEqual({
        status: refusedStatus,
        body: { error: { code: "unauthorized", message: "this token does not grant access to this attempt" } },
      });
      expect(
        (await env.DB.prepare(`SELECT status FROM attempts WHERE id = ?`).bind(attempt.id).first<{ status: string }>())
          ?.status,
      ).toBe("active");

      const lost = await send(attempt, attempt.token);
      expect({
        status: lost.status,
        outcome: lost.headers.get("x-toolproof-outcome"),
        body: await lost.json(),
      }).toEqual(lostAnswer);
      expect(
        await env.DB.prepare(`SELECT status FROM attempts WHERE id = ?`).bind(attempt.id).first<{ status: string }>(),
      ).toEqual({ status: "harness_failed" });
    },
  );
});

describe("requests that are not calls (never recorded)", () => {
  it.each([
    [
      "no arguments",
      { tool: "counter" },
      400,
      {
        code: "invalid_request",
        message: expect.stringContaining("/arguments"),
        details: { problems: [{ path: "/arguments", message: expect.any(String) }] },
      },
    ],
    [
      "arguments that are not an object",
      { tool: "counter", arguments: [1] },
      400,
      {
        code: "invalid_request",
        message: "/arguments: expected a JSON object",
        details: { problems: [{ path: "/arguments", message: "expected a JSON object" }] },
      },
    ],
    [
      "an unknown field",
      { tool: "counter", arguments: {}, extra: 1 },
      400,
      {
        code: "invalid_request",
        message: '/extra: unknown field "extra"',
        details: { problems: [{ path: "/extra", message: 'unknown field "extra"' }] },
      },
    ],
    [
      "a JSON array",
      [1],
      400,
      {
        code: "invalid_request",
        message: expect.any(String),
        details: { problems: [{ path: "", message: expect.any(String) }] },
      },
    ],
  ])("%s → 400 naming the field", async (_name, body, status, error) => {
    const attempt = await freshAttempt();
    expect(await dispatchJson(attempt, body)).toEqual({ status, body: { error } });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 0, status: "active" });
  });

  it("a tool with several pinned operations and no operation_id → 400 naming operation_id", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_ambiguous" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    const [attempt] = (await createSimulation(tenant, { tools: [{ tool_id: tool.id }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    expect(await dispatchJson(attempt, { tool: "invoices_ambiguous", arguments: {} })).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message:
            '/operation_id: tool "invoices_ambiguous" has several pinned operations (get_invoice, place_invoice_on_hold); name one in operation_id',
          details: {
            problems: [
              {
                path: "/operation_id",
                message:
                  'tool "invoices_ambiguous" has several pinned operations (get_invoice, place_invoice_on_hold); name one in operation_id',
              },
            ],
            operation_ids: ["get_invoice", "place_invoice_on_hold"],
          },
        },
      },
    });
  });

  it("malformed JSON, a wrong content type and an oversized body", async () => {
    const attempt = await freshAttempt();
    const malformed = await call("POST", `/api/attempts/${attempt.id}/dispatch`, {
      key: attempt.token,
      body: "{not json",
    });
    const wrongType = await call("POST", `/api/attempts/${attempt.id}/dispatch`, {
      key: attempt.token,
      body: "{}",
      headers: { "content-type": "text/plain" },
    });
    const huge = await call("POST", `/api/attempts/${attempt.id}/dispatch`, {
      key: attempt.token,
      body: { tool: "counter", arguments: { pad: "x".repeat(300 * 1024) } },
    });
    expect([
      { status: malformed.status, body: await malformed.json() },
      { status: wrongType.status, body: await wrongType.json() },
      { status: huge.status, body: await huge.json() },
    ]).toEqual([
      {
        status: 400,
        body: {
          error: { code: "malformed_json", message: expect.stringMatching(/^the request body is not valid JSON: /) },
        },
      },
      {
        status: 415,
        body: {
          error: {
            code: "unsupported_media_type",
            message: 'expected Content-Type: application/json, got "text/plain"',
          },
        },
      },
      {
        status: 413,
        body: {
          error: {
            code: "payload_too_large",
            message: "the request body exceeds the limit of 262144 bytes",
            details: { limit_bytes: 262144 },
          },
        },
      },
    ]);
  });

  it("a call_id reused for a different call → 409, and nothing changes", async () => {
    const attempt = await freshAttempt();
    await dispatch(attempt, { tool: "counter", arguments: { n: 1 }, call_id: "k" });
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 2 }, call_id: "k" })).toEqual({
      status: 409,
      body: {
        error: {
          code: "call_id_reused",
          message: '/call_id: "k" was already used by call 1 with a different tool or arguments',
          details: { call_id: "k", seq: 1 },
        },
      },
    });
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 1, state: { counter: { last: 1 } } });
  });
});

describe("completion errors", () => {
  it("names the missing output and refuses unknown fields", async () => {
    const attempt = await freshAttempt();
    const response = await call("POST", `/api/attempts/${attempt.id}/complete`, {
      key: attempt.token,
      body: { transcript: "no", extra: 1 },
    });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: expect.any(String),
          details: {
            problems: expect.arrayContaining([
              { path: "/extra", message: 'unknown field "extra"; expected one of: output, transcript, metadata' },
              { path: "/output", message: expect.any(String) },
              { path: "/transcript", message: expect.any(String) },
            ]),
          },
        },
      },
    });
  });
});
