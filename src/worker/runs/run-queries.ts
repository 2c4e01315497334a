/** One run of a tenant and its figures, read from its coordinator while it is live and from D1 once it has ended: shared by the run routes and the dashboard. */
import { getRun, getRunRepetition, listRunRepetitions, type RunRow } from "../../adapters/d1/runs.js";
import type { AppEnv } from "../platform/env.js";
import { notFound } from "../http/errors.js";
import type { RunProgress } from "./coordinator/progress.js";
import { runStub } from "./coordinator/access.js";
import { itemOfEntry, itemOfRow, progressOfRow, type RepetitionItem } from "./view.js";

export async function tenantRun(db: AppEnv["Variables"]["db"], tenantId: string, id: string): Promise<RunRow> {
  const row = await getRun(db, tenantId, id);
  if (!row) throw notFound("run");
  return row;
}

function live(row: RunRow): boolean {
  return row.status === "queued" || row.status === "running";
}

/** A live run's figures from its coordinator; an ended one's from its row. */
export async function progressOf(env: AppEnv["Bindings"], row: RunRow): Promise<RunProgress | null> {
  if (live(row)) {
    const reply = await runStub(env, row.id).progress();
    if (reply.kind === "ok") return reply.progress;
  }
  return progressOfRow(row);
}

export async function repetitionItems(
  env: AppEnv["Bindings"],
  db: AppEnv["Variables"]["db"],
  row: RunRow,
  afterSeq: number,
  limit: number,
): Promise<RepetitionItem[]> {
  if (live(row)) {
    const reply = await runStub(env, row.id).repetitions(afterSeq, limit);
    if (reply.kind === "ok") return reply.items.map(itemOfEntry);
  }
  if (limit === 1) {
    const one = await getRunRepetition(db, row.tenant_id, row.id, afterSeq + 1);
    return one ? [itemOfRow(one)] : [];
  }
  return (await listRunRepetitions(db, row.tenant_id, row.id, afterSeq, limit)).map(itemOfRow);
}
