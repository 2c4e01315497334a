/** How long an attempt object keeps, waits for and allows things. */

/**
 * How long new evidence may wait in the object before the alarm copies it to D1. The object's own
 * SQLite already holds it durably, and every reader of evidence flushes first, so this only bounds
 * how stale D1 may be for someone querying it directly. Long on purpose: with many attempts busy
 * at once, a short interval turns into one D1 batch per call (measured: it halves throughput).
 */
export const FLUSH_INTERVAL_MS = 30_000;
/**
 * How long an attempt must go without calls before an in-memory timer copies its evidence to D1.
 * A pending timer keeps the object loaded (checked in workerd: an idle object is otherwise unloaded
 * after about ten seconds locally), so this flush never pays for loading the object again, which
 * cost several times the flush itself when the alarm did it after a burst over 1,000 attempts.
 * Long enough that an agent thinking between calls, or a slow sweep over many attempts, does not
 * turn into one flush per call; a busy attempt is flushed by the alarm every FLUSH_INTERVAL_MS.
 */
export const IDLE_FLUSH_MS = 10_000;

/** EVIDENCE_IDLE_FLUSH_MS when it is a whole number from 10 ms to a minute, else IDLE_FLUSH_MS. */
export function idleFlushMs(setting: string | undefined): number {
  const value = Number(setting);
  return setting !== undefined && Number.isInteger(value) && value >= 10 && value <= 60_000 ? value : IDLE_FLUSH_MS;
}
/** When a flush to D1 fails, try again after this long (nothing is dropped meanwhile). */
export const FLUSH_RETRY_MS = 10_000;
/** How long after the lease ends the object keeps its storage (D1 keeps the evidence forever). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** Calls one attempt may make; bounds what a runaway agent (or a leaked token) can store. */
export const MAX_CALLS = 10_000;
/**
 * How long past an upstream's own timeout_ms a call with a call_id counts as still out: sending is
 * bounded by timeout_ms, so a Worker silent for longer than this is gone (it crashed between the
 * forward and the record), and a repeat of the call_id is handed out again rather than wait for ever.
 */
export const FORWARD_GRACE_MS = 5_000;
