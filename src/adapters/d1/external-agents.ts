/**
 * External agents' rows in D1: the secrets that sign their jobs, and the job sent for each attempt
 * (how a completion finds its run repetition).
 */
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "./database.js";
import { agentJobs, agentSecrets } from "./schema.js";

export type AgentSecretRow = typeof agentSecrets.$inferSelect;
export type AgentJobRow = typeof agentJobs.$inferSelect;

/** Stores (or replaces) a secret; answers the stored row. */
export async function putAgentSecret(db: Database, row: Omit<AgentSecretRow, "created_at">): Promise<AgentSecretRow> {
  return db
    .insert(agentSecrets)
    .values(row)
    .onConflictDoUpdate({
      target: [agentSecrets.tenant_id, agentSecrets.name],
      set: { sealed_secret: row.sealed_secret, created_by: row.created_by, created_at: new Date().toISOString() },
    })
    .returning()
    .get();
}

export async function findAgentSecret(
  db: Database,
  tenantId: string,
  name: string,
): Promise<AgentSecretRow | undefined> {
  return db
    .select()
    .from(agentSecrets)
    .where(and(eq(agentSecrets.tenant_id, tenantId), eq(agentSecrets.name, name)))
    .get();
}

/** Names in order, a page at a time, after `after`. */
export async function listAgentSecrets(
  db: Database,
  tenantId: string,
  options: { limit: number; after?: string | undefined },
): Promise<AgentSecretRow[]> {
  const where =
    options.after === undefined
      ? eq(agentSecrets.tenant_id, tenantId)
      : and(eq(agentSecrets.tenant_id, tenantId), gt(agentSecrets.name, options.after));
  return db.select().from(agentSecrets).where(where).orderBy(asc(agentSecrets.name)).limit(options.limit).all();
}

export async function deleteAgentSecret(db: Database, tenantId: string, name: string): Promise<boolean> {
  const deleted = await db
    .delete(agentSecrets)
    .where(and(eq(agentSecrets.tenant_id, tenantId), eq(agentSecrets.name, name)))
    .returning()
    .all();
  return deleted.length > 0;
}

/** Records the job of an attempt; a redelivered job finds its row there already and changes nothing. */
export async function recordAgentJob(
  db: Database,
  row: Omit<AgentJobRow, "created_at" | "accepted_at">,
): Promise<void> {
  await db.insert(agentJobs).values(row).onConflictDoNothing().run();
}

export async function findAgentJob(db: Database, attemptId: string): Promise<AgentJobRow | undefined> {
  return db.select().from(agentJobs).where(eq(agentJobs.attempt_id, attemptId)).get();
}

/** The agent answered the job 2xx: from now on the job is the agent's, and is not POSTed again. */
export async function markAgentJobAccepted(db: Database, attemptId: string, at: string): Promise<void> {
  await db
    .update(agentJobs)
    .set({ accepted_at: at })
    .where(and(eq(agentJobs.attempt_id, attemptId), isNull(agentJobs.accepted_at)))
    .run();
}
