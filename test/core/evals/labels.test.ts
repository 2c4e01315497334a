import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  humanLabelOf,
  type LabelledRun,
  type LabelledRunRepetition,
  readLabels,
} from "../../../src/core/evals/labels.js";

/**
 * A run of three scenarios × 2 repetitions: lookup (n 1, 2: judged 5 and 2), refusal (n 3, 4:
 * no calls, no judge), flaky (n 5: the judge gave no score; n 6 never ran, the run was cancelled).
 */
const judged = (n: number, scenario: string, repetition: number, score: number): LabelledRunRepetition => ({
  n,
  scenario,
  repetition,
  judge_score: score,
  judge_asked: true,
  cause: "judge_score",
});
const RUN: LabelledRun = {
  scenarios: ["lookup", "refusal", "flaky"],
  runs_per_scenario: 2,
  repetitions: [
    judged(1, "lookup", 1, 5),
    judged(2, "lookup", 2, 2),
    { n: 3, scenario: "refusal", repetition: 1, judge_score: null, judge_asked: false, cause: "no_calls_expected" },
    { n: 4, scenario: "refusal", repetition: 2, judge_score: null, judge_asked: false, cause: "forbidden_call" },
    { n: 5, scenario: "flaky", repetition: 1, judge_score: null, judge_asked: true, cause: "judge_error" },
  ],
};

