/**
 * One watchdog pass over a live run: the alarm carrying out watchdog.ts's decisions. Locally the
 * queue broker lives in memory, so a restart loses queued messages: a repetition sent (or claimed)
 * longer than the repetition timeout ago with no result is sent again; after MAX_SENDS sends, or
 * once the run's deadline has passed, what is missing is recorded as an infrastructure error and
 * the run ends. An external agent past its job's deadline is not missing: it timed out, and is
 * scored so here at the run's deadline if no delivery did. Alarms may fire more than once; every
 * step is idempotent (a record written here never replaces one a result wrote first).
 */
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import { notRunRecord } from "../../../core/evals/evaluate-repetition.js";
import type { Env } from "../../platform/env.js";
import { releaseAttempt } from "../consumer/attempt-ports.js";
import { forEachBounded } from "../consumer/concurrency.js";
import { sendRepetitions } from "../consumer/messages.js";
import { agentTimedOut } from "../external/phases.js";
import { scoreTimedOut } from "../external/timed-out.js";
import { conversationOf } from "../external/turn-relay.js";
import type { RunEnding } from "./progress.js";
import { scenarioIdOf } from "./records.js";
import type { RunStorage, SlotRow, StoredRun } from "./storage.js";
import { gaveUpMessage, pastDeadlineMessage, watchdogPlan } from "./watchdog.js";

/** Timed-out external repetitions scored at once at the run's deadline (each reads its attempt's evidence). */
const TIMED_OUT_SCORING_CONCURRENCY = 8;

/** What a pass acts through: the coordinator's storage, bindings and clock, and the steps that stay the object's. */
export interface WatchdogHost {
  readonly storage: RunStorage;
  readonly env: Env;
  readonly repetitionTimeoutMs: number;
  now(): number;
  /** The repetition's first record (with its verdict); false when it already had one. */
  writeRecord(slot: SlotRow, record: RepetitionRecord): boolean;
  /** Ends the run `finished` and copies it to D1. */
  finish(ending: RunEnding): Promise<void>;
  /** The run's figures changed: its D1 row is written soon. */
  progressChanged(): void;
  /** Arms the alarm for the next thing the watchdog has to check. */
  wake(): void;
}

/** Resend what went quiet, record what can no longer come, finish what has ended. */
export async function watchdogPass(host: WatchdogHost, run: StoredRun): Promise<void> {
  const now = host.now();
  const pending = host.storage.unrecorded();
  if (now >= run.start.deadline_at) {
    await pastDeadline(host, run, pending, now);
    return;
  }
  // External agents past their deadline are timed out; their message goes out again to score what they did.
  const { late, giveUp, resend } = watchdogPlan(pending, now, host.repetitionTimeoutMs);
  for (const slot of late) host.storage.markAgentDone(slot.seq, "timed_out_at", now);
  for (const slot of giveUp) writeMissing(host, run, slot, gaveUpMessage(slot));
  if (resend.length > 0) {
    const seqs = resend.map((slot) => slot.seq);
    host.storage.markResent(seqs, now);
    try {
      await sendRepetitions(host.env.EVAL_QUEUE, run.start.run_id, seqs);
    } catch (error) {
      // The next alarm finds them quiet again and resends.
      console.error("resending run repetitions failed", error);
    }
  }
  if (host.storage.pendingCount() === 0) {
    await host.finish({ reason: "completed", missing: [] });
    return;
  }
  if (giveUp.length > 0) host.progressChanged();
  host.wake();
}

/** The run's deadline has passed: what is still missing is recorded, and the run ends. */
async function pastDeadline(host: WatchdogHost, run: StoredRun, pending: SlotRow[], now: number): Promise<void> {
  // An agent past its job's deadline failed its repetition itself (timed_out, as at the job's own
  // deadline), whichever timer fired first; only what the harness lost is an infrastructure error.
  await forEachBounded(
    pending.filter((slot) => agentTimedOut(slot, now)),
    TIMED_OUT_SCORING_CONCURRENCY,
    (slot) => recordTimedOut(host, run, slot),
  );
  const missing = host.storage.unrecorded();
  for (const slot of missing) writeMissing(host, run, slot, pastDeadlineMessage(run.start.deadline_at, slot));
  await host.finish({ reason: "deadline", missing: missing.map((slot) => missingRef(run, slot)) });
}

/** An external repetition out of time at the run's deadline, scored here (runs/external/timed-out.ts). */
async function recordTimedOut(host: WatchdogHost, run: StoredRun, slot: SlotRow): Promise<void> {
  const held = conversationOf(host.storage, run, slot);
  const scored = await scoreTimedOut(host.env, run, slot, () => host.now(), held);
  if (scored === null) return;
  if ("missing" in scored) writeMissing(host, run, slot, scored.missing);
  else if (host.writeRecord(slot, scored.record)) await releaseAttempt(host.env, slot);
}

/** A repetition the watchdog gives up on, recorded as an infrastructure error (unless a result beat it). */
function writeMissing(host: WatchdogHost, run: StoredRun, slot: SlotRow, message: string): void {
  host.writeRecord(slot, notRunRecord({ ...slotIdentity(run, slot), infrastructure_error: message, at: host.now() }));
}

/** Which repetition a record the harness writes for it (not run, dead letter) is about. */
export function slotIdentity(
  run: StoredRun,
  slot: SlotRow,
): { scenario_id: string; repetition: number; attempt_id: string } {
  return { scenario_id: scenarioIdOf(run, slot), repetition: slot.repetition, attempt_id: slot.attempt_id };
}

/** A repetition without a result when the run ended, as the ending lists it. */
export function missingRef(run: StoredRun, slot: SlotRow): RunEnding["missing"][number] {
  return { seq: slot.seq, scenario: scenarioIdOf(run, slot), repetition: slot.repetition };
}
