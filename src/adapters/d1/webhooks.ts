/**
 * Webhooks, their deliveries and the callbacks of the runs they started, in D1.
 *
 * - A webhook is read by id alone on the public route (the id is all a sender has), and within a
 *   tenant everywhere else. Deleting is soft: the row stays for its deliveries, and a deleted
 *   webhook is found by no lookup.
 * - A delivery is recorded as it is decided. The partial unique index on (webhook_id,
 *   delivery_id) where outcome = 'accepted' is what makes a delivery id start at most one run:
 *   the insert that claims it does nothing when another accepted row holds it, so of two identical
 *   deliveries racing, exactly one claims it.
 */
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { JsonValue } from "../../core/json.js";
import type { GithubEventFilter } from "../../core/webhooks/github-events.js";
import type { Database } from "./database.js";
import { parseJsonColumn } from "./json-column.js";
import { callbackDeliveries, webhookDeliveries, webhooks } from "./schema.js";

export type WebhookRow = typeof webhooks.$inferSelect;
type NewWebhookRow = typeof webhooks.$inferInsert;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type CallbackDeliveryRow = typeof callbackDeliveries.$inferSelect;

/** A GitHub webhook's event filter; null for a standard webhook. */
export function webhookEventsOf(row: Pick<WebhookRow, "events">): GithubEventFilter[] | null {
  // SAFETY: the events column is written only by the create route, from a validated filter.
  return row.events === null ? null : (parseJsonColumn(row.events) as unknown as GithubEventFilter[]);
}

/** What the delivery said about its source (GitHub event, action, commit, ref); null when it said nothing. */
export function deliverySourceOf(row: Pick<WebhookDeliveryRow, "source">): JsonValue | null {
  return row.source === null ? null : parseJsonColumn(row.source);
}

export async function insertWebhook(db: Database, row: NewWebhookRow): Promise<WebhookRow> {
  return db.insert(webhooks).values(row).returning().get();
}

/** Any webhook by id, deleted ones included: a delivery to a deleted webhook is recorded under its tenant. */
export async function findWebhookRow(db: Database, id: string): Promise<WebhookRow | undefined> {
  return db.select().from(webhooks).where(eq(webhooks.id, id)).get();
}

export async function findTenantWebhook(db: Database, tenantId: string, id: string): Promise<WebhookRow | undefined> {
  return db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.tenant_id, tenantId), isNull(webhooks.deleted_at)))
    .get();
}

/** Newest first; the cursor is the (created_at, id) of the last item already seen. */
export async function listWebhooks(
  db: Database,
  tenantId: string,
  page: { limit: number; after?: { created_at: string; id: string } | undefined },
): Promise<{ items: WebhookRow[]; next?: { created_at: string; id: string } | undefined }> {
  const after = page.after;
  const rows = await db
    .select()
    .from(webhooks)
    .where(
      and(
        eq(webhooks.tenant_id, tenantId),
        isNull(webhooks.deleted_at),
        after
          ? or(
              lt(webhooks.created_at, after.created_at),
              and(eq(webhooks.created_at, after.created_at), lt(webhooks.id, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(desc(webhooks.created_at), desc(webhooks.id))
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? { created_at: last.created_at, id: last.id } : undefined };
}

export async function rotateWebhookSecret(
  db: Database,
  tenantId: string,
  id: string,
  sealedSecret: string,
  at: string,
): Promise<WebhookRow | undefined> {
  return db
    .update(webhooks)
    .set({ sealed_secret: sealedSecret, rotated_at: at })
    .where(and(eq(webhooks.id, id), eq(webhooks.tenant_id, tenantId), isNull(webhooks.deleted_at)))
    .returning()
    .get();
}

export async function softDeleteWebhook(db: Database, tenantId: string, id: string, at: string): Promise<boolean> {
  const deleted = await db
    .update(webhooks)
    .set({ deleted_at: at })
    .where(and(eq(webhooks.id, id), eq(webhooks.tenant_id, tenantId), isNull(webhooks.deleted_at)))
    .returning({ id: webhooks.id })
    .all();
  return deleted.length > 0;
}

export async function recordDelivery(db: Database, row: WebhookDeliveryRow): Promise<void> {
  await db.insert(webhookDeliveries).values(row).run();
}

/** Claims the delivery id for a run: true when this row was written, false when an accepted one already holds the id. */
export async function claimDelivery(db: Database, row: WebhookDeliveryRow & { outcome: "accepted" }): Promise<boolean> {
  const written = await db
    .insert(webhookDeliveries)
    .values(row)
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.id })
    .all();
  return written.length > 0;
}

/** The accepted delivery holding a delivery id, if any. */
export async function acceptedDelivery(
  db: Database,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhook_id, webhookId),
        eq(webhookDeliveries.delivery_id, deliveryId),
        eq(webhookDeliveries.outcome, "accepted"),
      ),
    )
    .get();
}

/** A claimed delivery whose run could not start: refused with why, so the sender may deliver it again. */
export async function releaseDelivery(db: Database, id: string, reason: string): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ outcome: "refused", reason, run_id: null })
    .where(eq(webhookDeliveries.id, id))
    .run();
}

/** Newest first; the cursor is the (received_at, id) of the last item already seen. */
export async function listDeliveries(
  db: Database,
  tenantId: string,
  webhookId: string,
  page: { limit: number; after?: { received_at: string; id: string } | undefined },
): Promise<{ items: WebhookDeliveryRow[]; next?: { received_at: string; id: string } | undefined }> {
  const after = page.after;
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhook_id, webhookId),
        eq(webhookDeliveries.tenant_id, tenantId),
        after
          ? or(
              lt(webhookDeliveries.received_at, after.received_at),
              and(eq(webhookDeliveries.received_at, after.received_at), lt(webhookDeliveries.id, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.received_at), desc(webhookDeliveries.id))
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? { received_at: last.received_at, id: last.id } : undefined };
}

/** One callback attempt, numbered after the run's earlier ones in the same statement. */
export async function recordCallbackAttempt(db: Database, row: Omit<CallbackDeliveryRow, "attempt">): Promise<number> {
  const written = await recordCallbackAttemptStatement(db, row)
    .returning({ attempt: callbackDeliveries.attempt })
    .get();
  return written.attempt;
}

/** The insert of the run's next attempt row, numbered in SQL, for a batch. */
export function recordCallbackAttemptStatement(db: Database, row: Omit<CallbackDeliveryRow, "attempt">) {
  return db.insert(callbackDeliveries).values({
    ...row,
    attempt: sql`(select coalesce(max(${callbackDeliveries.attempt}), 0) + 1 from ${callbackDeliveries} where ${callbackDeliveries.run_id} = ${row.run_id})`,
  });
}

export async function listCallbackAttempts(
  db: Database,
  tenantId: string,
  runId: string,
): Promise<CallbackDeliveryRow[]> {
  return db
    .select()
    .from(callbackDeliveries)
    .where(and(eq(callbackDeliveries.run_id, runId), eq(callbackDeliveries.tenant_id, tenantId)))
    .orderBy(callbackDeliveries.attempt)
    .all();
}
