/**
 * Hand labels of run repetitions (judge_labels), and the parts of repetition records that labelling
 * and calibration read. The records are JSON documents with whole transcripts, so only the few
 * fields needed are extracted in SQL (json_extract) rather than every record parsed here.
 */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Database } from "./database.js";
import { judgeLabels, runRepetitions } from "./schema.js";

type JudgeLabelRow = typeof judgeLabels.$inferSelect;

/** D1 allows 100 bound parameters per statement; a label row binds 10. */
const LABELS_PER_STATEMENT = 9;

/** What a repetition's record says about its judge, as SQL extracts it. */
interface RepetitionJudgeFields {
  seq: number;
  scenario_id: string;
  repetition: number;
  /** "score" or "error" when the judge was asked; null when it was not. */
  judge_kind: string | null;
  judge_score: number | null;
  judge_connection: string | null;
  judge_model: string | null;
  prompt_version: string | null;
  cause: string;
}

const judgeFields = {
  seq: runRepetitions.seq,
  scenario_id: runRepetitions.scenario_id,
  repetition: runRepetitions.repetition,
  judge_kind: sql<string | null>`json_extract(${runRepetitions.record}, '$.judge.outcome.kind')`,
  judge_score: sql<number | null>`json_extract(${runRepetitions.record}, '$.judge.outcome.score')`,
  judge_connection: sql<string | null>`json_extract(${runRepetitions.record}, '$.judge.connection')`,
  judge_model: sql<string | null>`json_extract(${runRepetitions.record}, '$.judge.model')`,
  prompt_version: sql<string | null>`json_extract(${runRepetitions.record}, '$.judge.prompt_version')`,
  cause: sql<string>`json_extract(${runRepetitions.record}, '$.verdict.cause')`,
};

/** Every recorded repetition of a run, with its judge's fields, in order. */
export async function runRepetitionJudges(
  db: Database,
  tenantId: string,
  runId: string,
): Promise<RepetitionJudgeFields[]> {
  return db
    .select(judgeFields)
    .from(runRepetitions)
    .where(and(eq(runRepetitions.run_id, runId), eq(runRepetitions.tenant_id, tenantId)))
    .orderBy(asc(runRepetitions.seq))
    .all();
}

/** Writes labels in one batch (one transaction): a label for a repetition that has one replaces it. */
export async function putLabels(db: Database, rows: readonly JudgeLabelRow[]): Promise<void> {
  const statements = [];
  for (let i = 0; i < rows.length; i += LABELS_PER_STATEMENT) {
    statements.push(
      db
        .insert(judgeLabels)
        .values(rows.slice(i, i + LABELS_PER_STATEMENT))
        .onConflictDoUpdate({
          target: [judgeLabels.run_id, judgeLabels.seq],
          set: {
            label: sql`excluded.label`,
            score: sql`excluded.score`,
            note: sql`excluded.note`,
            created_by: sql`excluded.created_by`,
            created_at: sql`excluded.created_at`,
          },
        }),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

export type RunLabel = JudgeLabelRow & Pick<RepetitionJudgeFields, "scenario_id" | "repetition" | "judge_score">;

/** A run's labels by repetition number, with which repetition each is and the judge's score. */
export async function listRunLabels(
  db: Database,
  tenantId: string,
  runId: string,
  afterSeq: number,
  limit: number,
): Promise<RunLabel[]> {
  const rows = await db
    .select({
      label: judgeLabels,
      scenario_id: runRepetitions.scenario_id,
      repetition: runRepetitions.repetition,
      judge_score: judgeFields.judge_score,
    })
    .from(judgeLabels)
    .innerJoin(
      runRepetitions,
      and(eq(runRepetitions.run_id, judgeLabels.run_id), eq(runRepetitions.seq, judgeLabels.seq)),
    )
    .where(and(eq(judgeLabels.run_id, runId), eq(judgeLabels.tenant_id, tenantId), gt(judgeLabels.seq, afterSeq)))
    .orderBy(asc(judgeLabels.seq))
    .limit(limit)
    .all();
  return rows.map(({ label, ...rest }) => ({ ...label, ...rest }));
}

export type SuiteLabelRow = Pick<JudgeLabelRow, "label" | "score"> &
  Omit<RepetitionJudgeFields, "seq" | "scenario_id" | "repetition" | "cause">;

/** Every label of a suite's runs with what the labelled repetition's judge said. */
export async function suiteLabels(db: Database, tenantId: string, suiteName: string): Promise<SuiteLabelRow[]> {
  const { judge_kind, judge_score, judge_connection, judge_model, prompt_version } = judgeFields;
  return db
    .select({
      label: judgeLabels.label,
      score: judgeLabels.score,
      judge_kind,
      judge_score,
      judge_connection,
      judge_model,
      prompt_version,
    })
    .from(judgeLabels)
    .innerJoin(
      runRepetitions,
      and(eq(runRepetitions.run_id, judgeLabels.run_id), eq(runRepetitions.seq, judgeLabels.seq)),
    )
    .where(and(eq(judgeLabels.tenant_id, tenantId), eq(judgeLabels.suite_name, suiteName)))
    .all();
}
