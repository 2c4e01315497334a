/**
 * Eval runs in D1: one row per run (written when the run starts, then kept up to date by its
 * coordinator) and, once a run has ended, one row per repetition with its whole record. D1 is
 * what lists runs and outlives their coordinators.
 */
import { and, eq, gt, inArray, lte, sql } from "drizzle-orm";
import type { RepetitionRecord } from "../../core/evals/agent-types.js";
import { DistinctJson } from "../../core/distinct-json.js";
import type { JsonObject, JsonValue } from "../../core/json.js";
import type { Database } from "./database.js";
import { parseJsonColumn, parseJsonObjectColumn } from "./json-column.js";
import { runRepetitions, runs } from "./schema.js";

export type RunRow = typeof runs.$inferSelect;
type NewRunRow = typeof runs.$inferInsert;
export type RunRepetitionRow = typeof runRepetitions.$inferSelect;

/** What started the run (the API, a webhook and its source), as startRun wrote it. */
export function runTriggerOf(row: Pick<RunRow, "trigger">): JsonValue {
  return parseJsonColumn(row.trigger);
}

/** What a run pinned for one scenario, as its view lists it. */
interface ScenarioPins {
  scenario: string;
  pinned: JsonValue[];
}

/**
 * The `pinned` column as startRun writes it: each distinct pinned record once, and per scenario, in
 * scenario order, the indexes of its records. Why not a copy per scenario: the scenarios of a suite
 * usually pin the same operations, and D1 refuses a row over 2,000,000 bytes, which 1,000 scenarios'
 * copies of 8 records already passed; every progress update also rewrites the whole row.
 */
interface PinnedColumn {
  records: JsonValue[];
  scenarios: Array<{ scenario: string; pins: number[] }>;
}

export function runPinnedColumn(pinned: ReadonlyArray<{ scenario: string; pinned: readonly unknown[] }>): string {
  const records = new DistinctJson();
  const scenarios = pinned.map(({ scenario, pinned: list }) => ({
    scenario,
    pins: list.map((record) => records.indexOf(record)),
  }));
  // The records are JSON texts already: joined, not parsed and written again.
  return `{"records":[${records.texts.join(",")}],"scenarios":${JSON.stringify(scenarios)}}`;
}

/** The pinned revisions per scenario, in scenario order, as startRun pinned them. */
export function runPinnedOf(row: Pick<RunRow, "pinned">): ScenarioPins[] {
  const column = parseJsonColumn(row.pinned);
  // Rows written before the column was deduplicated hold the list itself: [{scenario, pinned}].
  // SAFETY: both shapes are written only by startRun, from JSON.stringify of these types.
  if (Array.isArray(column)) return column as unknown as ScenarioPins[];
  const { records, scenarios } = column as unknown as PinnedColumn;
  return scenarios.map(({ scenario, pins }) => ({ scenario, pinned: pins.map((index) => records[index] ?? null) }));
}

/** The run's scenario ids in order. */
export function runScenarioIdsOf(row: Pick<RunRow, "pinned">): string[] {
  return runPinnedOf(row).map((entry) => entry.scenario);
}

/** The summary the run's coordinator last wrote (its RunSummary); null before its first progress write. */
export function runSummaryOf(row: Pick<RunRow, "summary">): JsonObject | null {
  return parseJsonObjectColumn(row.summary) ?? null;
}

/** A repetition's whole record, as the coordinator copied it when the run ended. */
export function repetitionRecordOf(row: Pick<RunRepetitionRow, "record">): RepetitionRecord {
  // SAFETY: the record column is copied by the coordinator from JSON.stringify of a RepetitionRecord.
  return parseJsonColumn(row.record) as unknown as RepetitionRecord;
}

/** The changeable part of a run's row, as its coordinator computes it (run/progress.ts). */
export interface RunRowProgress {
  status: string;
  verdict: string | null;
  hard_fail: boolean;
  pass_rate: number | null;
  finished_repetitions: number;
  /** JSON text of the run's summary. */
  summary: string;
  started_at: string | null;
  finished_at: string | null;
}

