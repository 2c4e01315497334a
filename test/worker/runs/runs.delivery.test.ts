/**
 * At-least-once delivery and the watchdog: a redelivered message changes nothing, a dead letter is
 * recorded (never dropped), lost messages are sent again by the coordinator's alarm, a run past its
 * deadline ends as an error naming what was missing, and a cancelled run runs nothing more.
 *
 * Losing messages: startRun takes the sender, and these tests give it one that drops every message,
 * as a restarted local broker (which keeps its queue in memory) would. The queue handler is driven
 * with createMessageBatch / getQueueResult; the alarm with runInDurableObject and an injected clock.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ensureAttempt } from "../../../src/worker/runs/consumer/attempt-setup.js";
import { EVAL_DEAD_LETTER_QUEUE_NAME, EVAL_QUEUE_NAME } from "../../../src/worker/runs/consumer/messages.js";
import { RunCoordinator } from "../../../src/worker/runs/coordinator/run-coordinator.js";
import { DEFAULT_REPETITION_TIMEOUT_MS } from "../../../src/worker/runs/coordinator/lifetimes.js";
import { runStub } from "../../../src/worker/runs/coordinator/access.js";
import { call } from "../helpers.js";
import { stubOf } from "../simulation-helpers.js";
import {
  coordinatorOf,
  deliver,
  invoiceDeskWorld,
  QUERIES,
  readRun,
  repetition,
  repetitions,
  runWithLostMessages,
  server,
  startRun,
  waitForRun,
} from "../run-helpers.js";

/** Runs the coordinator's alarm as if `aheadMs` had passed. */
async function alarmAfter(runId: string, aheadMs: number): Promise<void> {
  const later = Date.now() + aheadMs;
  await runInDurableObject<RunCoordinator, void>(coordinatorOf(runId), async (_instance, state) => {
    await new RunCoordinator(state, env, { now: () => later, sleep: async () => undefined }).alarm();
  });
}

describe("a redelivered message", () => {
  it("changes nothing: the repetition keeps its record, and no model is called", async () => {
    const w = await invoiceDeskWorld("redelivery");
    const run = await waitForRun(w, (await startRun(w, "invoicedesk")).id);
    const before = await repetition(w, String(run.id), 1);
    const requests = (await server.log(w.model)).length;

    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: String(run.id), seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    expect(await repetition(w, String(run.id), 1)).toEqual(before);
    expect(await readRun(w, String(run.id))).toEqual(run);
    expect((await server.log(w.model)).length).toBe(requests);
  });

  it("while the run is going: the second delivery of a recorded repetition is dropped", async () => {
    const w = await invoiceDeskWorld("redelivery-live");
    const runId = await runWithLostMessages(w);
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    const first = await repetition(w, runId, 1);
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    expect(await repetition(w, runId, 1)).toEqual(first);
    expect((await server.log(w.model)).filter((r) => r.kind === "chat")).toHaveLength(2);
    expect(await readRun(w, runId)).toMatchObject({ status: "running", finished_repetitions: 1 });
  });
});

describe("a dead letter", () => {
  it("is recorded as an infrastructure error with the last error its deliveries met", async () => {
    const w = await invoiceDeskWorld("dead-letter");
    const runId = await runWithLostMessages(w);
    // What the consumer does before message.retry(): free the repetition and keep the error.
    expect(await runStub(env, runId).release(2, "Error: the attempt object did not answer")).toEqual({ kind: "ok" });

    expect(
      await deliver(EVAL_DEAD_LETTER_QUEUE_NAME, [
        { run_id: runId, seq: 2 },
        { run_id: runId, seq: 3 },
      ]),
    ).toEqual({ acked: 2, retried: 0 });
    const [two, three] = [await repetition(w, runId, 2), await repetition(w, runId, 3)];
    expect([two.verdict, three.verdict]).toEqual([
      expect.objectContaining({
        outcome: "error",
        pass: false,
        cause: "infrastructure_error",
        reason: expect.stringContaining("Error: the attempt object did not answer"),
      }),
      expect.objectContaining({
        outcome: "error",
        pass: false,
        cause: "infrastructure_error",
        reason: expect.stringContaining("dead letter"),
      }),
    ]);
    expect(two).toMatchObject({ calls: [], judge: null, transcript: null });
    expect(await readRun(w, runId)).toMatchObject({ status: "running", finished_repetitions: 2, errors: 2 });
    // The dead letter was never run: no model was asked.
    expect(await server.log(w.model)).toEqual([]);
  });
});

