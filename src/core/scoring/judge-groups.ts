/**
 * A suite's hand labels split by the judge that scored each repetition: its connection, the model
 * behind it and the prompt version stored with the score. A different model or a changed prompt is
 * a different judge, so agreement measured for one says nothing about the other; each group gets
 * its own calibrationReport, and the suite's current judge is first (with an empty report when it
 * has no labels yet, so "0 labels" is visible rather than absent).
 */
import { calibrationReport, type CalibrationReport, type HumanLabel } from "./calibration.js";

export interface JudgeIdentity {
  /** The judge's connection; null for records that did not store it. */
  connection: string | null;
  /** The connection's model when the repetition was judged; null for records that did not store it. */
  model: string | null;
  prompt_version: string;
}

export interface SuiteLabel {
  /** The judge that was asked about the repetition, or null when none was. */
  judge: JudgeIdentity | null;
  /** Its score, or null when it gave none. */
  judge_score: number | null;
  label: HumanLabel;
}

export type JudgeCalibration = { judge: JudgeIdentity; current: boolean } & CalibrationReport;

export interface SuiteCalibration {
  /** Every group, the current judge's first. */
  judges: JudgeCalibration[];
  /** Labels on repetitions no judge was asked about (selection decided them, or they broke first). */
  labels_without_judge: number;
}

export function calibrationByJudge(
  labels: readonly SuiteLabel[],
  threshold: number,
  current: JudgeIdentity | null,
): SuiteCalibration {
  const groups = new Map<string, { judge: JudgeIdentity; labels: SuiteLabel[] }>();
  if (current) groups.set(keyOf(current), { judge: current, labels: [] });
  let withoutJudge = 0;
  for (const label of labels) {
    if (!label.judge) {
      withoutJudge++;
      continue;
    }
    const key = keyOf(label.judge);
    const group = groups.get(key) ?? { judge: label.judge, labels: [] };
    group.labels.push(label);
    groups.set(key, group);
  }
  const currentKey = current ? keyOf(current) : null;
  const judges = [...groups.entries()]
    .map(([key, group]) => ({
      key,
      judge: group.judge,
      current: key === currentKey,
      ...calibrationReport(group.labels, threshold),
    }))
    // The current judge first, then the most labelled, then by name so the order is stable.
    .sort(
      (a, b) =>
        Number(b.current) - Number(a.current) ||
        b.labels + b.unjudged_labels - (a.labels + a.unjudged_labels) ||
        a.key.localeCompare(b.key),
    )
    .map(({ key: _key, ...rest }) => rest);
  return { judges, labels_without_judge: withoutJudge };
}

function keyOf(judge: JudgeIdentity): string {
  return JSON.stringify([judge.connection, judge.model, judge.prompt_version]);
}