/** The insert of a new run's row, for the caller to batch with its attempts' rows. */
export function runInsert(db: Database, row: NewRunRow) {
  return db.insert(runs).values(row);
}

/**
 * A progress update while the run is going. Updates land out of order when several are in flight,
 * so one never replaces a later one (more repetitions finished) or an ended run's final row.
 */
export async function writeRunProgress(db: Database, runId: string, progress: RunRowProgress): Promise<void> {
  await db
    .update(runs)
    .set(progress)
    .where(
      and(
        eq(runs.id, runId),
        inArray(runs.status, ["queued", "running"]),
        lte(runs.finished_repetitions, progress.finished_repetitions),
      ),
    )
    .run();
}

/** D1 allows 100 bound parameters per statement; a repetition row binds 8. */
const REPETITIONS_PER_BATCH = 50;

/**
 * The ended run: every repetition copied (a copy that runs twice changes nothing), then the final
 * row, which no later progress update can replace.
 */
export async function writeRunEnded(
  db: Database,
  runId: string,
  progress: RunRowProgress,
  repetitions: AsyncIterable<RunRepetitionRow[]> | Iterable<RunRepetitionRow[]>,
): Promise<void> {
  for await (const chunk of repetitions) {
    for (let i = 0; i < chunk.length; i += REPETITIONS_PER_BATCH) {
      const part = chunk.slice(i, i + REPETITIONS_PER_BATCH);
      const [first, ...rest] = part.map((row) => db.insert(runRepetitions).values(row).onConflictDoNothing());
      if (first) await db.batch([first, ...rest]);
    }
  }
  await db.update(runs).set(progress).where(eq(runs.id, runId)).run();
}

export async function getRun(db: Database, tenantId: string, runId: string): Promise<RunRow | undefined> {
  return db
    .select()
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.tenant_id, tenantId)))
    .get();
}

/** Newest first, optionally of one suite; the cursor is the (created_at, id) of the last item of the previous page. */
export async function listRuns(
  db: Database,
  tenantId: string,
  page: { suite?: string | undefined; limit: number; after?: { created_at: string; id: string } | undefined },
): Promise<{ items: RunRow[]; next?: { created_at: string; id: string } | undefined }> {
  const after = page.after;
  const rows = await db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.tenant_id, tenantId),
        page.suite === undefined ? undefined : eq(runs.suite_name, page.suite),
        after
          ? sql`(${runs.created_at} < ${after.created_at} or (${runs.created_at} = ${after.created_at} and ${runs.id} < ${after.id}))`
          : undefined,
      ),
    )
    .orderBy(sql`${runs.created_at} desc`, sql`${runs.id} desc`)
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? { created_at: last.created_at, id: last.id } : undefined };
}

export async function listRunRepetitions(
  db: Database,
  tenantId: string,
  runId: string,
  afterSeq: number,
  limit: number,
): Promise<RunRepetitionRow[]> {
  return db
    .select()
    .from(runRepetitions)
    .where(
      and(eq(runRepetitions.run_id, runId), eq(runRepetitions.tenant_id, tenantId), gt(runRepetitions.seq, afterSeq)),
    )
    .orderBy(runRepetitions.seq)
    .limit(limit)
    .all();
}

export async function getRunRepetition(
  db: Database,
  tenantId: string,
  runId: string,
  seq: number,
): Promise<RunRepetitionRow | undefined> {
  return db
    .select()
    .from(runRepetitions)
    .where(and(eq(runRepetitions.run_id, runId), eq(runRepetitions.tenant_id, tenantId), eq(runRepetitions.seq, seq)))
    .get();
}

/** The repetition an attempt ran, once its run has ended (rows are copied then); by the run_repetitions_attempt index. */
export async function findRunRepetitionOfAttempt(
  db: Database,
  tenantId: string,
  attemptId: string,
): Promise<RunRepetitionRow | undefined> {
  return db
    .select()
    .from(runRepetitions)
    .where(and(eq(runRepetitions.attempt_id, attemptId), eq(runRepetitions.tenant_id, tenantId)))
    .get();
}