describe("a delivery that throws", () => {
  it("frees the repetition, keeps the error, and is retried; its dead letter then carries that error", async () => {
    const w = await invoiceDeskWorld("retry");
    const runId = await runWithLostMessages(w);
    const coordinator = runStub(env, runId);
    // An earlier delivery claimed repetition 1, set its attempt up and gave up; then the attempt's storage was lost.
    const claimed = await coordinator.claim(1);
    expect(claimed).toMatchObject({ kind: "job", job: { seq: 1, claim: 1 } });
    if (claimed.kind === "job") await ensureAttempt(env, claimed.job);
    expect(await coordinator.release(1, "Error: the worker was stopped")).toEqual({ kind: "ok" });
    const attemptId = String((await repetitions(w, runId))[0]?.attempt_id);
    // Lost as a restart loses it: the storage gone, and the object loaded afresh (no copy in memory).
    await runInDurableObject(stubOf({ id: attemptId }), async (instance, state) => {
      await state.storage.deleteAll();
      Reflect.set(instance, "live", undefined);
    });

    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }])).toEqual({ acked: 0, retried: 1 });
    expect((await repetitions(w, runId))[0]).toMatchObject({ n: 1, status: "pending" });
    expect(await deliver(EVAL_DEAD_LETTER_QUEUE_NAME, [{ run_id: runId, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    expect(await repetition(w, runId, 1)).toMatchObject({
      verdict: {
        outcome: "error",
        cause: "infrastructure_error",
        reason: expect.stringContaining(`Error: attempt ${attemptId} holds no attempt`),
      },
    });
  });

  it("a repetition another delivery is working on is left to it (the watchdog covers a delivery that never reports)", async () => {
    const w = await invoiceDeskWorld("busy");
    const runId = await runWithLostMessages(w);
    expect(await runStub(env, runId).claim(2)).toMatchObject({ kind: "job" });
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 2 }])).toEqual({ acked: 1, retried: 0 });
    expect(await server.log(w.model)).toEqual([]);
  });
});

describe("the watchdog", () => {
  it("sends again every repetition whose message was lost, and the run finishes with every repetition run once", async () => {
    const w = await invoiceDeskWorld("watchdog");
    const runId = await runWithLostMessages(w);
    expect(await readRun(w, runId)).toMatchObject({ status: "queued", finished_repetitions: 0 });

    // Before the repetition timeout nothing is due; after it, all 15 go again through the real queue.
    await alarmAfter(runId, 1000);
    expect(await server.log(w.model)).toEqual([]);
    await alarmAfter(runId, DEFAULT_REPETITION_TIMEOUT_MS + 1000);
    const run = await waitForRun(w, runId);
    expect(run).toMatchObject({
      status: "finished",
      verdict: "pass",
      runs: 15,
      passed: 15,
      ending: { reason: "completed", missing: [] },
    });
    const chats = (await server.log(w.model)).filter((r) => r.kind === "chat");
    expect(Object.values(QUERIES).map((q) => chats.filter((r) => r.query === q).length)).toEqual([6, 6, 3, 3, 3]);
    expect((await server.log(w.model)).filter((r) => r.kind === "judge")).toHaveLength(9);
  });

  it("is armed again by reading a live run whose alarm is gone (a local runtime restarted between alarms)", async () => {
    const w = await invoiceDeskWorld("rearm");
    const runId = await runWithLostMessages(w);
    const alarm = () =>
      runInDurableObject<RunCoordinator, number | null>(coordinatorOf(runId), (_instance, state) =>
        state.storage.getAlarm(),
      );
    expect(await alarm()).toEqual(expect.any(Number));
    await runInDurableObject<RunCoordinator, void>(coordinatorOf(runId), (_instance, state) =>
      state.storage.deleteAlarm(),
    );
    expect(await alarm()).toBeNull();
    await readRun(w, runId);
    await expect.poll(alarm).toEqual(expect.any(Number));
  });

  it("ends a run past its deadline as an error, naming every repetition that was missing", async () => {
    const w = await invoiceDeskWorld("deadline");
    const runId = await runWithLostMessages(w);
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    await alarmAfter(runId, 3 * 60 * 60 * 1000);
    const run = await readRun(w, runId);
    expect(run).toMatchObject({ status: "finished", verdict: "error", runs: 15, passed: 1, errors: 14 });
    const ending = run.ending as {
      reason: string;
      missing: Array<{ seq: number; scenario: string; repetition: number }>;
    };
    expect(ending.reason).toBe("deadline");
    expect(ending.missing.map((m) => m.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(await repetition(w, runId, 15)).toMatchObject({
      verdict: {
        outcome: "error",
        cause: "infrastructure_error",
        reason: expect.stringContaining("no result before the run's deadline"),
      },
    });
  });
});

describe("POST /api/runs/:id/cancel", () => {
  it("ends the run `cancelled` with the figures of what finished; pending repetitions are not run", async () => {
    const w = await invoiceDeskWorld("cancel");
    const runId = await runWithLostMessages(w);
    expect(
      await deliver(
        EVAL_QUEUE_NAME,
        [1, 2, 3].map((seq) => ({ run_id: runId, seq })),
      ),
    ).toEqual({ acked: 3, retried: 0 });

    const cancelled = await call("POST", `/api/runs/${runId}/cancel`, { key: w.tenant.key });
    expect(cancelled.status).toBe(200);
    const body = (await cancelled.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: "cancelled",
      verdict: null,
      finished_repetitions: 3,
      runs: 3,
      passed: 3,
      pass_rate: 1,
    });
    expect((body.ending as { reason: string; missing: unknown[] }).reason).toBe("cancelled");
    expect((body.ending as { missing: unknown[] }).missing).toHaveLength(12);
    expect(await readRun(w, runId)).toEqual(body);

    const requests = (await server.log(w.model)).length;
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 4 }])).toEqual({ acked: 1, retried: 0 });
    expect((await server.log(w.model)).length).toBe(requests);
    expect((await repetitions(w, runId)).map((r) => r.n)).toEqual([1, 2, 3]);
    // Cancelling again answers the same ended run.
    expect(await (await call("POST", `/api/runs/${runId}/cancel`, { key: w.tenant.key })).json()).toEqual(body);
  });
});
