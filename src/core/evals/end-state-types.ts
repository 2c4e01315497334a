/**
 * A scenario graded by what it leaves behind (issue 22): the state the attempt must end in, and
 * the facts the agent's answers must state. Both are optional fields of a scenario (Scenario
 * extends ScenarioGrading); suite-end-state-parse.ts reads them, scoring/end-state.ts and
 * scoring/outputs.ts grade them.
 */
import type { JsonObject } from "../json.js";
import type { StateAssertion } from "../scoring/end-state.js";

export type { StateAssertion };

/** One call the scenario's right answer makes, by the function name the model sees. */
export interface GoldCall {
  function: string;
  arguments: JsonObject;
}

/**
 * The expected end state: the state `gold_calls` reach when replayed on a fresh attempt set up
 * exactly like the repetition's (τ-bench's expectation), and/or values at paths of the state.
 * At least one of the two is given.
 */
export interface EndStateSpec {
  gold_calls?: GoldCall[];
  assert?: StateAssertion[];
}

/** What a scenario adds to be graded by its outcome instead of by the judge. */
export interface ScenarioGrading {
  end_state?: EndStateSpec;
  /** Facts (strings) the agent's answers must state, matched as τ-bench matches `outputs`. */
  outputs?: string[];
}

/** Whether a scenario is graded by its outcome (end state or outputs), which takes the judge's place. */
export function gradedByOutcome(scenario: ScenarioGrading): boolean {
  return scenario.end_state !== undefined || (scenario.outputs?.length ?? 0) > 0;
}

/** Only the outcome fields of a scenario, absent ones left out (what a run carries to each repetition). */
export function gradingOf(scenario: ScenarioGrading): ScenarioGrading {
  return {
    ...(scenario.end_state === undefined ? {} : { end_state: scenario.end_state }),
    ...(scenario.outputs === undefined ? {} : { outputs: scenario.outputs }),
  };
}
