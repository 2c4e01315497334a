/**
 * The judge, checked against people, with an API key holding AIManager:RunEvals:
 *
 * - POST /api/runs/:id/labels           hand labels (pass/fail or a 1–5 score, with a note) for
 *                                       repetitions of an ended run; a new label replaces the old
 * - GET  /api/runs/:id/labels           the run's labels by repetition number (paged)
 * - GET  /api/suites/:name/calibration  the suite's judge against every label of its runs, per
 *                                       judge (connection, model, prompt version), current first
 *
 * Labels wait for the run's end because its repetitions reach D1 (run_repetitions) only then, and
 * a label must point at a repetition whose judge score is settled.
 */
import { Hono } from "hono";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { listRunLabels, putLabels, runRepetitionJudges, type RunLabel } from "../../adapters/d1/labels.js";
import { getRun, runScenarioIdsOf, type RunRow } from "../../adapters/d1/runs.js";
import { getSuiteVersion } from "../../adapters/d1/suites.js";
import { readLabels, type LabelledRun } from "../../core/evals/labels.js";
import { calibrationRequirement } from "../../core/scoring/calibration.js";
import type { RepetitionCause } from "../../core/scoring/repetition-verdict.js";
import { documentName } from "../http/document-body.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, invalidRequest, notFound } from "../http/errors.js";
import { suiteCalibration } from "./judge-calibration.js";
import { requirePermission } from "../http/auth.js";
import { readJson } from "../http/json-body.js";
import { pageCursor, pageLimit, POSITION_CURSOR } from "../http/pagination.js";
import { storedSuite } from "../suites/stored-suite.js";

/** 2000 labels (a whole run) with notes fit. */
const LABELS_BODY_LIMIT = 1024 * 1024;

export const labelRoutes = new Hono<AppEnv>();

labelRoutes.post("/runs/:id/labels", requirePermission("AIManager:RunEvals"), async (c) => {
  const { tenantId, keyId } = c.var.principal;
  const db = c.var.db;
  const row = await endedRun(db, tenantId, c.req.param("id"));
  const body = await readJson(c, LABELS_BODY_LIMIT);
  const read = readLabels(body, await labelledRun(db, row));
  if (!read.ok) throw invalidRequest(read.problems);

  const created_at = new Date().toISOString();
  await putLabels(
    db,
    read.labels.map((label) => ({
      run_id: row.id,
      seq: label.n,
      tenant_id: tenantId,
      suite_name: row.suite_name,
      label: label.label,
      score: label.score,
      note: label.note,
      created_by: keyId,
      created_at,
    })),
  );
  const written = new Set(read.labels.map((label) => label.n));
  const stored = (await listRunLabels(db, tenantId, row.id, 0, row.total_repetitions)).filter((label) =>
    written.has(label.seq),
  );
  return c.json({ run: row.id, items: stored.map(labelView), warnings: read.warnings });
});

labelRoutes.get("/runs/:id/labels", requirePermission("AIManager:RunEvals"), async (c) => {
  const row = await tenantRun(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  const limit = pageLimit(c);
  const after = pageCursor(c, POSITION_CURSOR) ?? 0;
  const items = await listRunLabels(c.var.db, row.tenant_id, row.id, after, limit + 1);
  const page = items.slice(0, limit);
  const last = page[page.length - 1];
  return c.json({
    run: row.id,
    items: page.map(labelView),
    next_cursor: items.length > limit && last ? encodeCursor([last.seq]) : null,
  });
});

labelRoutes.get("/suites/:name/calibration", requirePermission("AIManager:RunEvals"), async (c) => {
  const name = documentName(c.req.param("name"));
  const { tenantId } = c.var.principal;
  const stored = await getSuiteVersion(c.var.db, tenantId, name);
  if (!stored) throw notFound("suite");
  const suite = storedSuite(stored);
  const view = await suiteCalibration(c.var.db, tenantId, name, suite.judge);
  const requirement = suite.judge?.require_calibration ?? null;
  const current = view.judges.find((group) => group.current);
  return c.json({
    suite: name,
    suite_version: stored.version,
    threshold: view.threshold,
    judge: view.current,
    require_calibration: requirement,
    calibrated: requirement && current ? calibrationRequirement(current, requirement) : null,
    labels: view.labels,
    labels_without_judge: view.labels_without_judge,
    judges: view.judges,
  });
});

async function tenantRun(db: AppEnv["Variables"]["db"], tenantId: string, id: string): Promise<RunRow> {
  const row = await getRun(db, tenantId, id);
  if (!row) throw notFound("run");
  return row;
}

async function endedRun(db: AppEnv["Variables"]["db"], tenantId: string, id: string): Promise<RunRow> {
  const row = await tenantRun(db, tenantId, id);
  if (row.status !== "finished" && row.status !== "cancelled") {
    throw new ApiError(
      "run_not_ended",
      `run ${row.id} is ${row.status}: its repetitions can be labelled once it has ended (status finished or cancelled)`,
    );
  }
  return row;
}

/** The run as labelling reads it: its scenarios in order (from its pins) and each recorded repetition's judge. */
async function labelledRun(db: AppEnv["Variables"]["db"], row: RunRow): Promise<LabelledRun> {
  const repetitions = await runRepetitionJudges(db, row.tenant_id, row.id);
  return {
    scenarios: runScenarioIdsOf(row),
    runs_per_scenario: row.runs_per_scenario,
    repetitions: repetitions.map((r) => ({
      n: r.seq,
      scenario: r.scenario_id,
      repetition: r.repetition,
      judge_score: r.judge_kind === "score" ? r.judge_score : null,
      judge_asked: r.judge_kind !== null,
      // SAFETY: the verdict's cause is written from a RepetitionVerdict.
      cause: r.cause as RepetitionCause,
    })),
  };
}

function labelView(label: RunLabel) {
  return {
    n: label.seq,
    scenario: label.scenario_id,
    repetition: label.repetition,
    label: label.label,
    score: label.score,
    note: label.note,
    judge_score: label.judge_score,
    created_by: label.created_by,
    created_at: label.created_at,
  };
}
