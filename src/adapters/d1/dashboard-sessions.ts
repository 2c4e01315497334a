/** Dashboard sessions in D1: created at sign-in, read on every page, deleted at sign-out or expiry. */
import { and, eq, gt, lte } from "drizzle-orm";
import type { Database } from "./database.js";
import { dashboardSessions } from "./schema.js";

interface StoredSession {
  key_hash: string;
  tenant_id: string;
  csrf_token: string;
  expires_at: string;
}

export async function createSession(db: Database, row: StoredSession & { id_hash: string }): Promise<void> {
  await db.insert(dashboardSessions).values(row);
}

/** The session while it has not expired; an expired row is left for deleteExpiredSessions. */
export async function findSession(db: Database, idHash: string, now: string): Promise<StoredSession | undefined> {
  return db
    .select({
      key_hash: dashboardSessions.key_hash,
      tenant_id: dashboardSessions.tenant_id,
      csrf_token: dashboardSessions.csrf_token,
      expires_at: dashboardSessions.expires_at,
    })
    .from(dashboardSessions)
    .where(and(eq(dashboardSessions.id_hash, idHash), gt(dashboardSessions.expires_at, now)))
    .get();
}

export async function deleteSession(db: Database, idHash: string): Promise<void> {
  await db.delete(dashboardSessions).where(eq(dashboardSessions.id_hash, idHash)).run();
}

/** Sweeps sessions whose time is up, so the table holds only live sign-ins. */
export async function deleteExpiredSessions(db: Database, now: string): Promise<void> {
  await db.delete(dashboardSessions).where(lte(dashboardSessions.expires_at, now)).run();
}
