import type { ScenarioResults } from "../../../src/core/scoring/figures.js";
import { repetitionVerdict, type RepetitionVerdict } from "../../../src/core/scoring/repetition-verdict.js";
import { scoreSelection } from "../../../src/core/scoring/selection.js";
import type { RepetitionCall } from "../../../src/core/scoring/calls.js";

/** One repetition's outcome, shorthand: J = judge passed (5), j = judge failed (3), N = no call needed and none made, S = selection failed, F = forbidden call, E = harness error. */
export type Shorthand = "J" | "j" | "N" | "S" | "F" | "E";

const lookup: RepetitionCall = {
  kind: "executed",
  function: "get_invoice",
  arguments: { invoice_id: "INV-10431" },
  call_id: "c1",
  outcome: "result",
  result: "ok",
};
export const HOLD_ARGUMENTS = { invoice_id: "INV-10423", reason: "duplicate" };
const hold: RepetitionCall = {
  kind: "approval_request",
  function: "place_invoice_on_hold",
  arguments: HOLD_ARGUMENTS,
  call_id: "c2",
};
const scenario = { expect: "get_invoice", forbid: ["place_invoice_on_hold"] };

/** Verdicts made through the real functions, from calls, so the tests depend on nothing hand-built. */
export function verdictOf(kind: Shorthand): RepetitionVerdict {
  const judge = (score: number) => ({ kind: "score" as const, score, reason: `scored ${score}`, prompt_version: "v" });
  switch (kind) {
    case "J":
      return repetitionVerdict({
        selection: scoreSelection(scenario, [lookup]),
        calls: 1,
        threshold: 4,
        judge: judge(5),
      });
    case "j":
      return repetitionVerdict({
        selection: scoreSelection(scenario, [lookup]),
        calls: 1,
        threshold: 4,
        judge: judge(3),
      });
    case "N":
      return repetitionVerdict({ selection: scoreSelection({ expect: null, forbid: [] }, []), calls: 0, threshold: 4 });
    case "S":
      return repetitionVerdict({ selection: scoreSelection(scenario, []), calls: 0, threshold: 4 });
    case "F":
      return repetitionVerdict({ selection: scoreSelection(scenario, [lookup, hold]), calls: 2, threshold: 4 });
    case "E":
      return repetitionVerdict({
        selection: scoreSelection(scenario, [lookup]),
        calls: 1,
        threshold: 4,
        harness_error: "lease expired",
      });
  }
}

/** A scenario from a string of shorthands: "JJjE" is four repetitions numbered 1 to 4. */
export function scenarioOf(id: string, outcomes: string): ScenarioResults {
  return {
    id,
    repetitions: [...outcomes].map((kind, i) => ({ repetition: i + 1, verdict: verdictOf(kind as Shorthand) })),
  };
}
