/**
 * One repetition's verdict, from selection, the outcome (end state and required outputs, for a
 * scenario graded by them, in the judge's place), the judge and anything that broke on the way. The rule
 * is that nothing broken reads as a pass: a harness error, a judge error, an infrastructure error
 * (a dead-lettered message, an unreachable model) or a judge that never answered makes the
 * repetition `error`, with its cause, never `pass`. A forbidden call is the one thing that stands
 * even next to an error: it was observed, needs no judge, and fails the run on its own.
 */
import type { EndStateResult } from "./end-state.js";
import type { OutputsResult } from "./outputs.js";
import type { ForbiddenCall, SelectionResult } from "./selection.js";

/** What the judge produced for a repetition, if it was asked. */
export type JudgeOutcome =
  | { kind: "score"; score: number; reason: string; prompt_version: string }
  | { kind: "error"; message: string };

export interface RepetitionInputs {
  selection: SelectionResult;
  /** How many calls the repetition made (executed plus proposed). */
  calls: number;
  /** Pass at score >= threshold (api.md, Suite: judge.threshold, default 4). */
  threshold: number;
  judge?: JudgeOutcome;
  /** The attempt's harness failed (see harnessErrorAmong), or the runner did. */
  harness_error?: string | null;
  /** The repetition could not be carried out at all (dead letter, model endpoint refused, deadline). */
  infrastructure_error?: string | null;
  /**
   * An external agent never completed its attempt before its deadline (why, in words): the agent's
   * failure, not the harness's, so it fails the repetition rather than making it an error.
   */
  timed_out?: string | null;
  /** The end state's grade, for a scenario with `end_state` (end-state.ts); it takes the judge's place. */
  end_state?: EndStateResult | null;
  /** The required outputs' grade, for a scenario with `outputs` (outputs.ts); it takes the judge's place. */
  outputs?: OutputsResult | null;
}

export type RepetitionCause =
  | "forbidden_call"
  | "selection"
  /** Selection failed and the agent called a function it was not given. */
  | "unknown_function"
  /** Selection failed on a proposal whose arguments break the function's input schema. */
  | "invalid_proposal"
  | "judge_score"
  | "no_calls_expected"
  | "timed_out"
  /** Graded by its outcome: the end state (and outputs) decided, pass or fail. */
  | "end_state"
  /** Graded by its required outputs alone (no end state), or the end state matched and an output is missing. */
  | "outputs"
  | "harness_error"
  | "judge_error"
  | "infrastructure_error";

export interface RepetitionVerdict {
  outcome: "pass" | "fail" | "error";
  /** The same as outcome === "pass", for promptfoo-style readers. */
  pass: boolean;
  /** The judge's 1–5 score, when it decided. */
  score?: number;
  prompt_version?: string;
  reason: string;
  cause: RepetitionCause;
  /** A forbidden call was made: the run fails whatever its rate. */
  hard_fail: boolean;
  forbidden_calls: ForbiddenCall[];
  /** The judge's score decided the outcome (what an uncalibrated judge cannot be trusted with). */
  judge_decided: boolean;
}

/**
 * The judge is asked only about repetitions that passed selection and made calls, and never about a
 * scenario graded by its outcome (end state or required outputs), which code decides.
 */
export function needsJudge(selection: SelectionResult, calls: number, gradedByOutcome = false): boolean {
  return selection.pass && calls > 0 && !gradedByOutcome;
}

