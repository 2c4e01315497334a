import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CalibrationReport,
  calibrationReport,
  calibrationRequirement,
  cohensKappa,
  type LabelledRepetition,
} from "../../../src/core/scoring/calibration.js";

const verdicts = (judge_score: number, pass: boolean, times: number): LabelledRepetition[] =>
  Array.from({ length: times }, () => ({ judge_score, label: { kind: "verdict", pass } }));

// 20 labelled repetitions at threshold 4 (judge pass = score >= 4):
//   judge 5, human pass × 6   judge 4, human pass × 4   → both pass 10
//   judge 4, human fail × 3                              → judge pass, human fail 3
//   judge 3, human pass × 2                              → judge fail, human pass 2
//   judge 2, human fail × 3   judge 1, human fail × 2   → both fail 5
const LABELS = [
  ...verdicts(5, true, 6),
  ...verdicts(4, true, 4),
  ...verdicts(4, false, 3),
  ...verdicts(3, true, 2),
  ...verdicts(2, false, 3),
  ...verdicts(1, false, 2),
];

describe("calibration against hand labels", () => {
  it("computes the figures of a hand-computed confusion matrix", () => {
    // p_o = (10 + 5)/20 = 0.75
    // judge passes (10 + 3)/20 = 0.65, humans pass (10 + 2)/20 = 0.6
    // p_e = 0.65 · 0.6 + 0.35 · 0.4 = 0.39 + 0.14 = 0.53
    // kappa = (0.75 − 0.53)/(1 − 0.53) = 0.22/0.47 = 0.468085…
    // per score (agreement at 4): 5 → 6/6, 4 → 4/7, 3 → 0/2, 2 → 3/3, 1 → 2/2
    // best threshold (humans fixed, 12 pass: six at 5, four at 4, two at 3):
    //   t=1: 12/20 = 0.6; t=2: (12 + 2)/20 = 0.7; t=3: (12 + 5)/20 = 0.85; t=4: 0.75; t=5: (6 + 8)/20 = 0.7 → 3
    const report = calibrationReport([...LABELS, { judge_score: null, label: { kind: "verdict", pass: false } }], 4);
    const expected: CalibrationReport = {
      threshold: 4,
      labels: 20,
      unjudged_labels: 1,
      exact_agreement: 0.75,
      pass_fail_agreement: 0.75,
      kappa: 0.22 / 0.47,
      confusion: { both_pass: 10, both_fail: 5, judge_pass_human_fail: 3, judge_fail_human_pass: 2 },
      per_score: [
        { score: 1, labels: 2, human_pass: 0, agreement: 1 },
        { score: 2, labels: 3, human_pass: 0, agreement: 1 },
        { score: 3, labels: 2, human_pass: 2, agreement: 0 },
        { score: 4, labels: 7, human_pass: 4, agreement: 4 / 7 },
        { score: 5, labels: 6, human_pass: 6, agreement: 1 },
      ],
      best_threshold: { threshold: 3, agreement: 0.85 },
    };
    expect({ ...report, kappa: null }).toEqual({ ...expected, kappa: null });
    expect(report.kappa).toBeCloseTo(0.468085, 6);
  });

  it("reads score labels at the threshold, and exact agreement as the same score", () => {
    // judge 4 / human 4: exact, both pass; judge 5 / human 4: not exact, both pass; judge 3 / human 4: neither
    // exact 1/3; pass/fail 2/3; judge passes 2/3, humans 3/3 → p_e = 2/3 · 1 + 1/3 · 0 = 2/3, kappa = (2/3 − 2/3)/(1/3) = 0
    const report = calibrationReport(
      [
        { judge_score: 4, label: { kind: "score", score: 4 } },
        { judge_score: 5, label: { kind: "score", score: 4 } },
        { judge_score: 3, label: { kind: "score", score: 4 } },
      ],
      4,
    );
    expect([report.exact_agreement, report.pass_fail_agreement, report.kappa]).toEqual([1 / 3, 2 / 3, 0]);
    expect(report.confusion).toEqual({
      both_pass: 2,
      both_fail: 0,
      judge_pass_human_fail: 0,
      judge_fail_human_pass: 1,
    });
    // t=3 agrees on all three: 3/3
    expect(report.best_threshold).toEqual({ threshold: 3, agreement: 1 });
  });

  it.each<[string, Parameters<typeof cohensKappa>[0], number | null]>([
    // p_o = 1, p_e = 0.5 · 0.5 · 2 = 0.5 → (1 − 0.5)/0.5 = 1
    ["perfect agreement", { both_pass: 5, both_fail: 5, judge_pass_human_fail: 0, judge_fail_human_pass: 0 }, 1],
    // p_o = 0, p_e = 0.5 → (0 − 0.5)/0.5 = −1
    ["perfect disagreement", { both_pass: 0, both_fail: 0, judge_pass_human_fail: 5, judge_fail_human_pass: 5 }, -1],
    // everything passes on both sides: p_e = 1, so kappa is undefined
    ["one class only", { both_pass: 8, both_fail: 0, judge_pass_human_fail: 0, judge_fail_human_pass: 0 }, null],
    ["no labels", { both_pass: 0, both_fail: 0, judge_pass_human_fail: 0, judge_fail_human_pass: 0 }, null],
  ])("kappa: %s", (_name, matrix, kappa) => {
    expect(cohensKappa(matrix)).toBe(kappa);
  });

  it("keeps kappa within [−1, 1], and 1 exactly when every label agrees", () => {
    const cell = fc.integer({ min: 0, max: 50 });
    fc.assert(
      fc.property(cell, cell, cell, cell, (both_pass, both_fail, judge_pass_human_fail, judge_fail_human_pass) => {
        const kappa = cohensKappa({ both_pass, both_fail, judge_pass_human_fail, judge_fail_human_pass });
        if (kappa === null) return;
        expect(kappa).toBeGreaterThanOrEqual(-1 - 1e-12);
        expect(kappa).toBeLessThanOrEqual(1 + 1e-12);
        expect(Math.abs(kappa - 1) < 1e-12).toBe(judge_pass_human_fail + judge_fail_human_pass === 0);
      }),
      { numRuns: 300 },
    );
  });

  it("has no figures without labels", () => {
    expect(calibrationReport([], 4)).toEqual({
      threshold: 4,
      labels: 0,
      unjudged_labels: 0,
      exact_agreement: null,
      pass_fail_agreement: null,
      kappa: null,
      confusion: { both_pass: 0, both_fail: 0, judge_pass_human_fail: 0, judge_fail_human_pass: 0 },
      per_score: [1, 2, 3, 4, 5].map((score) => ({ score, labels: 0, human_pass: 0, agreement: null })),
      best_threshold: null,
    });
  });
});

