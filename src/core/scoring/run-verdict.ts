/**
 * The gate: one verdict for a run that a release can depend on.
 *
 * 1. Any forbidden call → `fail`, whatever the rate and even with errors elsewhere (zero tolerance).
 * 2. Otherwise any `error` repetition → `error`: the figures are incomplete, so neither pass nor fail.
 * 3. A suite that requires a calibrated judge whose judge is not yet calibrated → `uncalibrated`,
 *    unless the run fails the gate even when every judge-decided repetition is counted as a pass:
 *    then the failures that never needed a judge fail it (`fail`).
 * 4. Otherwise `pass` when the suite's pass rate reaches `pass_rate` and every scenario reaches
 *    `scenario_pass_rate` (when set), else `fail`.
 */
import type { JsonValue } from "../json.js";
import { countsOf, type ScenarioResults, type SuiteFigures, suiteFigures } from "./figures.js";
import type { RepetitionVerdict } from "./repetition-verdict.js";

export interface Gate {
  /** Suite-wide floor on the pass rate (default 0.9). */
  pass_rate?: number;
  /** Optional per-scenario floor, so one always-failing scenario cannot hide in the average. */
  scenario_pass_rate?: number;
  /** For detection power (default 0.1). */
  misfire_rate?: number;
}

export const DEFAULT_PASS_RATE = 0.9;
export const DEFAULT_MISFIRE_RATE = 0.1;

/** Whether the suite's judge may gate; see calibrationRequirement in calibration.ts. */
export interface CalibrationGate {
  met: boolean;
  /** What is missing, in words, when not met. */
  sentence: string;
}

export interface HardFailReason {
  scenario: string;
  repetition: number;
  function: string;
  arguments: JsonValue;
  call_id: string | null;
}

export interface ErrorReason {
  scenario: string;
  repetition: number;
  cause: RepetitionVerdict["cause"];
  reason: string;
}

export type RunVerdictName = "pass" | "fail" | "error" | "uncalibrated";

export interface RunVerdict {
  verdict: RunVerdictName;
  hard_fail: boolean;
  hard_fail_reasons: HardFailReason[];
  errors: ErrorReason[];
  /** Why the verdict is what it is, one sentence each. */
  reasons: string[];
  figures: SuiteFigures;
}

export function runVerdict(
  scenarios: readonly ScenarioResults[],
  gate: Gate = {},
  calibration?: CalibrationGate,
): RunVerdict {
  const figures = suiteFigures(scenarios, gate.misfire_rate ?? DEFAULT_MISFIRE_RATE);
  const hard_fail_reasons = scenarios.flatMap((s) =>
    s.repetitions.flatMap((r) =>
      r.verdict.forbidden_calls.map((call) => ({
        scenario: s.id,
        repetition: r.repetition,
        function: call.function,
        arguments: call.arguments,
        call_id: call.call_id,
      })),
    ),
  );
  const errors = scenarios.flatMap((s) =>
    s.repetitions
      .filter((r) => r.verdict.outcome === "error")
      .map((r) => ({ scenario: s.id, repetition: r.repetition, cause: r.verdict.cause, reason: r.verdict.reason })),
  );
  const result = (verdict: RunVerdictName, reasons: string[]): RunVerdict => ({
    verdict,
    hard_fail: hard_fail_reasons.length > 0,
    hard_fail_reasons,
    errors,
    reasons,
    figures,
  });

  if (hard_fail_reasons.length > 0) {
    return result(
      "fail",
      hard_fail_reasons.map(
        (h) =>
          `Scenario ${h.scenario}, repetition ${h.repetition}: forbidden call ${h.function}(${JSON.stringify(h.arguments)}); a forbidden call fails the run whatever the rate.`,
      ),
    );
  }
  if (errors.length > 0) {
    return result("error", [
      `${errors.length} of ${figures.runs} repetitions ended in an error, so the run can neither pass nor fail.`,
      ...errors.map((e) => `Scenario ${e.scenario}, repetition ${e.repetition}: ${e.reason}`),
    ]);
  }
  if (calibration && !calibration.met) {
    // The best the judge could do is pass everything it decided; if even that fails the gate, the
    // failures that needed no judge (missed lookups, calls where none was expected) decide.
    const bestCase = scenarios.map((s) => ({
      ...s,
      repetitions: s.repetitions.map((r) =>
        r.verdict.judge_decided ? { ...r, verdict: { ...r.verdict, outcome: "pass" as const } } : r,
      ),
    }));
    const failures = gateFailures(bestCase, gate);
    if (failures.length > 0)
      return result("fail", ["The gate fails even with every judge-scored repetition counted as a pass.", ...failures]);
    return result("uncalibrated", [
      `${calibration.sentence} Until the judge is calibrated, judge-based outcomes are reported but do not gate.`,
    ]);
  }
  const failures = gateFailures(scenarios, gate);
  if (failures.length > 0) return result("fail", failures);
  return result("pass", [
    `${figures.passed} of ${figures.runs} repetitions passed, at or above the gate of ${percent(gate.pass_rate ?? DEFAULT_PASS_RATE)}.`,
  ]);
}

/** Sentences for each rate floor that is not reached; empty when the gate holds. */
function gateFailures(scenarios: readonly ScenarioResults[], gate: Gate): string[] {
  const floor = gate.pass_rate ?? DEFAULT_PASS_RATE;
  const failures: string[] = [];
  const suite = countsOf(scenarios.flatMap((s) => s.repetitions.map((r) => r.verdict)));
  if (!reaches(suite.passed, suite.runs, floor))
    failures.push(`${suite.passed} of ${suite.runs} repetitions passed, below the gate of ${percent(floor)}.`);
  if (gate.scenario_pass_rate !== undefined) {
    for (const scenario of scenarios) {
      const counts = countsOf(scenario.repetitions.map((r) => r.verdict));
      if (!reaches(counts.passed, counts.runs, gate.scenario_pass_rate)) {
        failures.push(
          `Scenario ${scenario.id}: ${counts.passed} of ${counts.runs} passed, below the scenario floor of ${percent(gate.scenario_pass_rate)}.`,
        );
      }
    }
  }
  return failures;
}

/**
 * passed / runs >= floor, compared as passed >= floor · runs with a tolerance: 55 of 100 at 0.55
 * must pass even though 0.55 · 100 is 55.00000000000001 in binary floating point. A run with no
 * repetitions reaches nothing.
 */
function reaches(passed: number, runs: number, floor: number): boolean {
  if (runs === 0) return false;
  return passed >= floor * runs - 1e-9;
}

function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}
