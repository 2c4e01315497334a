/**
 * How evidence reaches D1: on its own once an attempt goes quiet (an in-memory timer, while the
 * object is still loaded), and in statements that carry many rows of any size exactly.
 * The worker test project sets EVIDENCE_IDLE_FLUSH_MS to 50 ms (vitest.config.ts).
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { attemptCalls } from "../../../src/adapters/d1/schema.js";
import { flushableRows, EVIDENCE_FLUSH_BYTES } from "../../../src/adapters/d1/simulations.js";
import { EVIDENCE_COLUMNS, type EvidenceRow } from "../../../src/core/simulation/evidence.js";
import type { AttemptObject } from "../../../src/worker/attempts/object.js";
import { IDLE_FLUSH_MS, idleFlushMs } from "../../../src/worker/attempts/lifetimes.js";
import { call, db, newTenant } from "../helpers.js";
import {
  counterTool,
  createSimulation,
  dispatch,
  evidence,
  stubOf,
  type CreatedAttempt,
} from "../simulation-helpers.js";

const tenantPromise = newTenant();

const echoTool = {
  name: "echo",
  description: "Answer the text it was given.",
  input_schema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  output_schema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  testing: {
    schema_version: 1,
    default_variant: "echo",
    variants: { echo: { result: { text: { $input: "text" } } } },
    examples: [{ variant: "echo", input: { text: "hi" }, expected: { text: "hi" } }],
  },
};

async function attemptWith(tools: unknown[]): Promise<CreatedAttempt> {
  const [attempt] = (await createSimulation(await tenantPromise, { tools, lease_seconds: 600 })).attempts;
  if (!attempt) throw new Error("no attempt");
  return attempt;
}

/** D1's rows for the attempt, read directly (the evidence route would flush first). */
async function rowsInD1(attemptId: string) {
  return db()
    .select()
    .from(attemptCalls)
    .where(eq(attemptCalls.attempt_id, attemptId))
    .orderBy(asc(attemptCalls.seq))
    .all();
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the idle flush", () => {
  it("copies a quiet attempt's evidence to D1 without anyone reading it, then points the alarm at the lease end", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    for (const n of [4, 5, 6])
      expect((await dispatch(attempt, { tool: "counter", arguments: { n } })).status).toBe(200);

    const rows = await waitFor(
      () => rowsInD1(attempt.id),
      (r) => r.length === 3,
    );
    expect(
      rows.map((r) => ({ seq: r.seq, tool: r.tool, arguments: r.arguments, outcome: r.outcome, result: r.result })),
    ).toEqual([
      { seq: 1, tool: "counter", arguments: '{"n":4}', outcome: "result", result: '{"previous":0}' },
      { seq: 2, tool: "counter", arguments: '{"n":5}', outcome: "result", result: '{"previous":4}' },
      { seq: 3, tool: "counter", arguments: '{"n":6}', outcome: "result", result: '{"previous":5}' },
    ]);
    const alarm = await waitFor(
      () =>
        runInDurableObject<AttemptObject, number | null>(stubOf(attempt), (_instance, state) =>
          state.storage.getAlarm(),
        ),
      (at) => at === Date.parse(attempt.expires_at),
    );
    expect(alarm).toBe(Date.parse(attempt.expires_at));
  });

  it("reads its period from EVIDENCE_IDLE_FLUSH_MS, within 10 ms to a minute", () => {
    expect([
      idleFlushMs("50"),
      idleFlushMs(undefined),
      idleFlushMs("5"),
      idleFlushMs("60001"),
      idleFlushMs("1.5"),
      idleFlushMs("soon"),
    ]).toEqual([50, IDLE_FLUSH_MS, IDLE_FLUSH_MS, IDLE_FLUSH_MS, IDLE_FLUSH_MS, IDLE_FLUSH_MS]);
  });
});

