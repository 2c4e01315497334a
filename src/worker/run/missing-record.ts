/**
 * TEMPORARY until the loop branch's dead-letter record builder lands: the record of a repetition
 * that never produced one (dead letter, deadline, too many sends), as an infrastructure error.
 */
import type { RepetitionRecord } from "../../core/evals/agent-types.js";
import { repetitionVerdict } from "../../core/scoring/repetition-verdict.js";
import { scoreSelection } from "../../core/scoring/selection.js";
import type { RunScenario } from "./replies.js";

export function missingRecord(scenario: RunScenario, repetition: number, attemptId: string, message: string, now: number): RepetitionRecord {
  const selection = scoreSelection(scenario, []);
  const at = new Date(now).toISOString();
  return {
    scenario_id: scenario.id,
    repetition,
    attempt_id: attemptId,
    calls: [],
    approval_requests: [],
    final_answer: null,
    stop_reason: null,
    selection,
    judge: null,
    verdict: repetitionVerdict({ selection, calls: 0, threshold: 4, infrastructure_error: message }),
    transcript: null,
    started_at: at,
    finished_at: at,
  };
}
