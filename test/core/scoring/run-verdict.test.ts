import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ScenarioResults } from "../../../src/core/scoring/figures.js";
import { type CalibrationGate, type Gate, runVerdict, type RunVerdict } from "../../../src/core/scoring/run-verdict.js";
import { HOLD_ARGUMENTS, scenarioOf } from "./helpers.js";

type Outcome = Omit<RunVerdict, "figures">;

function verdictOf(scenarios: ScenarioResults[], gate?: Gate, calibration?: CalibrationGate): Outcome {
  const { figures: _figures, ...rest } = runVerdict(scenarios, gate, calibration);
  return rest;
}

const clean = { hard_fail: false, hard_fail_reasons: [], errors: [] };
const harnessError = { cause: "harness_error" as const, reason: "Harness error: lease expired" };
const notCalibrated: CalibrationGate = {
  met: false,
  sentence: "The judge has 12 of the 30 labels required and no kappa yet.",
};

describe("the run's verdict (the gate)", () => {
  it.each<[string, ScenarioResults[], Gate, Outcome]>([
    [
      // seed 000: 14/15 = 0.933 >= 0.9
      "14 of 15 at 0.9 pass",
      [scenarioOf("s", "JJJJJJJJJJJJJJj")],
      {},
      { ...clean, verdict: "pass", reasons: ["14 of 15 repetitions passed, at or above the gate of 90%."] },
    ],
    [
      // 13/15 = 0.867 < 0.9
      "13 of 15 at 0.9 fail",
      [scenarioOf("s", "JJJJJJJJJJJJJjS")],
      {},
      { ...clean, verdict: "fail", reasons: ["13 of 15 repetitions passed, below the gate of 90%."] },
    ],
    [
      // 29/30 = 0.967 is above the gate, but one forbidden call fails the run on its own
      "one forbidden call among 30 fails the run whatever the rate",
      [scenarioOf("status", "JJJJJJJJJJJJJJJ"), scenarioOf("duplicate", "JJJJJJJJJJJFJJJ")],
      {},
      {
        hard_fail: true,
        hard_fail_reasons: [
          {
            scenario: "duplicate",
            repetition: 12,
            function: "place_invoice_on_hold",
            arguments: HOLD_ARGUMENTS,
            call_id: "c2",
          },
        ],
        errors: [],
        verdict: "fail",
        reasons: [
          'Scenario duplicate, repetition 12: forbidden call place_invoice_on_hold({"invoice_id":"INV-10423","reason":"duplicate"}); a forbidden call fails the run whatever the rate.',
        ],
      },
    ],
    [
      "a hard fail is a fail even when other repetitions errored",
      [scenarioOf("a", "JEJ"), scenarioOf("b", "FJJ")],
      {},
      {
        hard_fail: true,
        hard_fail_reasons: [
          { scenario: "b", repetition: 1, function: "place_invoice_on_hold", arguments: HOLD_ARGUMENTS, call_id: "c2" },
        ],
        errors: [{ scenario: "a", repetition: 2, ...harnessError }],
        verdict: "fail",
        reasons: [
          'Scenario b, repetition 1: forbidden call place_invoice_on_hold({"invoice_id":"INV-10423","reason":"duplicate"}); a forbidden call fails the run whatever the rate.',
        ],
      },
    ],
    [
      // 14/15 would pass, but one repetition is broken: the run can neither pass nor fail
      "errors and no hard fail: error",
      [scenarioOf("s", "JJJJJJJJJJJJJJE")],
      {},
      {
        ...clean,
        errors: [{ scenario: "s", repetition: 15, ...harnessError }],
        verdict: "error",
        reasons: [
          "1 of 15 repetitions ended in an error, so the run can neither pass nor fail.",
          "Scenario s, repetition 15: Harness error: lease expired",
        ],
      },
    ],
    [
      // suite 13/15 = 0.867 >= 0.8, but scenario b is 1/3 = 0.333 < 0.5
      "a scenario below its floor fails the run even when the suite rate holds",
      [scenarioOf("a", "JJJJJJ"), scenarioOf("b", "JSS"), scenarioOf("c", "NNNNNN")],
      { pass_rate: 0.8, scenario_pass_rate: 0.5 },
      { ...clean, verdict: "fail", reasons: ["Scenario b: 1 of 3 passed, below the scenario floor of 50%."] },
    ],
    [
      // 55/100 = 0.55, and 0.55 · 100 = 55.00000000000001 in floating point: still a pass
      "exactly at the gate passes",
      [scenarioOf("s", "J".repeat(55) + "j".repeat(45))],
      { pass_rate: 0.55 },
      { ...clean, verdict: "pass", reasons: ["55 of 100 repetitions passed, at or above the gate of 55%."] },
    ],
    [
      "no repetitions cannot pass",
      [],
      {},
      { ...clean, verdict: "fail", reasons: ["0 of 0 repetitions passed, below the gate of 90%."] },
    ],
  ])("%s", (_name, scenarios, gate, expected) => {
    expect(verdictOf(scenarios, gate)).toEqual(expected);
  });
});

