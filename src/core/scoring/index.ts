/**
 * Scoring a behavioural eval run, as pure functions (no I/O, no model calls): the queue consumer
 * and the run's coordinator gather the inputs and store the outputs; everything decided here is
 * decided the same way in a Node test. docs/scoring.md explains each figure and its formula.
 *
 * The pipeline for one repetition, then for the run:
 * 1. `repetitionCalls`: executed calls plus approval requests, deduplicated by call id.
 * 2. `scoreSelection`: forbidden / expected / no-call-expected, in code, before any judge.
 * 3. `needsJudge` → `judgeMessages` (+ `JUDGE_RESPONSE_FORMAT`) → `parseJudgeAnswer` per attempt →
 *    `judgeOutcomeOf`.
 * 4. `repetitionVerdict`: pass / fail / error with its cause (nothing broken reads as a pass).
 * 5. `runVerdict`: figures per scenario and suite, and the gate's verdict (optionally held at
 *    `uncalibrated` by `calibrationRequirement(calibrationReport(...), required)`).
 *
 * @example
 * const calls = repetitionCalls(executed, approvalRequests);
 * const selection = scoreSelection({ expect: "get_invoice", forbid: ["place_invoice_on_hold"] }, calls);
 * let judge: JudgeOutcome | undefined;
 * if (needsJudge(selection, calls.length)) {
 *   const answer = parseJudgeAnswer(await askModel(judgeMessages({ query, tool_definitions, calls, final_answer })));
 *   judge = judgeOutcomeOf([answer], JUDGE_PROMPT_VERSION);
 * }
 * const verdict = repetitionVerdict({ selection, calls: calls.length, threshold: 4, judge, harness_error: harnessErrorAmong(calls) });
 * // ...later, over every stored repetition of the run:
 * const run = runVerdict([{ id: "status", repetitions: [{ repetition: 1, verdict }] }], { pass_rate: 0.9 });
 */

/** A repetition's calls: executed (evidence) plus proposed (approval requests), deduplicated by call id. */
export {
  type ApprovalRequest,
  type ExecutedCall,
  executedCallOf,
  harnessErrorAmong,
  type RepetitionCall,
  repetitionCalls,
} from "./calls.js";

/** Selection scored in code: forbidden functions (a hard fail), `expect: null`, every expected function. */
export {
  describeCall,
  expectedFunctions,
  type ForbiddenCall,
  type ScenarioSelection,
  scoreSelection,
  type SelectionResult,
} from "./selection.js";

/** The judge's prompt (ToolCallAccuracy rubric), its version id and its structured-output schema. */
export {
  JUDGE_PROMPT_VERSION,
  JUDGE_RESPONSE_FORMAT,
  type JudgeCase,
  type JudgeMessage,
  judgeMessages,
  TOOL_CALL_ACCURACY_RUBRIC,
  type ToolDefinition,
} from "./judge-prompt.js";

/** Strict parsing of the judge's answer into a score or a tagged unparseable answer. */
export { type JudgeAnswer, judgeOutcomeOf, parseJudgeAnswer } from "./judge-parse.js";

/** One repetition's pass / fail / error, with its cause. */
export {
  type JudgeOutcome,
  needsJudge,
  type RepetitionCause,
  type RepetitionInputs,
  repetitionVerdict,
  type RepetitionVerdict,
} from "./repetition-verdict.js";

/** Estimators: Wilson interval, pass^k, pass@k, detection power, runs needed. */
export {
  binomialRatio,
  detectionPower,
  type Interval,
  passAtK,
  passHatK,
  perK,
  runsNeeded,
  wilsonInterval,
  Z_95,
} from "./rates.js";

/** Figures per scenario and for the suite, from repetition verdicts. */
export {
  type Counts,
  countsOf,
  type ScenarioFigures,
  scenarioFigures,
  type ScenarioResults,
  type ScoredRepetition,
  type SuiteFigures,
  suiteFigures,
} from "./figures.js";

/** The gate: pass / fail / error / uncalibrated, with hard-fail and error reasons. */
export {
  type CalibrationGate,
  DEFAULT_MISFIRE_RATE,
  DEFAULT_PASS_RATE,
  type ErrorReason,
  type Gate,
  type HardFailReason,
  runVerdict,
  type RunVerdict,
  type RunVerdictName,
} from "./run-verdict.js";

/** The judge checked against hand labels, and whether a suite's require_calibration is met. */
export {
  type CalibrationReport,
  calibrationReport,
  type CalibrationRequirement,
  calibrationRequirement,
  cohensKappa,
  type ConfusionMatrix,
  type HumanLabel,
  type LabelledRepetition,
  type ScoreAgreement,
} from "./calibration.js";