describe("flushing many rows at once", () => {
  it("carries every row exactly: odd text, large arguments, tool input errors and harness errors", async () => {
    const attempt = await attemptWith([{ inline: echoTool }]);
    const texts = [
      'quote " backslash \\ slash / newline \n tab \t',
      "unicode: é ß 中文 🚀 \u2028",
      "",
      '{"looks":"like json"}',
      "null",
      ...Array.from({ length: 120 }, (_, i) => `call ${i}`),
      // Four arguments of 150 KB: more than one flush statement's worth (EVIDENCE_FLUSH_BYTES).
      ...Array.from({ length: 4 }, (_, i) => String(i).repeat(150 * 1024)),
    ];
    const sent: Array<{ body: unknown; status: number }> = [];
    // Concurrent, so many rows wait in the object at once and go to D1 together.
    const answers = await Promise.all(
      [
        ...texts.map((text) => ({ tool: "echo", arguments: { text } })),
        { tool: "echo", arguments: {} },
        { tool: "nothing", arguments: {} },
      ].map(async (body) => {
        const response = await dispatch(attempt, body);
        sent.push({ body, status: response.status });
        return {
          seq: Number(response.headers.get("x-toolproof-seq")),
          body,
          status: response.status,
          answer: await response.text(),
        };
      }),
    );
    expect(sent.filter((s) => s.status === 200)).toHaveLength(texts.length);

    const recorded = await evidence(attempt);
    const expected = answers
      .sort((a, b) => a.seq - b.seq)
      .map((a) => {
        const request = a.body as { tool: string; arguments: Record<string, unknown> };
        return {
          seq: a.seq,
          tool: request.tool,
          arguments: request.arguments,
          outcome: a.status === 200 ? "result" : a.status === 422 ? "tool_input_error" : "harness_error",
          answer: a.status === 200 ? JSON.parse(a.answer) : (JSON.parse(a.answer) as { error: unknown }).error,
        };
      });
    expect(
      recorded.map((c) => ({
        seq: c.seq,
        tool: c.tool,
        arguments: c.arguments,
        outcome: c.outcome,
        answer: c.outcome === "result" ? c.result : c.error,
      })),
    ).toEqual(expected);
    expect(recorded.map((c) => c.seq)).toEqual(Array.from({ length: texts.length + 2 }, (_, i) => i + 1));
  });
});

