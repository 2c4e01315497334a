/**
 * At most one POST per successful callback delivery (webhooks/callbacks.ts): a consumer claims the
 * run's send before POSTing, for a bounded time (a consumer that dies mid-send loses it when that
 * time is up), and records the outcome together with the attempt's row, in one batch.
 */
import { and, eq, isNull, lte } from "drizzle-orm";
import type { Database } from "./database.js";
import { callbackSends } from "./schema.js";
import { recordCallbackAttemptStatement, type CallbackDeliveryRow } from "./webhooks.js";

/** claimed: this consumer may POST; delivered: a receiver has it already; busy: another consumer is POSTing. */
type CallbackClaim = "claimed" | "delivered" | "busy";

export async function claimCallbackSend(
  db: Database,
  runId: string,
  now: number,
  holdMs: number,
): Promise<CallbackClaim> {
  const claimed = await db
    .insert(callbackSends)
    .values({ run_id: runId, claimed_until: now + holdMs })
    .onConflictDoUpdate({
      target: callbackSends.run_id,
      set: { claimed_until: now + holdMs },
      setWhere: and(isNull(callbackSends.delivered_at), lte(callbackSends.claimed_until, now)),
    })
    .returning({ run_id: callbackSends.run_id })
    .all();
  if (claimed.length > 0) return "claimed";
  const row = await db
    .select({ delivered_at: callbackSends.delivered_at })
    .from(callbackSends)
    .where(eq(callbackSends.run_id, runId))
    .get();
  return row?.delivered_at ? "delivered" : "busy";
}

/** The attempt's row, and the send marked delivered (a 2xx) or free again (anything else), together. */
export async function settleCallbackSend(
  db: Database,
  attempt: Omit<CallbackDeliveryRow, "attempt">,
  delivered: boolean,
): Promise<void> {
  const settle = delivered
    ? db
        .update(callbackSends)
        .set({ delivered_at: attempt.at, claimed_until: 0 })
        .where(eq(callbackSends.run_id, attempt.run_id))
    : db
        .update(callbackSends)
        .set({ claimed_until: 0 })
        .where(and(eq(callbackSends.run_id, attempt.run_id), isNull(callbackSends.delivered_at)));
  await db.batch([recordCallbackAttemptStatement(db, attempt), settle]);
}
