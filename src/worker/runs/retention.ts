/**
 * Retention: the Cron Trigger's scheduled handler deletes ended runs older than
 * TOOLPROOF_RETENTION_DAYS from D1, with everything they own (adapters/d1/run-deletion.ts).
 *
 * Bounded: at most MAX_RUNS_PER_SWEEP runs per invocation, each deleted in its own D1 batch, so
 * one sweep never holds D1 long whatever has piled up; the next cron tick takes the rest (oldest
 * first). Unset or empty: nothing is ever deleted. A value that is no whole number of days is a
 * configuration mistake: the sweep logs it and deletes nothing rather than guess.
 */
import { databaseOf } from "../../adapters/d1/database.js";
import { deleteEndedRun, endedRunsBefore } from "../../adapters/d1/run-deletion.js";
import type { Env } from "../platform/env.js";

const MAX_RUNS_PER_SWEEP = 200;
/** Runs looked up per query. */
const LOOKUP_BATCH = 25;
const MAX_RETENTION_DAYS = 36_500;
const DAY_MS = 86_400_000;

type RetentionSetting = { kind: "off" } | { kind: "days"; days: number } | { kind: "invalid"; message: string };

function retentionSetting(raw: string | undefined): RetentionSetting {
  if (raw === undefined || raw.trim() === "") return { kind: "off" };
  const text = raw.trim();
  const days = Number(text);
  if (!/^\d+$/.test(text) || days < 1 || days > MAX_RETENTION_DAYS) {
    return {
      kind: "invalid",
      message: `TOOLPROOF_RETENTION_DAYS is "${raw}": expected a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or unset to keep runs for good`,
    };
  }
  return { kind: "days", days };
}

interface RetentionSweep {
  /** Runs deleted by this sweep. */
  deleted: number;
  /** True when the limit stopped the sweep with older runs still to delete. */
  more: boolean;
}

/** Deletes ended runs that finished more than the retention setting's days before `now`. */
export async function sweepRetention(env: Env, now: number, limit = MAX_RUNS_PER_SWEEP): Promise<RetentionSweep> {
  const setting = retentionSetting(env.TOOLPROOF_RETENTION_DAYS);
  if (setting.kind === "invalid") console.error(`retention sweep skipped: ${setting.message}`);
  if (setting.kind !== "days") return { deleted: 0, more: false };
  const db = databaseOf(env.DB);
  const before = new Date(now - setting.days * DAY_MS).toISOString();
  let deleted = 0;
  // Counted by runs looked at, not deleted, so the loop ends even if a run could not be deleted.
  for (let examined = 0; examined < limit; ) {
    const due = await endedRunsBefore(db, before, Math.min(LOOKUP_BATCH, limit - examined));
    if (due.length === 0) return { deleted, more: false };
    examined += due.length;
    for (const run of due) {
      if ((await deleteEndedRun(db, run.tenant_id, run.id)).kind === "deleted") deleted++;
    }
  }
  return { deleted, more: (await endedRunsBefore(db, before, 1)).length > 0 };
}
