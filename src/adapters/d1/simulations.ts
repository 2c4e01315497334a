/**
 * Simulations, attempts and evidence in D1. D1 is the durable record: what a simulation pinned,
 * each attempt's token hash and lease, and every call flushed from the attempt objects (which may
 * be gone by the time someone reads the evidence).
 */
import { and, eq, sql } from "drizzle-orm";
import {
  EVIDENCE_COLUMNS,
  evidenceRowOf,
  type EvidenceRow,
  evidenceValues,
  REAL_CALL_COUNTS,
  type RealCallCounts,
} from "../../core/simulation/evidence.js";
import {
  operationKey,
  type NewestRevision,
  type PinCandidates,
  type PinnableRevision,
  type ToolLibrary,
} from "../../core/simulation/library.js";
import type { JsonObject, JsonValue } from "../../core/json.js";
import type { PinnedRecord } from "../../core/simulation/setup.js";
import type { Database } from "./database.js";
import { parseJsonColumn, parseJsonObjectColumn } from "./json-column.js";
import { attemptCalls, attempts, simulations } from "./schema.js";
import { requireFitsRow } from "./row-limit.js";
import { findToolIdsByName, getTool, type StoredTool } from "./tools.js";

/** The planning port (src/core/simulation/library.ts) over one tenant's rows. */
export function toolLibrary(db: Database, tenantId: string): ToolLibrary {
  return {
    async toolsById(ids) {
      const found = new Map<string, StoredTool>();
      for (const tool of await Promise.all(ids.map((id) => getTool(db, tenantId, id))))
        if (tool) found.set(tool.id, tool);
      return found;
    },
    toolIdsByName: (names) => findToolIdsByName(db, tenantId, names),
    pinCandidates: (toolIds) => findPinCandidates(db, tenantId, toolIds),
  };
}

/**
 * For every operation of the given tools: the newest revision whose contract hash equals the
 * operation's current hash (the only kind a simulation pins), and the newest revision of any hash.
 */
async function findPinCandidates(db: Database, tenantId: string, toolIds: readonly string[]): Promise<PinCandidates> {
  const pinnable = new Map<string, PinnableRevision>();
  const newest = new Map<string, NewestRevision>();
  if (toolIds.length === 0) return { pinnable, newest };
  const ids = [...toolIds];
  const [current, latest] = await Promise.all([
    db.all<{ tool_id: string; operation_id: string; revision: number; contract_hash: string; definition: string }>(sql`
      select r.tool_id, r.operation_id, r.revision, r.contract_hash, r.definition
      from tool_mock_revisions r
      join tool_operations o
        on o.tool_id = r.tool_id and o.operation_id = r.operation_id and o.contract_hash = r.contract_hash and o.tenant_id = r.tenant_id
      where r.tenant_id = ${tenantId} and r.tool_id in ${ids}
        and r.revision = (select max(r2.revision) from tool_mock_revisions r2
                          where r2.tool_id = r.tool_id and r2.operation_id = r.operation_id and r2.contract_hash = o.contract_hash)`),
    db.all<{ tool_id: string; operation_id: string; revision: number; contract_hash: string }>(sql`
      select r.tool_id, r.operation_id, r.revision, r.contract_hash
      from tool_mock_revisions r
      where r.tenant_id = ${tenantId} and r.tool_id in ${ids}
        and r.revision = (select max(r2.revision) from tool_mock_revisions r2
                          where r2.tool_id = r.tool_id and r2.operation_id = r.operation_id)`),
  ]);
  for (const row of current) {
    pinnable.set(operationKey(row.tool_id, row.operation_id), { ...row, definition: parseJsonColumn(row.definition) });
  }
  for (const row of latest) newest.set(operationKey(row.tool_id, row.operation_id), row);
  return { pinnable, newest };
}

interface NewAttempt {
  id: string;
  token_hash: string;
  expires_at: string;
}

