/**
 * Deleting an ended run from D1 (DELETE /api/runs/:id and the retention sweep): the run's row and
 * everything keyed by the run or by one of its attempts, in one D1 batch (one transaction), so a
 * run is either wholly there or wholly gone.
 *
 * Tables keyed by a run (schema.ts): runs and RUN_KEYED_TABLES. Keyed by its attempts: attempts, attempt_calls, and the simulations the run
 * made (one per scenario) that those attempts belong to. webhook_deliveries keeps its rows: it is
 * the log of what a webhook URL received, and a delivery's run_id then names a run that is gone.
 *
 * A run's attempts are found from its repetitions and its external jobs (an attempt row is written
 * when its repetition is first claimed); a scenario none of whose repetitions was ever claimed (a
 * run cancelled early) leaves its simulation row behind, a few hundred bytes with no attempts.
 */
import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "./database.js";
import { runs } from "./schema.js";

/**
 * Every table with a run_id column whose rows belong to the run (a test checks the schema against
 * this list, so a new run-keyed table cannot be forgotten). run_repetitions is last: the attempt
 * ids are read from it by the statements before.
 */
export const RUN_KEYED_TABLES = [
  "agent_jobs",
  "judge_labels",
  "callback_deliveries",
  "callback_sends",
  "run_repetitions",
] as const;

/** Tables with a run_id column that deliberately outlive the run (webhook_deliveries: the delivery log). */
export const RUN_KEYED_TABLES_KEPT = ["webhook_deliveries"] as const;

/** The statuses of a run that has ended; only these can be deleted. */
const ENDED_RUN_STATUSES = ["finished", "cancelled"] as const;

type RunDeletion = { kind: "deleted"; run_id: string } | { kind: "not_ended"; status: string } | { kind: "missing" };

/** Deletes the tenant's run `runId` and all it owns, unless it is still queued or running. */
export async function deleteEndedRun(db: Database, tenantId: string, runId: string): Promise<RunDeletion> {
  const run = await db
    .select({ status: runs.status })
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.tenant_id, tenantId)))
    .get();
  if (!run) return { kind: "missing" };
  // An ended run never runs again, so the status read here still holds when the batch runs.
  if (!(ENDED_RUN_STATUSES as readonly string[]).includes(run.status)) return { kind: "not_ended", status: run.status };
  await deleteRunRows(db, runId);
  return { kind: "deleted", run_id: runId };
}

/** Ended runs that finished before `before` (an ISO time), oldest first, at most `limit`, across tenants. */
export async function endedRunsBefore(
  db: Database,
  before: string,
  limit: number,
): Promise<Array<{ id: string; tenant_id: string }>> {
  return db
    .select({ id: runs.id, tenant_id: runs.tenant_id })
    .from(runs)
    .where(
      and(
        inArray(runs.status, [...ENDED_RUN_STATUSES]),
        lt(sql`coalesce(${runs.finished_at}, ${runs.created_at})`, before),
      ),
    )
    .orderBy(asc(sql`coalesce(${runs.finished_at}, ${runs.created_at})`), asc(runs.id))
    .limit(limit)
    .all();
}

async function deleteRunRows(db: Database, runId: string): Promise<void> {
  const d1 = db.$client;
  const attemptIds = `SELECT attempt_id FROM run_repetitions WHERE run_id = ?1 UNION SELECT attempt_id FROM agent_jobs WHERE run_id = ?1`;
  // Read before the batch: once the attempts are gone nothing leads to their simulations. Passed as
  // one JSON array, so a run of many scenarios stays within D1's 100 bound parameters.
  const simulations = await d1
    .prepare(`SELECT DISTINCT simulation_id AS id FROM attempts WHERE id IN (${attemptIds})`)
    .bind(runId)
    .all<{ id: string }>();
  const simulationIds = JSON.stringify(simulations.results.map((row) => row.id));
  const ofSimulations = `SELECT id FROM attempts WHERE simulation_id IN (SELECT value FROM json_each(?2))`;
  await d1.batch([
    d1
      .prepare(`DELETE FROM attempt_calls WHERE attempt_id IN (${attemptIds}) OR attempt_id IN (${ofSimulations})`)
      .bind(runId, simulationIds),
    d1
      .prepare(`DELETE FROM attempts WHERE id IN (${attemptIds}) OR id IN (${ofSimulations})`)
      .bind(runId, simulationIds),
    d1.prepare(`DELETE FROM simulations WHERE id IN (SELECT value FROM json_each(?1))`).bind(simulationIds),
    ...RUN_KEYED_TABLES.map((table) => d1.prepare(`DELETE FROM ${table} WHERE run_id = ?1`).bind(runId)),
    d1.prepare(`DELETE FROM runs WHERE id = ?1`).bind(runId),
  ]);
}
