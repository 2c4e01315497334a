/**
 * A run's figures per scenario and for the suite, recomputed from the repetition verdicts alone,
 * so every number traces back to repetitions. An error counts as a run that did not pass: it is
 * in `runs` and `errors`, never in `passed`, so a broken harness can only lower a rate.
 */
import { detectionPower, type Interval, passAtK, passHatK, perK, runsNeeded, wilsonInterval } from "./rates.js";
import type { RepetitionVerdict } from "./repetition-verdict.js";

export interface ScoredRepetition {
  /** The repetition's number within its scenario, from 1. */
  repetition: number;
  verdict: RepetitionVerdict;
}

export interface ScenarioResults {
  id: string;
  repetitions: readonly ScoredRepetition[];
}

export interface Counts {
  runs: number;
  passed: number;
  failed: number;
  errors: number;
  /** passed / runs; null with no runs. */
  pass_rate: number | null;
  /** 95% Wilson score interval of pass_rate. */
  interval: Interval | null;
  /** Forbidden calls made, counted per call. */
  forbidden_calls: number;
}

export interface ScenarioFigures extends Counts {
  id: string;
  pass_hat_k: Record<string, number>;
  pass_at_k: Record<string, number>;
}

export interface SuiteFigures extends Counts {
  scenarios: ScenarioFigures[];
  /** The mean over scenarios of each scenario's pass^k, for k up to the smallest scenario's runs. */
  pass_hat_k: Record<string, number>;
  pass_at_k: Record<string, number>;
  /** The misfire rate p the power is computed for (the suite's `misfire_rate`). */
  misfire_rate: number;
  /** n for detection power: the fewest repetitions any scenario had. */
  runs_per_scenario: number;
  /** 1 − (1 − p)^n: the chance this run saw at least one misfire of rate p in a scenario. */
  detection_power: number;
  /** The runs per scenario that would catch a misfire of rate p with 95% confidence. */
  runs_needed_95: number | null;
}

export function countsOf(verdicts: readonly RepetitionVerdict[]): Counts {
  const runs = verdicts.length;
  const passed = verdicts.filter((v) => v.outcome === "pass").length;
  const errors = verdicts.filter((v) => v.outcome === "error").length;
  return {
    runs,
    passed,
    failed: runs - passed - errors,
    errors,
    pass_rate: runs === 0 ? null : passed / runs,
    interval: wilsonInterval(passed, runs),
    forbidden_calls: verdicts.reduce((sum, v) => sum + v.forbidden_calls.length, 0),
  };
}

export function scenarioFigures(scenario: ScenarioResults): ScenarioFigures {
  const counts = countsOf(scenario.repetitions.map((r) => r.verdict));
  return {
    id: scenario.id,
    ...counts,
    pass_hat_k: perK(counts.passed, counts.runs, passHatK),
    pass_at_k: perK(counts.passed, counts.runs, passAtK),
  };
}

/**
 * Detection power uses the runs per scenario: a misfire is a property of one request, so it is the
 * repetitions of one scenario that get the chance to catch it (seed 000: three runs catch a
 * 1-in-10 misfire about 27% of the time).
 */
export function suiteFigures(scenarios: readonly ScenarioResults[], misfireRate = 0.1): SuiteFigures {
  const perScenario = scenarios.map(scenarioFigures);
  const counts = countsOf(scenarios.flatMap((s) => s.repetitions.map((r) => r.verdict)));
  const runsPerScenario = perScenario.length === 0 ? 0 : Math.min(...perScenario.map((s) => s.runs));
  return {
    ...counts,
    scenarios: perScenario,
    pass_hat_k: meanPerK(
      perScenario.map((s) => s.pass_hat_k),
      runsPerScenario,
    ),
    pass_at_k: meanPerK(
      perScenario.map((s) => s.pass_at_k),
      runsPerScenario,
    ),
    misfire_rate: misfireRate,
    runs_per_scenario: runsPerScenario,
    detection_power: detectionPower(misfireRate, runsPerScenario),
    runs_needed_95: runsNeeded(misfireRate, 0.95),
  };
}

function meanPerK(values: Array<Record<string, number>>, upTo: number): Record<string, number> {
  const mean: Record<string, number> = {};
  for (let k = 1; k <= upTo; k++) {
    const key = String(k);
    mean[key] = values.reduce((sum, v) => sum + (v[key] ?? 0), 0) / values.length;
  }
  return mean;
}