interface NewSimulation {
  id: string;
  tenantId: string;
  createdBy: string;
  leaseSeconds: number;
  /** simulationPinnedText of what it pinned. */
  pinned: string;
  attempts: NewAttempt[];
}

/**
 * The `pinned` column of a simulation: what it pinned as JSON, refused (RowTooLarge) when one D1
 * row could not hold it. Inline tools carry their definitions here, up to 100 KB each, so a body
 * within its 4 MB can be past the row. Callers make it before they set up any object.
 */
export function simulationPinnedText(pinned: readonly PinnedRecord[]): string {
  const text = JSON.stringify(pinned);
  requireFitsRow(
    text,
    "the simulation's pinned operations",
    "register the tools in the library and pin them by tool_id, or split them across simulations",
  );
  return text;
}

export async function insertSimulation(db: Database, input: NewSimulation): Promise<void> {
  const [first, ...rest] = simulationStatements(db, input);
  await db.batch([first, ...rest]);
}

/** The statements that record one simulation and its attempts, for a caller that batches them with its own (a run). */
export function simulationStatements(db: Database, input: NewSimulation) {
  return [
    db.insert(simulations).values({
      id: input.id,
      tenant_id: input.tenantId,
      created_by: input.createdBy,
      lease_seconds: input.leaseSeconds,
      pinned: input.pinned,
    }),
    ...input.attempts.map((attempt) =>
      db.insert(attempts).values({
        id: attempt.id,
        simulation_id: input.id,
        tenant_id: input.tenantId,
        token_hash: attempt.token_hash,
        expires_at: attempt.expires_at,
        status: "active",
      }),
    ),
  ] as const;
}

/**
 * One attempt's row, written when a run's repetition is first claimed (its simulation row was
 * written at the run's start). Writing it again (a redelivery) changes nothing.
 */
export async function insertAttemptIfAbsent(
  db: Database,
  attempt: { id: string; simulationId: string; tenantId: string; token_hash: string; expires_at: string },
): Promise<void> {
  await db
    .insert(attempts)
    .values({
      id: attempt.id,
      simulation_id: attempt.simulationId,
      tenant_id: attempt.tenantId,
      token_hash: attempt.token_hash,
      expires_at: attempt.expires_at,
      status: "active",
    })
    .onConflictDoNothing()
    .run();
}

export type AttemptRow = typeof attempts.$inferSelect;

/** Every tool's state as the object last flushed it: {} before the first flush. */
export function attemptStateOf(row: Pick<AttemptRow, "state">): JsonObject {
  return parseJsonObjectColumn(row.state) ?? {};
}

/** The agent's completion (an external agent's final output and transcript); null until it completed. */
export function attemptCompletionOf(row: Pick<AttemptRow, "completion">): JsonValue | null {
  return row.completion === null ? null : parseJsonColumn(row.completion);
}

/** A simulation as its list and read routes show it: what it pinned, without inline definitions. */
export interface SimulationRecord {
  id: string;
  created_at: string;
  created_by: string;
  lease_seconds: number;
  pinned: Array<Omit<PinnedRecord, "inline">>;
  attempt_count: number;
}

interface SimulationSqlRow {
  id: string;
  created_at: string;
  created_by: string;
  lease_seconds: number;
  pinned: string;
  attempt_count: number;
}

/**
 * The columns of a SimulationRecord. Inline definitions (up to 100 KB each) are dropped in SQL,
 * so a page of simulations never carries them out of D1.
 */
const simulationColumns = sql`s.id, s.created_at, s.created_by, s.lease_seconds,
  (select json_group_array(json(json_remove(p.value, '$.inline'))) from (select value from json_each(s.pinned) order by key) p) as pinned,
  (select count(*) from attempts a where a.simulation_id = s.id) as attempt_count`;