describe("readLabels", () => {
  it("reads labels by number or by scenario and repetition, pass/fail or a score, with or without a note", () => {
    const read = readLabels(
      {
        labels: [
          { repetition: 1, label: "pass", note: "right invoice" },
          { repetition: { scenario: "lookup", repetition: 2 }, score: 2 },
          { repetition: { scenario: "refusal", repetition: 1 }, label: "pass", note: null },
        ],
      },
      RUN,
    );
    expect(read).toEqual({
      ok: true,
      labels: [
        { n: 1, label: "pass", score: null, note: "right invoice" },
        { n: 2, label: null, score: 2, note: null },
        { n: 3, label: "pass", score: null, note: null },
      ],
      warnings: [
        {
          path: "/labels/2/repetition",
          message:
            "repetition 3 (refusal #1) was decided without the judge (no calls, as expected): the label is stored, but it cannot measure the judge, and calibration counts it apart",
        },
      ],
    });
  });

  it("warns for every repetition the judge gave no score, naming why", () => {
    const read = readLabels(
      {
        labels: [
          { repetition: 4, label: "fail" },
          { repetition: 5, score: 3 },
        ],
      },
      RUN,
    );
    expect(read).toEqual({
      ok: true,
      labels: [
        { n: 4, label: "fail", score: null, note: null },
        { n: 5, label: null, score: 3, note: null },
      ],
      warnings: [
        {
          path: "/labels/0/repetition",
          message:
            "repetition 4 (refusal #2) was decided without the judge (a forbidden call): the label is stored, but it cannot measure the judge, and calibration counts it apart",
        },
        {
          path: "/labels/1/repetition",
          message:
            "repetition 5 (flaky #1) has no judge score (the judge was asked but gave none): the label is stored, but it cannot measure the judge, and calibration counts it apart",
        },
      ],
    });
  });

  it("reports every problem at once, each at its field", () => {
    const read = readLabels(
      {
        labels: [
          { repetition: 1, label: "pass", score: 5 },
          { repetition: 7, label: "pass" },
          { repetition: { scenario: "lookups", repetition: 3 }, label: "pass" },
          { repetition: 6, label: "fail" },
          { repetition: 2, label: "ok", notes: "typo" },
          { repetition: 2, score: 4.5 },
          { label: "pass" },
          { repetition: 1 },
          { repetition: { scenario: "lookup", repetition: 1 }, label: "fail", note: "" },
          "pass",
        ],
        extra: true,
      },
      RUN,
    );
    expect(read).toEqual({
      ok: false,
      problems: [
        { path: "/extra", message: 'unknown field "extra"; expected one of: labels' },
        {
          path: "/labels/0",
          message:
            'give either "label" (pass or fail) or "score" (1 to 5), not both: a score already says pass or fail at the suite\'s threshold',
        },
        {
          path: "/labels/1/repetition",
          message: "expected a repetition number from 1 to 6 (n in GET /api/runs/:id/repetitions), got 7",
        },
        {
          path: "/labels/2/repetition/scenario",
          message: 'expected one of the run\'s scenarios (lookup, refusal, flaky), got "lookups"',
        },
        {
          path: "/labels/2/repetition/repetition",
          message: "expected a repetition from 1 to 2 (the run's runs_per_scenario), got 3",
        },
        {
          path: "/labels/3/repetition",
          message: "repetition 6 (flaky #2) has no result to label: the run ended before it ran",
        },
        { path: "/labels/4/notes", message: 'unknown field "notes"; did you mean "note"?' },
        { path: "/labels/4/label", message: 'expected "pass" or "fail", got "ok"' },
        { path: "/labels/5/score", message: "expected a whole number from 1 to 5 (the judge's rubric), got 4.5" },
        {
          path: "/labels/5/repetition",
          message:
            "repetition 2 (lookup #2) is labelled twice in this request (also at /labels/4); send one label per repetition",
        },
        {
          path: "/labels/6/repetition",
          message: 'required: the repetition, as its number (1 to 6) or {"scenario": "<id>", "repetition": 1}',
        },
        { path: "/labels/7", message: 'required: "label" ("pass" or "fail") or "score" (1 to 5, the judge\'s rubric)' },
        {
          path: "/labels/7/repetition",
          message:
            "repetition 1 (lookup #1) is labelled twice in this request (also at /labels/0); send one label per repetition",
        },
        { path: "/labels/8/note", message: "expected a non-empty string" },
        {
          path: "/labels/8/repetition",
          message:
            "repetition 1 (lookup #1) is labelled twice in this request (also at /labels/0); send one label per repetition",
        },
        {
          path: "/labels/9",
          message: 'expected a label ({"repetition": 1, "label": "pass"} or {"repetition": 1, "score": 4}), got "pass"',
        },
      ],
    });
  });

  it("refuses a body without labels", () => {
    const expected = (got: string) => ({
      ok: false,
      problems: [
        {
          path: "/labels",
          message: `expected 1 to 2000 labels ([{"repetition": 1, "label": "pass"}, {"repetition": {"scenario": "<id>", "repetition": 2}, "score": 3}]), got ${got}`,
        },
      ],
    });
    expect(readLabels({ labels: [] }, RUN)).toEqual(expected("0"));
    expect(readLabels({}, RUN)).toEqual(expected("nothing"));
    expect(readLabels([], RUN)).toEqual({
      ok: false,
      problems: [{ path: "", message: 'expected {"labels": [{"repetition": 1, "label": "pass"}, ...]}, got an array' }],
    });
  });

  it("never throws, and answers problems at JSON Pointers or labels that are exactly one of pass/fail and a score", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ labels: fc.array(fc.jsonValue(), { maxLength: 5 }) }),
          fc.record({
            labels: fc.array(
              fc.record({ repetition: fc.integer({ min: 0, max: 8 }), label: fc.constantFrom("pass", "fail", "x") }),
              { maxLength: 5 },
            ),
          }),
        ),
        (body) => {
          const read = readLabels(body, RUN);
          if (read.ok) {
            expect(read.labels.length).toBeGreaterThan(0);
            for (const label of read.labels) {
              expect((label.label === null) !== (label.score === null)).toBe(true);
              expect(RUN.repetitions.some((r) => r.n === label.n)).toBe(true);
            }
          } else {
            for (const problem of read.problems) expect(problem.path).toMatch(/^(\/[^/]*)*$/);
            expect(read.problems.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads a stored label for calibration", () => {
    expect([
      humanLabelOf({ label: "pass", score: null }),
      humanLabelOf({ label: "fail", score: null }),
      humanLabelOf({ label: null, score: 3 }),
      humanLabelOf({ label: null, score: null }),
    ]).toEqual([{ kind: "verdict", pass: true }, { kind: "verdict", pass: false }, { kind: "score", score: 3 }, null]);
  });
});