describe("flushableRows", () => {
  const row = (seq: number, size: number): EvidenceRow => ({
    seq,
    call_id: null,
    tool: "echo",
    operation_id: "echo",
    revision: null,
    variant: "echo",
    rule: null,
    arguments: "x".repeat(size),
    outcome: "result",
    result: null,
    error: null,
    delay_ms: 0,
    at: "2026-11-30T00:00:00.000Z",
    state_change: null,
    upstream: null,
  });

  it("takes rows in order while they fit, and always at least one", () => {
    const half = EVIDENCE_FLUSH_BYTES / 2;
    expect(flushableRows([row(1, 10), row(2, 10), row(3, 10)]).map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(flushableRows([row(1, half), row(2, half), row(3, 10)]).map((r) => r.seq)).toEqual([1]);
    expect(flushableRows([row(1, EVIDENCE_FLUSH_BYTES * 2), row(2, 10)]).map((r) => r.seq)).toEqual([1]);
    expect(flushableRows([])).toEqual([]);
  });

  it("counts every text column, a real call's upstream record included", () => {
    const half = EVIDENCE_FLUSH_BYTES / 2;
    // A real answer that breaks its schema in many places carries a long contract_violations list.
    const real = (seq: number): EvidenceRow => ({
      ...row(seq, 10),
      upstream: JSON.stringify({
        status: 200,
        latency_ms: 1,
        contract_violations: [{ path: "/items", message: "x".repeat(half) }],
      }),
    });
    const changed = (seq: number): EvidenceRow => ({
      ...row(seq, 10),
      state_change: JSON.stringify({ tool: "echo", before: "x".repeat(half), after: null }),
    });
    expect(
      [flushableRows([real(1), real(2), real(3)]), flushableRows([changed(1), changed(2), changed(3)])].map((rows) =>
        rows.map((r) => r.seq),
      ),
    ).toEqual([[1], [1]]);
  });
});

/** The object's own evidence rows, read straight from its SQLite. */
async function rowsInObject(attempt: CreatedAttempt): Promise<Array<Record<string, unknown>>> {
  return runInDurableObject<AttemptObject, Array<Record<string, unknown>>>(stubOf(attempt), (_instance, state) =>
    state.storage.sql.exec(`SELECT ${EVIDENCE_COLUMNS.join(", ")} FROM calls ORDER BY seq`).toArray(),
  );
}

async function d1Rows(attemptId: string): Promise<Array<Record<string, unknown>>> {
  return (await rowsInD1(attemptId)).map(({ attempt_id: _attempt, tenant_id: _tenant, ...row }) => row);
}

describe("evidence that cannot be hidden", () => {
  it("three call_id values that are different lone surrogates: refused up front, or every one of them in D1 exactly", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    const answers = [];
    for (const [n, callId] of ["\ud800", "\ud801", "\udbff"].entries()) {
      const response = await dispatch(attempt, { tool: "counter", arguments: { n }, call_id: callId });
      answers.push({ status: response.status, body: await response.json() });
    }
    await evidence(attempt); // flushes
    const inObject = await rowsInObject(attempt);
    expect({ inD1: await d1Rows(attempt.id), answers }).toEqual({
      inD1: inObject,
      answers: Array.from({ length: 3 }, () => ({
        status: 400,
        body: {
          error: {
            code: "invalid_request",
            message: expect.stringMatching(/^\/call_id: /),
            details: { problems: [{ path: "/call_id", message: expect.stringContaining("well-formed") }] },
          },
        },
      })),
    });
    expect(inObject).toEqual([]);
  });

  it("a lone surrogate in tool is a 400 naming the field, with the documented body", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    const response = await dispatch(attempt, { tool: "count\udc00er", arguments: { n: 1 } });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: expect.stringMatching(/^\/tool: /),
          details: { problems: [{ path: "/tool", message: expect.stringContaining("well-formed") }] },
        },
      },
    });
  });

  it("a row D1 already holds differently is never skipped: the flush fails loudly, keeps the rows, and succeeds once D1 can take them", async () => {
    const tenant = await tenantPromise;
    const attempt = await attemptWith([{ inline: counterTool }]);
    // Something else already sits at seq 1 of this attempt in D1 (say, a row written by hand).
    await env.DB.prepare(
      `INSERT INTO attempt_calls (attempt_id, tenant_id, seq, call_id, tool, operation_id, arguments, outcome, delay_ms, at) VALUES (?, ?, 1, NULL, 'other', 'other', '{}', 'result', 0, 'then')`,
    )
      .bind(attempt.id, tenant.id)
      .run();
    expect((await dispatch(attempt, { tool: "counter", arguments: { n: 7 }, call_id: "seven" })).status).toBe(200);
    expect((await dispatch(attempt, { tool: "counter", arguments: { n: 8 } })).status).toBe(200);

    const refused = await call("GET", `/api/attempts/${attempt.id}/evidence`, { key: attempt.token });
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 500,
      body: {
        error: {
          code: "internal_error",
          message:
            "the attempt's evidence could not be copied to the database, so a complete answer cannot be given now; nothing is lost (the attempt keeps every call and retries the copy): try again later",
        },
      },
    });
    // The alarm fails too, and retries: nothing is marked flushed.
    expect(await runDurableObjectAlarm(stubOf(attempt))).toBe(true);
    const marks = await runInDurableObject<AttemptObject, unknown>(stubOf(attempt), (_instance, state) =>
      state.storage.sql.exec(`SELECT flushed_seq FROM attempt`).one(),
    );
    expect(marks).toEqual({ flushed_seq: 0 });

    await env.DB.prepare(`DELETE FROM attempt_calls WHERE attempt_id = ?`).bind(attempt.id).run();
    expect((await evidence(attempt)).map((c) => [c.seq, c.call_id, c.result])).toEqual([
      [1, "seven", { previous: 0 }],
      [2, null, { previous: 7 }],
    ]);
    expect(await d1Rows(attempt.id)).toEqual(await rowsInObject(attempt));
  });

  it("D1's evidence table holds exactly the evidence columns (beside the attempt and tenant)", async () => {
    const { results } = await env.DB.prepare(`SELECT name FROM pragma_table_info('attempt_calls')`).all<{
      name: string;
    }>();
    expect(
      results
        .map((r) => r.name)
        .filter((name) => name !== "attempt_id" && name !== "tenant_id")
        .sort(),
    ).toEqual([...EVIDENCE_COLUMNS].sort());
  });

  it("the same rows flushed again change nothing", async () => {
    const attempt = await attemptWith([{ inline: counterTool }]);
    for (const n of [1, 2, 3]) await dispatch(attempt, { tool: "counter", arguments: { n }, call_id: `c${n}` });
    await evidence(attempt);
    const first = await d1Rows(attempt.id);
    // As if the object crashed after D1 took the batch but before it marked it flushed.
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
      state.storage.sql.exec(`UPDATE attempt SET flushed_seq = 0, flushed_changes = 0`);
    });
    await evidence(attempt);
    expect({ rows: await d1Rows(attempt.id), object: await rowsInObject(attempt) }).toEqual({
      rows: first,
      object: first,
    });
    expect(first).toHaveLength(3);
  });
});