/** Newest first; the cursor is the (created_at, id) of the last item of the previous page. */
export async function listSimulations(
  db: Database,
  tenantId: string,
  page: { limit: number; after?: { created_at: string; id: string } | undefined },
): Promise<{ items: SimulationRecord[]; next?: { created_at: string; id: string } | undefined }> {
  const after = page.after;
  const rows = await db.all<SimulationSqlRow>(sql`
    select ${simulationColumns}
    from simulations s
    where s.tenant_id = ${tenantId}
      ${after ? sql`and (s.created_at < ${after.created_at} or (s.created_at = ${after.created_at} and s.id < ${after.id}))` : sql``}
    order by s.created_at desc, s.id desc
    limit ${page.limit + 1}`);
  const items = rows.slice(0, page.limit).map(toSimulationRecord);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? { created_at: last.created_at, id: last.id } : undefined };
}

/** One simulation of the tenant with its attempts in the order they were created, or undefined. */
export async function getSimulation(
  db: Database,
  tenantId: string,
  id: string,
): Promise<{ simulation: SimulationRecord; attempts: AttemptRow[] } | undefined> {
  const [rows, attemptRows] = await Promise.all([
    db.all<SimulationSqlRow>(
      sql`select ${simulationColumns} from simulations s where s.id = ${id} and s.tenant_id = ${tenantId}`,
    ),
    db
      .select()
      .from(attempts)
      .where(and(eq(attempts.simulation_id, id), eq(attempts.tenant_id, tenantId)))
      .orderBy(sql`rowid`)
      .all(),
  ]);
  const row = rows[0];
  return row ? { simulation: toSimulationRecord(row), attempts: attemptRows } : undefined;
}

function toSimulationRecord(row: SimulationSqlRow): SimulationRecord {
  const pinned = parseJsonColumn(row.pinned);
  // SAFETY: the pinned column is written only by insertSimulation, from PinnedRecord values.
  return { ...row, pinned: (Array.isArray(pinned) ? pinned : []) as unknown as SimulationRecord["pinned"] };
}

export async function findAttempt(db: Database, attemptId: string): Promise<AttemptRow | undefined> {
  return db.select().from(attempts).where(eq(attempts.id, attemptId)).get();
}

/** Marks an attempt as failed by the harness in D1, whatever its object last reported. */
export async function markAttemptHarnessFailed(db: Database, attemptId: string): Promise<void> {
  await db.update(attempts).set({ status: "harness_failed" }).where(eq(attempts.id, attemptId)).run();
}

export interface AttemptSync {
  attemptId: string;
  tenantId: string;
  status: string;
  /** JSON text of per-tool state. */
  state: string;
  /** JSON text of the completion, or null. */
  completion: string | null;
}

/**
 * Writes a batch of evidence and the attempt's latest status in one atomic D1 batch.
 *
 * A row already in D1 exactly as sent (a retried alarm, an alarm that fired twice, a flush racing
 * a read) is left alone, so flushing the same rows again changes nothing. Any other clash on
 * (attempt_id, seq) or (attempt_id, call_id) is not skipped: the statement fails, the whole batch
 * with it, and the object keeps the rows and retries. A row is never dropped silently.
 */
export async function writeEvidence(db: Database, sync: AttemptSync, rows: readonly EvidenceRow[]): Promise<void> {
  const d1 = db.$client;
  const update = d1
    .prepare(`UPDATE attempts SET status = ?, state = ?, completion = ? WHERE id = ? AND tenant_id = ?`)
    .bind(sync.status, sync.state, sync.completion, sync.attemptId, sync.tenantId);
  if (rows.length === 0) {
    await update.run();
    return;
  }
  // All rows travel as one JSON array in one statement: a flush costs two statements whatever its
  // size (one INSERT per row made the flush of a busy attempt cost more than its calls).
  const insert = d1
    .prepare(INSERT_EVIDENCE)
    .bind(sync.attemptId, sync.tenantId, JSON.stringify(rows.map(evidenceValues)));
  await d1.batch([update, insert]);
}

