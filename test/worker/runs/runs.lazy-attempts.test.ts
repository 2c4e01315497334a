/**
 * A run's attempts are set up when their repetitions are claimed, not when the run starts: until a
 * delivery claims a repetition its attempt has no object and no D1 row (GET /api/attempts/:id
 * answers 404, as for any attempt that does not exist), and a repetition that is never run (the
 * run cancelled first) never gets one. Setting up again, as a redelivery does, changes nothing.
 * The claim's setup leaves the definitions' checked examples out.
 *
 * Messages are lost at the start (runWithLostMessages), so the test decides which repetition is
 * delivered when.
 */
import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_TOOLS } from "../../../scripts/local/demo-tools.js";
import { ATTEMPT_LEASE_SPREAD_MS, attemptLeaseEnd } from "../../../src/worker/runs/coordinator/lifetimes.js";
import { attemptStub } from "../../../src/worker/attempts/access.js";
import { ensureAttempt } from "../../../src/worker/runs/consumer/attempt-setup.js";
import { EVAL_QUEUE_NAME } from "../../../src/worker/runs/consumer/messages.js";
import { runStub } from "../../../src/worker/runs/coordinator/access.js";
import { parseJobSetup } from "../../../src/worker/runs/coordinator/job-setup.js";
import { call } from "../helpers.js";
import { stubOf } from "../simulation-helpers.js";
import {
  deliver,
  GOOD_JUDGE,
  invoiceSuite,
  invoiceWorld,
  putSuite,
  readRun,
  repetitions,
  runWithLostMessages,
  server,
  startRunDirect,
  wellBehaved,
  type InvoiceWorld,
} from "../run-helpers.js";

let world: InvoiceWorld;

beforeAll(async () => {
  world = await invoiceWorld("lazy-attempts");
  await server.script(world.model, { conversations: wellBehaved(), judge_default: GOOD_JUDGE });
  await putSuite(world, "invoicedesk", invoiceSuite(world));
});

/** Per attempt id: whether D1 has its row, whether its object holds it, and what GET /api/attempts/:id answers. */
async function attemptStates(ids: readonly string[]) {
  const rows = await env.DB.prepare(`SELECT id FROM attempts WHERE id IN (${ids.map(() => "?").join(", ")})`)
    .bind(...ids)
    .all<{ id: string }>();
  const inD1 = new Set(rows.results.map((row) => row.id));
  return Promise.all(
    ids.map(async (id) => {
      const read = await call("GET", `/api/attempts/${id}`, { key: world.tenant.key });
      const body = (await read.json()) as Record<string, unknown>;
      return {
        id,
        d1: inD1.has(id),
        object: (await attemptStub(env, id).snapshot()).kind,
        get:
          read.status === 200
            ? { status: 200, attempt: body.status, calls: body.calls }
            : { status: read.status, body },
      };
    }),
  );
}

const NOT_FOUND = { status: 404, body: { error: { code: "not_found", message: "attempt not found" } } };
const unset = (id: string) => ({ id, d1: false, object: "missing", get: NOT_FOUND });

