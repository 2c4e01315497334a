/**
 * Taking repetitions ahead of their messages (src/worker/runs/consumer/take-ahead.ts): once a
 * batch's own messages have started, its free slots claim their runs' next unclaimed repetitions
 * from the coordinator. Every repetition still runs exactly once, the messages that come later are
 * acknowledged without running anything, and a repetition taken ahead that fails is not lost.
 *
 * The runs here start with every message lost (run-helpers.ts runWithLostMessages), so what runs
 * is only what the delivered batch carries out, itself or ahead.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EVAL_QUEUE_NAME } from "../../../src/worker/runs/consumer/messages.js";
import { parseJobSetup } from "../../../src/worker/runs/coordinator/job-setup.js";
import { runStub } from "../../../src/worker/runs/coordinator/access.js";
import type { RunCoordinator } from "../../../src/worker/runs/coordinator/run-coordinator.js";
import { takeAheadWindowMs } from "../../../src/worker/runs/consumer/take-ahead.js";
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
  waitForRun,
} from "../run-helpers.js";

/** How many times each repetition was claimed, by seq. */
async function claimsOf(runId: string): Promise<number[]> {
  return runInDurableObject<RunCoordinator, number[]>(coordinatorOf(runId), async (_instance, state) =>
    state.storage.sql
      .exec<{ claims: number }>("SELECT claims FROM repetitions ORDER BY seq")
      .toArray()
      .map((row) => row.claims),
  );
}

/** How many messages were sent for each repetition, by seq. */
async function sendsOf(runId: string): Promise<number[]> {
  return runInDurableObject<RunCoordinator, number[]>(coordinatorOf(runId), async (_instance, state) =>
    state.storage.sql
      .exec<{ sends: number }>("SELECT sends FROM repetitions ORDER BY seq")
      .toArray()
      .map((row) => row.sends),
  );
}

const ALL_SEQS = Array.from({ length: 15 }, (_, i) => i + 1);

describe("a batch with free slots", () => {
  it("runs the rest of its run ahead of the messages, each repetition once; the late messages run nothing", async () => {
    const w = await invoiceDeskWorld("take-ahead");
    const runId = await runWithLostMessages(w);

    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }], { takeAhead: true })).toEqual({
      acked: 1,
      retried: 0,
    });
    const run = await waitForRun(w, runId);
    expect(run).toMatchObject({
      status: "finished",
      verdict: "pass",
      runs: 15,
      passed: 15,
      ending: { reason: "completed", missing: [] },
    });
    expect(await claimsOf(runId)).toEqual(ALL_SEQS.map(() => 1));
    const chats = (await server.log(w.model)).filter((r) => r.kind === "chat");
    expect(Object.values(QUERIES).map((q) => chats.filter((r) => r.query === q).length)).toEqual([6, 6, 3, 3, 3]);
    const requests = (await server.log(w.model)).length;

    // The messages the broker lost, delivered after all: each finds its repetition done.
    const late = ALL_SEQS.map((seq) => ({ run_id: runId, seq }));
    expect(await deliver(EVAL_QUEUE_NAME, late, { takeAhead: true })).toEqual({ acked: 15, retried: 0 });
    expect((await server.log(w.model)).length).toBe(requests);
    expect(await claimsOf(runId)).toEqual(ALL_SEQS.map(() => 1));
    expect(await readRun(w, runId)).toEqual(run);
  });

  it("turned off (EVAL_TAKE_AHEAD_SECONDS 0) runs only its own messages", async () => {
    const w = await invoiceDeskWorld("take-ahead-off");
    const runId = await runWithLostMessages(w);
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    expect(await claimsOf(runId)).toEqual(ALL_SEQS.map((seq) => (seq === 1 ? 1 : 0)));
    expect(await readRun(w, runId)).toMatchObject({ status: "running", finished_repetitions: 1 });
  });

  it("does not lose a repetition it took ahead that failed: it is freed with its error and sent again", async () => {
    const w = await invoiceDeskWorld("take-ahead-failure");
    const runId = await runWithLostMessages(w);
    // Repetition 2's attempt object is already taken by another attempt, so setting it up is refused.
    const [, second] = await repetitions(w, runId);
    const other = await runWithLostMessages(w);
    const claimed = await runStub(env, other).claim(1);
    if (claimed.kind !== "job") throw new Error(`expected a job, got ${claimed.kind}`);
    expect(
      await stubOf({ id: String(second?.attempt_id) }).setup({
        ...parseJobSetup(claimed.job.setup),
        attempt_id: "att_squatter",
      }),
    ).toEqual({ kind: "ok" });

    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }], { takeAhead: true })).toEqual({
      acked: 1,
      retried: 0,
    });
    // The message sent for it goes through the real queue: retried, then a dead letter, recorded as an error.
    const run = await waitForRun(w, runId);
    expect(run).toMatchObject({ status: "finished", finished_repetitions: 15, passed: 14, errors: 1 });
    expect(await repetition(w, runId, 2)).toMatchObject({
      verdict: {
        outcome: "error",
        cause: "infrastructure_error",
        reason: expect.stringContaining("attempt object refused its setup"),
      },
    });
    // Repetition 2 was sent twice (the run's own message, lost, and the one its failed delivery
    // sent), so the watchdog times it from the second send and counts both toward MAX_SENDS.
    expect(await sendsOf(runId)).toEqual(ALL_SEQS.map((seq) => (seq === 2 ? 2 : 1)));
  }, 90_000);
});

describe("RunCoordinator.claimNext", () => {
  it("hands out unclaimed repetitions in order, skipping what a message claimed, then none; an ended run says so", async () => {
    const w = await invoiceDeskWorld("claim-next");
    const runId = await runWithLostMessages(w);
    const coordinator = runStub(env, runId);
    const seqOf = async () => {
      const reply = await coordinator.claimNext();
      return reply.kind === "job" ? reply.job.seq : reply.kind;
    };
    expect(await seqOf()).toBe(1);
    expect(await coordinator.claim(2)).toMatchObject({ kind: "job", job: { seq: 2, claim: 1 } });
    expect(await seqOf()).toBe(3);
    for (const seq of ALL_SEQS.slice(3)) await coordinator.claim(seq);
    expect(await seqOf()).toBe("none");
    expect(await claimsOf(runId)).toEqual(ALL_SEQS.map(() => 1));

    const cancelled = await runWithLostMessages(w);
    expect(await runStub(env, cancelled).cancel()).toMatchObject({ kind: "cancelled" });
    expect(await runStub(env, cancelled).claimNext()).toEqual({ kind: "ended", status: "cancelled" });
  });
});

describe("EVAL_TAKE_AHEAD_SECONDS", () => {
  it("is whole seconds from 0; anything else falls back to 300", () => {
    expect([undefined, "", "0", "1", "900", "-1", "2.5", "soon"].map((raw) => [raw, takeAheadWindowMs(raw)])).toEqual([
      [undefined, 300_000],
      ["", 300_000],
      ["0", 0],
      ["1", 1_000],
      ["900", 900_000],
      ["-1", 300_000],
      ["2.5", 300_000],
      ["soon", 300_000],
    ]);
  });
});