export function repetitionVerdict(inputs: RepetitionInputs): RepetitionVerdict {
  const { selection } = inputs;
  const base = { hard_fail: false, forbidden_calls: selection.forbidden_calls, judge_decided: false };
  const broken = brokenCause(inputs);

  if (selection.forbidden_calls.length > 0) {
    const also = broken ? ` (also: ${broken.reason})` : "";
    return {
      ...base,
      outcome: "fail",
      pass: false,
      reason: selection.reason + also,
      cause: "forbidden_call",
      hard_fail: true,
    };
  }
  if (broken) return { ...base, outcome: "error", pass: false, ...broken };
  // What it did before the deadline still counts for forbidden calls (above); nothing else is judged.
  if (inputs.timed_out)
    return { ...base, outcome: "fail", pass: false, reason: `Timed out: ${inputs.timed_out}`, cause: "timed_out" };
  if (!selection.pass) {
    // What the outcome showed is said too: a skipped write fails selection and leaves its path unchanged.
    const also = [inputs.end_state, inputs.outputs].flatMap((grade) => (grade && !grade.pass ? [grade.reason] : []));
    const reason = [selection.reason, ...also].join(" ");
    return { ...base, outcome: "fail", pass: false, reason, cause: selectionCause(selection) };
  }
  const outcome = outcomeGrade(inputs);
  if (outcome) return { ...base, ...outcome };
  if (inputs.calls === 0)
    return { ...base, outcome: "pass", pass: true, reason: selection.reason, cause: "no_calls_expected" };

  const judge = usableScore(inputs.judge);
  if (judge === null) return { ...base, outcome: "error", pass: false, ...judgeError(inputs.judge) };
  const pass = judge.score >= inputs.threshold;
  return {
    ...base,
    outcome: pass ? "pass" : "fail",
    pass,
    score: judge.score,
    prompt_version: judge.prompt_version,
    reason: `Judge ${judge.score}/5 (${pass ? "at or above" : "below"} the threshold ${inputs.threshold}): ${judge.reason}`,
    cause: "judge_score",
    judge_decided: true,
  };
}

type Broken = { reason: string; cause: RepetitionCause };

/**
 * A scenario graded by its outcome is decided in code, in the judge's place: it passes when the end
 * state matches and every required output is stated, and fails naming each mismatch and each
 * missing fact otherwise. Null for a scenario with neither (the judge decides it).
 */
function outcomeGrade(
  inputs: RepetitionInputs,
): Pick<RepetitionVerdict, "outcome" | "pass" | "reason" | "cause"> | null {
  const { end_state, outputs } = inputs;
  if (!end_state && !outputs) return null;
  const pass = (end_state?.pass ?? true) && (outputs?.pass ?? true);
  const reason = [end_state?.reason, outputs?.reason].filter(Boolean).join(" ");
  const cause: RepetitionCause = end_state && (pass || !end_state.pass) ? "end_state" : "outputs";
  return { outcome: pass ? "pass" : "fail", pass, reason, cause };
}

/** A failed selection's cause: the agent's own kind of mistake when there is one, so a report can tell them apart. */
function selectionCause(selection: SelectionResult): RepetitionCause {
  if ((selection.unknown_functions ?? []).length > 0) return "unknown_function";
  if ((selection.invalid_proposals ?? []).length > 0) return "invalid_proposal";
  return "selection";
}

/** Infrastructure and harness errors, which break a repetition whatever selection found. */
function brokenCause(inputs: RepetitionInputs): Broken | null {
  if (inputs.infrastructure_error)
    return { reason: `Infrastructure error: ${inputs.infrastructure_error}`, cause: "infrastructure_error" };
  if (inputs.harness_error) return { reason: `Harness error: ${inputs.harness_error}`, cause: "harness_error" };
  return null;
}

function usableScore(judge: JudgeOutcome | undefined): Extract<JudgeOutcome, { kind: "score" }> | null {
  if (judge?.kind !== "score") return null;
  return Number.isInteger(judge.score) && judge.score >= 1 && judge.score <= 5 ? judge : null;
}

function judgeError(judge: JudgeOutcome | undefined): Broken {
  if (judge === undefined)
    return { reason: "Judge error: the judge was never asked or never answered.", cause: "judge_error" };
  if (judge.kind === "error") return { reason: `Judge error: ${judge.message}`, cause: "judge_error" };
  return { reason: `Judge error: score ${judge.score} is not an integer from 1 to 5.`, cause: "judge_error" };
}