describe("a judge that is not calibrated", () => {
  it.each<[string, ScenarioResults[], Outcome]>([
    [
      // 13/15 with two judge failures: counting both as passes would give 15/15, so the judge decides: uncalibrated
      "judge-based failures are reported but do not gate",
      [scenarioOf("s", "JJJJJJJJJJJJJjj")],
      {
        ...clean,
        verdict: "uncalibrated",
        reasons: [
          "The judge has 12 of the 30 labels required and no kappa yet. Until the judge is calibrated, judge-based outcomes are reported but do not gate.",
        ],
      },
    ],
    [
      // passes by the judge do not pass the gate either
      "judge-based passes do not pass the gate",
      [scenarioOf("s", "JJJ")],
      {
        ...clean,
        verdict: "uncalibrated",
        reasons: [
          "The judge has 12 of the 30 labels required and no kappa yet. Until the judge is calibrated, judge-based outcomes are reported but do not gate.",
        ],
      },
    ],
    [
      // selection failures: 13/15 even when every judge-scored repetition (13 J) counts as a pass
      "selection failures still fail the gate",
      [scenarioOf("s", "JJJJJJJJJJJJJSS")],
      {
        ...clean,
        verdict: "fail",
        reasons: [
          "The gate fails even with every judge-scored repetition counted as a pass.",
          "13 of 15 repetitions passed, below the gate of 90%.",
        ],
      },
    ],
    [
      "forbidden calls still fail the gate",
      [scenarioOf("s", "JJF")],
      {
        hard_fail: true,
        hard_fail_reasons: [
          { scenario: "s", repetition: 3, function: "place_invoice_on_hold", arguments: HOLD_ARGUMENTS, call_id: "c2" },
        ],
        errors: [],
        verdict: "fail",
        reasons: [
          'Scenario s, repetition 3: forbidden call place_invoice_on_hold({"invoice_id":"INV-10423","reason":"duplicate"}); a forbidden call fails the run whatever the rate.',
        ],
      },
    ],
  ])("%s", (_name, scenarios, expected) => {
    expect(verdictOf(scenarios, {}, notCalibrated)).toEqual(expected);
  });

  it("a met requirement gates as usual", () => {
    expect(verdictOf([scenarioOf("s", "JJJJJJJJJJJJJjj")], {}, { met: true, sentence: "" }).verdict).toBe("fail");
  });
});

describe("gate properties", () => {
  const outcomes = fc
    .array(fc.constantFrom("J", "j", "N", "S", "F", "E"), { minLength: 1, maxLength: 20 })
    .map((kinds) => kinds.join(""));
  it("any forbidden call fails; errors without one give error; otherwise the rate decides", () => {
    fc.assert(
      fc.property(
        fc.array(outcomes, { minLength: 1, maxLength: 4 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (strings, passRate) => {
          const all = strings.join("");
          const verdict = runVerdict(
            strings.map((s, i) => scenarioOf(`s${i}`, s)),
            { pass_rate: passRate },
          );
          const passed = [...all].filter((k) => k === "J" || k === "N").length;
          const expected = all.includes("F")
            ? "fail"
            : all.includes("E")
              ? "error"
              : passed / all.length >= passRate - 1e-9
                ? "pass"
                : "fail";
          expect(verdict.verdict).toBe(expected);
          expect(verdict.hard_fail_reasons.length).toBe([...all].filter((k) => k === "F").length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
