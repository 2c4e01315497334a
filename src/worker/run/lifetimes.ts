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

/** A positive whole number of milliseconds from a setting, else the default. */
export function durationSetting(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
