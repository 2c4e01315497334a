/**
 * How big one run may be, in one place: a suite is refused when it is saved if no run of it could
 * start, with the same message the run's start gives, and a run's override of runs_per_scenario
 * has the same bound as the suite's own field.
 */
import type { Problem } from "../json.js";

/** Repetitions one run may have in all (scenarios, attacked copies included, × runs per scenario). */
const MAX_REPETITIONS = 2000;

/** The most runs_per_scenario a suite or a run's override may ask for (a one-scenario suite may use half the run's repetitions). */
export const MAX_RUNS_PER_SCENARIO = 1000;

/**
 * Why `runsPerScenario` runs of `scenarios` scenarios (of which `own` are the suite's own, the rest
 * attacked copies) cannot be one run, at /runs_per_scenario; null when they can.
 */
export function repetitionLimitProblem(scenarios: number, own: number, runsPerScenario: number): Problem | null {
  const total = scenarios * runsPerScenario;
  if (total <= MAX_REPETITIONS) return null;
  const attacked = scenarios > own ? ` (${own} and ${scenarios - own} attacked copies)` : "";
  return {
    path: "/runs_per_scenario",
    message: `${scenarios} scenarios${attacked} × ${runsPerScenario} runs is ${total} repetitions; one run may have at most ${MAX_REPETITIONS}`,
  };
}
