import { describe, expect, it } from "vitest";
import { type LabelledRun, readLabels } from "../../../src/core/evals/labels.js";

/** A repetition graded by its end state or its outputs was decided in code: a label on it says so. */
const RUN: LabelledRun = {
  scenarios: ["cancel"],
  runs_per_scenario: 2,
  repetitions: [
    { n: 1, scenario: "cancel", repetition: 1, judge_score: null, judge_asked: false, cause: "end_state" },
    { n: 2, scenario: "cancel", repetition: 2, judge_score: null, judge_asked: false, cause: "outputs" },
  ],
};

describe("labels on repetitions graded by their outcome", () => {
  it("warn that the outcome, not the judge and not an error, decided them", () => {
    const read = readLabels(
      {
        labels: [
          { repetition: 1, label: "pass" },
          { repetition: 2, label: "fail" },
        ],
      },
      RUN,
    );
    expect(read).toMatchObject({
      ok: true,
      warnings: [
        {
          path: "/labels/0/repetition",
          message:
            "repetition 1 (cancel #1) was decided without the judge (by its end state): the label is stored, but it cannot measure the judge, and calibration counts it apart",
        },
        {
          path: "/labels/1/repetition",
          message:
            "repetition 2 (cancel #2) was decided without the judge (by its required outputs): the label is stored, but it cannot measure the judge, and calibration counts it apart",
        },
      ],
    });
  });
});