describe("a suite's calibration requirement", () => {
  const report = calibrationReport(LABELS, 4); // 20 labels, kappa 0.468
  it.each<[string, CalibrationReport, { min_labels: number; min_kappa: number }, { met: boolean; sentence: string }]>([
    [
      "met",
      report,
      { min_labels: 20, min_kappa: 0.4 },
      { met: true, sentence: "The judge is calibrated: 20 labels (20 required) and a kappa of 0.47 (0.4 required)." },
    ],
    [
      "too few labels",
      report,
      { min_labels: 30, min_kappa: 0.4 },
      { met: false, sentence: "The judge has 20 of the 30 labels required and a kappa of 0.47 (0.4 required)." },
    ],
    [
      "kappa too low",
      report,
      { min_labels: 20, min_kappa: 0.6 },
      { met: false, sentence: "The judge has 20 labels (20 required) but a kappa of 0.47, below the 0.6 required." },
    ],
    [
      "neither",
      report,
      { min_labels: 30, min_kappa: 0.6 },
      {
        met: false,
        sentence: "The judge has 20 of the 30 labels required and a kappa of 0.47, below the 0.6 required.",
      },
    ],
    [
      "no labels yet",
      calibrationReport([], 4),
      { min_labels: 30, min_kappa: 0.6 },
      { met: false, sentence: "The judge has 0 of the 30 labels required and no kappa yet." },
    ],
    [
      "labels all in one class",
      calibrationReport(verdicts(5, true, 30), 4),
      { min_labels: 30, min_kappa: 0.6 },
      {
        met: false,
        sentence:
          "The judge has 30 labels (30 required) but no kappa: the labels and scores all fall in one class (all pass or all fail), so agreement beyond chance cannot be measured.",
      },
    ],
  ])("%s", (_name, r, required, expected) => {
    expect(calibrationRequirement(r, required)).toEqual(expected);
  });
});