/** The flush statement, derived from the one evidence column list (positions as evidenceValues). */
const INSERT_EVIDENCE = `INSERT INTO attempt_calls (attempt_id, tenant_id, ${EVIDENCE_COLUMNS.join(", ")})
  SELECT ?1, ?2, ${EVIDENCE_COLUMNS.map((_, i) => `value ->> ${i}`).join(", ")}
  FROM json_each(?3)
  WHERE NOT EXISTS (
    SELECT 1 FROM attempt_calls AS stored
    WHERE stored.attempt_id = ?1 AND stored.seq = value ->> 0 AND stored.tenant_id IS ?2
      AND ${EVIDENCE_COLUMNS.map((column, i) => `stored.${column} IS value ->> ${i}`).join(" AND ")}
  )`;

/** About how many bytes of evidence one flush statement may carry (D1 bounds a bound value at 2 MB). */
export const EVIDENCE_FLUSH_BYTES = 512 * 1024;

/**
 * The first rows whose JSON stays under EVIDENCE_FLUSH_BYTES (always at least one row). Every text
 * column counts, read through evidenceValues, so a column added later is counted too (the upstream
 * record was not, and a batch of real calls with long contract_violations lists could outgrow what
 * D1 takes in one statement: that flush would fail at every retry, and the evidence never reach D1).
 */
export function flushableRows(rows: readonly EvidenceRow[]): EvidenceRow[] {
  let bytes = 0;
  const taken: EvidenceRow[] = [];
  for (const row of rows) {
    const size =
      evidenceValues(row).reduce<number>((sum, value) => sum + (typeof value === "string" ? value.length : 0), 0) + 200;
    if (taken.length > 0 && bytes + size > EVIDENCE_FLUSH_BYTES) break;
    bytes += size;
    taken.push(row);
  }
  return taken;
}

/** Evidence in seq order, after `afterSeq`, at most `limit` rows. */
export async function listEvidence(
  db: Database,
  attemptId: string,
  afterSeq: number,
  limit: number,
): Promise<EvidenceRow[]> {
  const { results } = await db.$client
    .prepare(SELECT_EVIDENCE)
    .bind(attemptId, afterSeq, limit)
    .all<Record<string, unknown>>();
  return results.map(evidenceRowOf);
}

/** The evidence read, from the same column list as the flush that wrote it. */
const SELECT_EVIDENCE = `SELECT ${EVIDENCE_COLUMNS.join(", ")} FROM attempt_calls WHERE attempt_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3`;

interface CallCounts {
  calls: number;
  tool_input_errors: number;
  harness_errors: number;
}

export async function countEvidence(db: Database, attemptId: string): Promise<CallCounts> {
  const row = await db
    .select({
      calls: sql<number>`count(*)`,
      tool_input_errors: sql<number>`coalesce(sum(case when ${attemptCalls.outcome} = 'tool_input_error' then 1 else 0 end), 0)`,
      harness_errors: sql<number>`coalesce(sum(case when ${attemptCalls.outcome} = 'harness_error' then 1 else 0 end), 0)`,
    })
    .from(attemptCalls)
    .where(eq(attemptCalls.attempt_id, attemptId))
    .get();
  return {
    calls: row?.calls ?? 0,
    tool_input_errors: row?.tool_input_errors ?? 0,
    harness_errors: row?.harness_errors ?? 0,
  };
}

/**
 * An attempt's real-call figures from its flushed evidence, counted by the same SQL as its object
 * counts them; undefined when its simulation pinned no real operation (the object shows none then).
 */
export async function countRealEvidence(
  db: Database,
  attemptId: string,
  simulationId: string,
): Promise<RealCallCounts | undefined> {
  const row = await db.$client
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM simulations s, json_each(s.pinned) p WHERE s.id = ?2 AND p.value ->> 'mode' = 'real') AS real_operations, ${REAL_CALL_COUNTS}
       FROM attempt_calls WHERE attempt_id = ?1`,
    )
    .bind(attemptId, simulationId)
    .first<{ real_operations: number; real_calls: number; contract_violations: number }>();
  if (row?.real_operations !== 1) return undefined;
  return { real_calls: row.real_calls, contract_violations: row.contract_violations };
}
