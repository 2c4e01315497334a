import { describe, expect, it } from "vitest";
import { calibrationReport, type HumanLabel } from "../../../src/core/scoring/calibration.js";
import { calibrationByJudge, type JudgeIdentity, type SuiteLabel } from "../../../src/core/scoring/judge-groups.js";

const M1: JudgeIdentity = { connection: "judge", model: "m1", prompt_version: "v1" };
const M0: JudgeIdentity = { connection: "judge", model: "m0", prompt_version: "v1" };
const pass: HumanLabel = { kind: "verdict", pass: true };
const fail: HumanLabel = { kind: "verdict", pass: false };
const times = (n: number, label: SuiteLabel): SuiteLabel[] => Array.from({ length: n }, () => label);

// Judge m1, threshold 4 (judge pass = score >= 4):
//   5 / pass × 3 → both pass 3        4 / fail × 1 → judge pass, human fail 1
//   2 / fail × 2 → both fail 2        3 / score 4 × 1 → judge fail, human pass 1 (4 >= 4)
//   asked, no score / pass × 1 → unjudged, not counted
// n = 7; p_o = 5/7; judge passes 4/7, humans pass 4/7; p_e = (4/7)² + (3/7)² = 25/49
// kappa = (35/49 − 25/49) / (24/49) = 10/24 = 5/12
// exact: 3 + 0 + 2 verdicts agree, the score label 4 ≠ 3 → 5/7
// best threshold (humans fixed: the three 5s and the 3 pass): t=1,2: 4/7; t=3: 6/7; t=4: 5/7; t=5: 6/7
//   → 3 and 5 tie at 6/7, both 1 from 4: the stricter, 5
const M1_LABELS: SuiteLabel[] = [
  ...times(3, { judge: M1, judge_score: 5, label: pass }),
  { judge: M1, judge_score: 4, label: fail },
  ...times(2, { judge: M1, judge_score: 2, label: fail }),
  { judge: M1, judge_score: 3, label: { kind: "score", score: 4 } },
  { judge: M1, judge_score: null, label: pass },
];
// Judge m0: 5 / pass, 1 / fail → p_o = 1, p_e = 1/2 · 1/2 + 1/2 · 1/2 = 1/2, kappa = (1 − 1/2)/(1/2) = 1
const M0_LABELS: SuiteLabel[] = [
  { judge: M0, judge_score: 5, label: pass },
  { judge: M0, judge_score: 1, label: fail },
];
const NO_JUDGE: SuiteLabel[] = times(2, { judge: null, judge_score: null, label: pass });

const M1_REPORT = {
  judge: M1,
  threshold: 4,
  labels: 7,
  unjudged_labels: 1,
  exact_agreement: 5 / 7,
  pass_fail_agreement: 5 / 7,
  kappa: 5 / 12,
  confusion: { both_pass: 3, both_fail: 2, judge_pass_human_fail: 1, judge_fail_human_pass: 1 },
  per_score: [
    { score: 1, labels: 0, human_pass: 0, agreement: null },
    { score: 2, labels: 2, human_pass: 0, agreement: 1 },
    { score: 3, labels: 1, human_pass: 1, agreement: 0 },
    { score: 4, labels: 1, human_pass: 0, agreement: 0 },
    { score: 5, labels: 3, human_pass: 3, agreement: 1 },
  ],
  best_threshold: { threshold: 5, agreement: 6 / 7 },
};

describe("calibration per judge", () => {
  it("splits the labels by connection, model and prompt version, the current judge first", () => {
    const result = calibrationByJudge([...M0_LABELS, ...NO_JUDGE, ...M1_LABELS], 4, M1);
    const kappas = result.judges.map((group) => group.kappa);
    expect(kappas[0]).toBeCloseTo(5 / 12, 12);
    expect(kappas[1]).toBeCloseTo(1, 12);
    expect({ ...result, judges: result.judges.map((group) => ({ ...group, kappa: null })) }).toEqual({
      judges: [
        { ...M1_REPORT, current: true, kappa: null },
        { judge: M0, current: false, ...calibrationReport(M0_LABELS, 4), kappa: null },
      ],
      labels_without_judge: 2,
    });
  });

  it("shows the current judge with no labels yet rather than leaving it out, then the others by labels", () => {
    const M2 = { ...M1, model: "m2" };
    const result = calibrationByJudge([...M0_LABELS, ...M1_LABELS], 4, M2);
    expect(
      result.judges.map((group) => [group.judge.model, group.current, group.labels, group.kappa === null]),
    ).toEqual([
      ["m2", true, 0, true],
      ["m1", false, 7, false],
      ["m0", false, 2, false],
    ]);
    expect(result.judges[0]).toEqual({ judge: M2, current: true, ...calibrationReport([], 4) });
  });

  it("tells a changed prompt version apart, and has no current judge for a suite without one", () => {
    const v2 = { ...M1, prompt_version: "v2" };
    const result = calibrationByJudge([{ judge: v2, judge_score: 5, label: pass }, ...M0_LABELS], 4, null);
    expect(result.judges.map((group) => [group.judge, group.current, group.labels])).toEqual([
      [M0, false, 2],
      [v2, false, 1],
    ]);
  });
});
