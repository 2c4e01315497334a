/**
 * The run coordinator's watchdog decisions, pure over the unrecorded slots and the time: which
 * repetitions went quiet (and are sent again, or given up on after MAX_SENDS), which external agents
 * ran out of time, and when to wake next. watchdog-pass.ts carries them out when the alarm fires.
 */
import { awaitingAgent } from "../external/phases.js";
import { MAX_SENDS } from "./lifetimes.js";
import type { SlotRow } from "./storage.js";

interface WatchdogPlan {
  /** External agents whose job's deadline has passed: marked timed out, and sent again to be scored. */
  late: SlotRow[];
  /** Quiet repetitions sent MAX_SENDS times already: recorded as infrastructure errors. */
  giveUp: SlotRow[];
  /** Quiet repetitions (and the late agents) sent again. */
  resend: SlotRow[];
}

/** What a watchdog pass before the run's deadline does with the unrecorded slots. */
export function watchdogPlan(pending: readonly SlotRow[], now: number, repetitionTimeoutMs: number): WatchdogPlan {
  const late = pending.filter((slot) => awaitingAgent(slot) && (slot.job_deadline ?? 0) <= now);
  const quiet = [
    ...late,
    ...pending.filter((slot) => !awaitingAgent(slot) && (slot.claimed_at ?? slot.sent_at) + repetitionTimeoutMs <= now),
  ];
  return {
    late,
    giveUp: quiet.filter((slot) => slot.sends >= MAX_SENDS),
    resend: quiet.filter((slot) => slot.sends < MAX_SENDS),
  };
}

/** The earliest time the watchdog has anything to check: the oldest quiet repetition's timeout, or the run's deadline. */
export function nextWakeAt(pending: readonly SlotRow[], deadlineAt: number, repetitionTimeoutMs: number): number {
  const oldest = Math.min(
    ...pending.map((slot) =>
      awaitingAgent(slot) ? (slot.job_deadline ?? 0) - repetitionTimeoutMs : (slot.claimed_at ?? slot.sent_at),
    ),
  );
  return Math.min(deadlineAt, Number.isFinite(oldest) ? oldest + repetitionTimeoutMs : Number.POSITIVE_INFINITY);
}

export function gaveUpMessage(slot: SlotRow): string {
  return `no result after ${slot.sends} sends${slot.last_error ? `; last error: ${slot.last_error}` : ""}`;
}

export function pastDeadlineMessage(deadlineAt: number, slot: SlotRow): string {
  return `no result before the run's deadline (${new Date(deadlineAt).toISOString()}); sent ${slot.sends} time(s)`;
}
