/**
 * A suite's judge checked against its hand labels: the D1 reads (labels joined with what each
 * labelled repetition's judge said, the judge connection's current model) turned into core
 * scoring's reports. Shared by GET /api/suites/:name/calibration and the start of a run, so the
 * figures a person reads are the ones the gate used.
 */
import { findConnection } from "../../adapters/d1/connections.js";
import type { Database } from "../../adapters/d1/database.js";
import { suiteLabels, type SuiteLabelRow } from "../../adapters/d1/labels.js";
import { humanLabelOf } from "../../core/evals/labels.js";
import { DEFAULT_JUDGE_THRESHOLD, type JudgeSpec } from "../../core/evals/suite-types.js";
import { calibrationRequirement } from "../../core/scoring/calibration.js";
import { JUDGE_PROMPT_VERSION } from "../../core/scoring/judge-prompt.js";
import {
  calibrationByJudge,
  type JudgeIdentity,
  type SuiteCalibration,
  type SuiteLabel,
} from "../../core/scoring/judge-groups.js";
import type { CalibrationGate } from "../../core/scoring/run-verdict.js";

export interface SuiteCalibrationView extends SuiteCalibration {
  threshold: number;
  /** The suite's judge as a run started now would use it; null when the suite has no judge. */
  current: JudgeIdentity | null;
  labels: number;
}

export async function suiteCalibration(
  db: Database,
  tenantId: string,
  suiteName: string,
  judge: JudgeSpec | undefined,
): Promise<SuiteCalibrationView> {
  const [rows, current] = await Promise.all([suiteLabels(db, tenantId, suiteName), currentJudge(db, tenantId, judge)]);
  const threshold = judge?.threshold ?? DEFAULT_JUDGE_THRESHOLD;
  const labels = rows.flatMap(suiteLabelOf);
  return { threshold, current, labels: labels.length, ...calibrationByJudge(labels, threshold, current) };
}

/**
 * Whether the suite's judge may gate a run started now: undefined when the suite does not require
 * calibration, else the current judge's report held to the requirement.
 */
export async function calibrationGate(
  db: Database,
  tenantId: string,
  suiteName: string,
  judge: JudgeSpec | undefined,
): Promise<CalibrationGate | undefined> {
  if (!judge?.require_calibration) return undefined;
  const view = await suiteCalibration(db, tenantId, suiteName, judge);
  const report = view.judges.find((group) => group.current);
  if (!report) throw new Error("a suite with a judge always has its current judge's group");
  return calibrationRequirement(report, judge.require_calibration);
}

async function currentJudge(
  db: Database,
  tenantId: string,
  judge: JudgeSpec | undefined,
): Promise<JudgeIdentity | null> {
  if (!judge) return null;
  const connection = await findConnection(db, tenantId, judge.connection);
  return { connection: judge.connection, model: connection?.model ?? null, prompt_version: JUDGE_PROMPT_VERSION };
}

function suiteLabelOf(row: SuiteLabelRow): SuiteLabel[] {
  const label = humanLabelOf(row);
  if (!label) return [];
  const asked = row.judge_kind !== null;
  return [
    {
      judge: asked
        ? { connection: row.judge_connection, model: row.judge_model, prompt_version: row.prompt_version ?? "unknown" }
        : null,
      judge_score: row.judge_kind === "score" ? row.judge_score : null,
      label,
    },
  ];
}
