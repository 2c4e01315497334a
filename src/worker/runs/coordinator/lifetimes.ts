/** How long a run's parts may take before the watchdog acts, with the settings that tune them. */

/** A repetition sent or claimed this long ago without a result is sent again (default 10 minutes). */
export const DEFAULT_REPETITION_TIMEOUT_MS = 10 * 60 * 1000;
/** A run not finished this long after it started ends as an error (default 2 hours). */
export const DEFAULT_RUN_TIMEOUT_MS = 2 * 60 * 60 * 1000;
/** After this many sends without a result, a repetition is recorded as an infrastructure error. */
export const MAX_SENDS = 5;
/** When copying an ended run to D1 failed, the alarm tries again this much later. */
export const FINAL_RETRY_MS = 30 * 1000;
/** A live run's D1 row is brought up to date at most this often (GET reads a live run from its coordinator). */
export const PROGRESS_INTERVAL_MS = 1000;
/** A run's attempts outlive its deadline by this much, so a repetition running at the deadline can still finish its calls. */
export const ATTEMPT_LEASE_MARGIN_MS = 10 * 60 * 1000;

/** Attempts' lease ends are spread over this much after the run's ATTEMPT_LEASE_MARGIN_MS (attemptLeaseEnd). */
export const ATTEMPT_LEASE_SPREAD_MS = 5 * 60 * 1000;

/**
 * Repetition `seq`'s attempt lease end: the run's, plus a share of ATTEMPT_LEASE_SPREAD_MS. Each
 * attempt object wakes at its lease end (and again at its retention's end), released or not, so a
 * lease shared by every attempt of a run made all of their alarms fire in the same instant. The
 * share is the fractional part of seq times the golden ratio, which keeps any number of
 * repetitions evenly apart (consecutive seqs land far from each other), and is deterministic, so a
 * redelivered setup asks for the same lease.
 */
export function attemptLeaseEnd(runLeaseEnd: number, seq: number): number {
  const share = (seq * 0.6180339887498949) % 1;
  return runLeaseEnd + Math.floor(share * ATTEMPT_LEASE_SPREAD_MS);
}

/** A positive whole number of milliseconds from a setting, else the default. */
export function durationSetting(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