describe("a run's attempts", () => {
  it("exist only once their repetition is claimed; a repetition never run never gets one", async () => {
    const runId = await runWithLostMessages(world);
    const ids = (await repetitions(world, runId)).map((item) => String(item.attempt_id));
    expect(ids).toHaveLength(15);
    expect(await attemptStates(ids)).toEqual(ids.map(unset));

    // Repetition 1 (status-lookup: one get_invoice call) is delivered and run; only its attempt exists.
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    const [first, ...rest] = ids;
    if (first === undefined) throw new Error("no attempts");
    expect(await attemptStates(ids)).toEqual([
      { id: first, d1: true, object: "ok", get: { status: 200, attempt: "active", calls: 1 } },
      ...rest.map(unset),
    ]);

    // A claim sets up its attempt before anything runs; the same setup again (a redelivery) changes nothing.
    const claimed = await runStub(env, runId).claim(2);
    if (claimed.kind !== "job") throw new Error(`claim answered ${claimed.kind}`);
    // The claim hands the setup out without the definitions' checked examples, which no attempt runs.
    const saved = DEMO_TOOLS.find((tool) => tool.tool.name === "invoices")?.definitions ?? {};
    expect(Object.values(saved).map((definition) => (definition.examples as unknown[]).length > 0)).toEqual([
      true,
      true,
    ]);
    expect(parseJobSetup(claimed.job.setup).operations.map((op) => [op.operation_id, op.definition.examples])).toEqual([
      ["get_invoice", []],
      ["place_invoice_on_hold", []],
    ]);
    await ensureAttempt(env, claimed.job);
    const once = await attemptStub(env, claimed.job.attempt_id).snapshot();
    await ensureAttempt(env, claimed.job);
    await ensureAttempt(env, { ...claimed.job, claim: 2 });
    expect(await attemptStub(env, claimed.job.attempt_id).snapshot()).toEqual(once);
    const rows = await env.DB.prepare(`SELECT count(*) AS n FROM attempts WHERE id = ?`)
      .bind(claimed.job.attempt_id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(1);

    // Cancelled: the 13 repetitions never claimed never get an attempt.
    expect((await call("POST", `/api/runs/${runId}/cancel`, { key: world.tenant.key })).status).toBe(200);
    expect(await readRun(world, runId)).toMatchObject({ status: "cancelled", finished_repetitions: 1 });
    expect((await attemptStates(ids)).slice(2)).toEqual(ids.slice(2).map(unset));
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 3 }])).toEqual({ acked: 1, retried: 0 });
    expect((await attemptStates(ids)).slice(2)).toEqual(ids.slice(2).map(unset));
  }, 60_000);
});

/** The attempt object's alarm; a released object is leaving memory, so a read that meets it going is made again. */
async function alarmOf(attemptId: string): Promise<number | null> {
  for (let tries = 1; ; tries++) {
    try {
      return await runInDurableObject(stubOf({ id: attemptId }), (_object, state) => state.storage.getAlarm());
    } catch (error) {
      if (tries >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe("a run's attempts' lease ends", () => {
  it("are spread over the five minutes after the run's lease, so the attempts' alarms never all fire at once", async () => {
    const start = await startRunDirect(world, "invoicedesk", { send: async () => undefined });
    expect(
      await deliver(
        EVAL_QUEUE_NAME,
        start.repetitions.map((slot) => ({ run_id: start.run_id, seq: slot.seq })),
      ),
    ).toEqual({ acked: 15, retried: 0 });
    const base = start.attempts?.expires_at ?? 0;
    // Every repetition is recorded and its attempt released: what is left of each object is its alarm at its lease end.
    const alarms = await Promise.all(start.repetitions.map((slot) => alarmOf(slot.attempt_id)));
    const offsets = alarms.map((at) => (at ?? 0) - base);
    expect(offsets.filter((offset) => offset < 0 || offset >= 5 * 60_000)).toEqual([]);
    const sorted = [...offsets].sort((a, b) => a - b);
    // Fifteen lease ends at least ten seconds apart.
    expect(Math.min(...sorted.slice(1).map((offset, i) => offset - (sorted[i] ?? 0)))).toBeGreaterThanOrEqual(10_000);
    // D1's rows (what GET /api/attempts/:id and a lost attempt's answer read) carry the same lease ends.
    const rows = await env.DB.prepare(
      `SELECT id, expires_at FROM attempts WHERE id IN (${start.repetitions.map(() => "?").join(", ")})`,
    )
      .bind(...start.repetitions.map((slot) => slot.attempt_id))
      .all<{ id: string; expires_at: string }>();
    const d1 = new Map(rows.results.map((row) => [row.id, Date.parse(row.expires_at)]));
    expect(start.repetitions.map((slot, i) => d1.get(slot.attempt_id) === alarms[i])).toEqual(
      start.repetitions.map(() => true),
    );
  }, 30_000);

  it("of any run size stay within the spread, and apart: no two of N closer than a third of spread / N", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.integer({ min: 2, max: 2000 }), (base, n) => {
        const ends = Array.from({ length: n }, (_, i) => attemptLeaseEnd(base, i + 1)).sort((a, b) => a - b);
        const gaps = ends.slice(1).map((end, i) => end - (ends[i] ?? end));
        expect({
          first: (ends[0] ?? base) >= base,
          last: (ends[n - 1] ?? base) < base + ATTEMPT_LEASE_SPREAD_MS,
          apart: Math.min(...gaps) >= ATTEMPT_LEASE_SPREAD_MS / (3 * n),
        }).toEqual({ first: true, last: true, apart: true });
      }),
      { numRuns: 40 },
    );
  });
});
