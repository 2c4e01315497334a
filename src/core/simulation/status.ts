/**
 * An attempt's status and the only ways it changes. `harness_failed` is sticky: once the harness
 * itself failed, nothing the agent does later (completing, the lease ending) can make the attempt
 * look like a clean agent run. `completed` and `harness_failed` are final; only an `active`
 * attempt becomes `expired` when its lease ends.
 */

export const ATTEMPT_STATUSES = ["active", "completed", "harness_failed", "expired"] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

export function isAttemptStatus(value: unknown): value is AttemptStatus {
  return typeof value === "string" && (ATTEMPT_STATUSES as readonly string[]).includes(value);
}

/**
 * After a call ended in a harness error. A `lease_expired` error does not count: the lease ending is
 * the harness working as intended, and the attempt is already `expired` (or final) by then.
 */
export function afterHarnessError(status: AttemptStatus, kind: string): AttemptStatus {
  if (kind === "lease_expired") return status;
  return "harness_failed";
}

/** After the agent reported its final output. Only an active attempt becomes completed. */
export function afterCompletion(status: AttemptStatus): AttemptStatus {
  return status === "active" ? "completed" : status;
}

/** After the lease ended (possibly noticed twice: alarms may fire more than once). */
export function afterLeaseEnd(status: AttemptStatus): AttemptStatus {
  return status === "active" ? "expired" : status;
}

/**
 * Whether an attempt in this status may still count as a passing agent run: one that is running,
 * or that the agent completed. Not one the harness failed, and not one whose lease ended before
 * the agent reported its output (`expired`): with no final output there is nothing to pass.
 */
export function mayPass(status: AttemptStatus): boolean {
  return status === "active" || status === "completed";
}

/**
 * The status to report when the attempt's object has no storage any more and only D1's last copy
 * is left. An object gives up its storage on its own only once the lease and the retention time
 * after it are over; missing any earlier, its storage was lost (deleted from outside, or kept in
 * memory across a reboot), along with calls that may not have reached D1, so the attempt can no
 * longer pass. A stored value this code did not write reads as harness_failed too.
 */
export function statusWithoutObject(
  stored: string,
  expiresAtMs: number,
  retentionMs: number,
  nowMs: number,
): AttemptStatus {
  if (objectStorageLost(expiresAtMs, retentionMs, nowMs)) return "harness_failed";
  return isAttemptStatus(stored) ? stored : "harness_failed";
}

/** Whether an attempt's object, found without storage now, must have lost it (see statusWithoutObject). */
export function objectStorageLost(expiresAtMs: number, retentionMs: number, nowMs: number): boolean {
  return nowMs < expiresAtMs + retentionMs;
}
