/**
 * The run's D1 row, which follows the coordinator: inserted when the run starts (start-run.ts),
 * updated with the progress while it runs (coalesced by progress-writer.ts, and guarded in SQL so
 * an older write never replaces a newer one), and written for the last time when it ends, when
 * every record is copied to `run_repetitions` and the run's callback is queued.
 */
import { databaseOf } from "../../../adapters/d1/database.js";
import { type RunRowProgress, writeRunEnded, writeRunProgress } from "../../../adapters/d1/runs.js";
import type { Env } from "../../platform/env.js";
import { queueRunCallback } from "../callbacks.js";
import type { RunProgress } from "./progress.js";
import { repetitionRows } from "./records.js";
import type { RunStorage, StoredRun } from "./storage.js";

/** The live run's progress to its row. */
export async function writeProgressRow(env: Env, run: StoredRun, progress: RunProgress): Promise<void> {
  await writeRunProgress(databaseOf(env.DB), run.start.run_id, rowOf(progress));
}

/**
 * The ended run to D1: every record to run_repetitions, then the final row, then its callback.
 * Throws when any of it is refused; the caller retries it until it lands, never skips it.
 */
export async function writeEndedRun(
  env: Env,
  run: StoredRun,
  storage: RunStorage,
  progress: RunProgress,
): Promise<void> {
  await writeRunEnded(databaseOf(env.DB), run.start.run_id, rowOf(progress), repetitionRows(run, storage));
  await queueRunCallback(env, run.start.tenant_id, run.start.run_id);
}

function rowOf(progress: RunProgress): RunRowProgress {
  return {
    status: progress.status,
    verdict: progress.verdict,
    hard_fail: progress.hard_fail,
    pass_rate: progress.pass_rate,
    finished_repetitions: progress.finished_repetitions,
    summary: JSON.stringify(progress.summary),
    started_at: progress.started_at,
    finished_at: progress.finished_at,
  };
}
