/**
 * Checking the judge against people (issue 11; seed 000: "hand-label a few dozen runs and confirm
 * the judge agrees with you before you let it block a release"). Over the labelled repetitions of
 * one judge (connection, model and prompt version: the caller selects them), how often the judge
 * and the humans agree, how much of that is beyond chance (Cohen's kappa on pass/fail at the
 * suite's threshold), where they disagree, and which threshold would have agreed best.
 */
import type { CalibrationGate } from "./run-verdict.js";

/** A human's label: a verdict, or a score on the same 1–5 rubric (pass at score >= threshold). */
export type HumanLabel = { kind: "verdict"; pass: boolean } | { kind: "score"; score: number };

export interface LabelledRepetition {
  /** The judge's score for the repetition; null when the judge never scored it. */
  judge_score: number | null;
  label: HumanLabel;
}

export interface ConfusionMatrix {
  both_pass: number;
  both_fail: number;
  judge_pass_human_fail: number;
  judge_fail_human_pass: number;
}

export interface ScoreAgreement {
  /** The judge's score. */
  score: number;
  labels: number;
  /** Of those, how many the human passed. */
  human_pass: number;
  /** Share of them where judge and human agree on pass/fail at the threshold; null with no labels. */
  agreement: number | null;
}

export interface CalibrationReport {
  threshold: number;
  /** Labelled repetitions that have a judge score: the ones the figures below are over. */
  labels: number;
  /** Labelled repetitions without a judge score (selection decided them): not counted. */
  unjudged_labels: number;
  /** Share where the judge said exactly what the human said: the same score for a score label, the same pass/fail for a verdict label. */
  exact_agreement: number | null;
  /** Share agreeing on pass/fail at the threshold (the observed agreement p_o of kappa). */
  pass_fail_agreement: number | null;
  /** (p_o − p_e) / (1 − p_e); null without labels, or when p_e = 1 (both sides put everything in one class). */
  kappa: number | null;
  confusion: ConfusionMatrix;
  /** For each judge score 1–5. */
  per_score: ScoreAgreement[];
  /** The threshold 1–5 at which the judge's pass/fail would agree most with the humans'; null without labels. */
  best_threshold: { threshold: number; agreement: number } | null;
}

export interface CalibrationRequirement {
  min_labels: number;
  min_kappa: number;
}

interface Pair {
  judge: number;
  humanPass: boolean;
  label: HumanLabel;
}

export function calibrationReport(labelled: readonly LabelledRepetition[], threshold: number): CalibrationReport {
  const pairs: Pair[] = labelled.flatMap((l) =>
    l.judge_score === null
      ? []
      : [{ judge: l.judge_score, humanPass: humanPasses(l.label, threshold), label: l.label }],
  );
  const n = pairs.length;
  const confusion = confusionAt(pairs, threshold);
  const agreed = confusion.both_pass + confusion.both_fail;
  const exact = pairs.filter((p) =>
    p.label.kind === "score" ? p.label.score === p.judge : p.humanPass === p.judge >= threshold,
  ).length;

  return {
    threshold,
    labels: n,
    unjudged_labels: labelled.length - n,
    exact_agreement: n === 0 ? null : exact / n,
    pass_fail_agreement: n === 0 ? null : agreed / n,
    kappa: cohensKappa(confusion),
    confusion,
    per_score: [1, 2, 3, 4, 5].map((score) => {
      const at = pairs.filter((p) => p.judge === score);
      const agree = at.filter((p) => p.humanPass === score >= threshold).length;
      return {
        score,
        labels: at.length,
        human_pass: at.filter((p) => p.humanPass).length,
        agreement: at.length === 0 ? null : agree / at.length,
      };
    }),
    best_threshold: bestThreshold(pairs, threshold),
  };
}

function humanPasses(label: HumanLabel, threshold: number): boolean {
  return label.kind === "verdict" ? label.pass : label.score >= threshold;
}

function confusionAt(pairs: readonly Pair[], threshold: number): ConfusionMatrix {
  const matrix: ConfusionMatrix = { both_pass: 0, both_fail: 0, judge_pass_human_fail: 0, judge_fail_human_pass: 0 };
  for (const p of pairs) {
    const judgePass = p.judge >= threshold;
    if (judgePass && p.humanPass) matrix.both_pass++;
    else if (!judgePass && !p.humanPass) matrix.both_fail++;
    else if (judgePass) matrix.judge_pass_human_fail++;
    else matrix.judge_fail_human_pass++;
  }
  return matrix;
}

/** Cohen's kappa for two raters and two classes, from their confusion matrix. */
export function cohensKappa(m: ConfusionMatrix): number | null {
  const n = m.both_pass + m.both_fail + m.judge_pass_human_fail + m.judge_fail_human_pass;
  if (n === 0) return null;
  const observed = (m.both_pass + m.both_fail) / n;
  const judgePass = (m.both_pass + m.judge_pass_human_fail) / n;
  const humanPass = (m.both_pass + m.judge_fail_human_pass) / n;
  const chance = judgePass * humanPass + (1 - judgePass) * (1 - humanPass);
  if (chance >= 1) return null;
  return (observed - chance) / (1 - chance);
}

/**
 * The humans' pass/fail stays as labelled (a score label read at the suite's threshold); only the
 * judge's cut moves. Ties go to the threshold nearest the current one, then to the stricter.
 */
function bestThreshold(pairs: readonly Pair[], current: number): { threshold: number; agreement: number } | null {
  if (pairs.length === 0) return null;
  let best: { threshold: number; agreement: number } | null = null;
  for (const threshold of [1, 2, 3, 4, 5]) {
    const agreement = pairs.filter((p) => p.humanPass === p.judge >= threshold).length / pairs.length;
    const better =
      best === null ||
      agreement > best.agreement ||
      (agreement === best.agreement &&
        (Math.abs(threshold - current) < Math.abs(best.threshold - current) ||
          (Math.abs(threshold - current) === Math.abs(best.threshold - current) && threshold > best.threshold)));
    if (better) best = { threshold, agreement };
  }
  return best;
}

/** Whether the judge may gate a suite that requires calibration, and what is missing in words. */
export function calibrationRequirement(report: CalibrationReport, required: CalibrationRequirement): CalibrationGate {
  const enoughLabels = report.labels >= required.min_labels;
  const kappaMet = report.kappa !== null && report.kappa >= required.min_kappa;
  const labels = enoughLabels
    ? `${report.labels} labels (${required.min_labels} required)`
    : `${report.labels} of the ${required.min_labels} labels required`;
  const kappa =
    report.kappa === null
      ? report.labels === 0
        ? "no kappa yet"
        : "no kappa: the labels and scores all fall in one class (all pass or all fail), so agreement beyond chance cannot be measured"
      : `a kappa of ${round(report.kappa)}${kappaMet ? ` (${required.min_kappa} required)` : `, below the ${required.min_kappa} required`}`;
  if (enoughLabels && kappaMet) return { met: true, sentence: `The judge is calibrated: ${labels} and ${kappa}.` };
  return { met: false, sentence: `The judge has ${labels} ${enoughLabels ? "but" : "and"} ${kappa}.` };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
