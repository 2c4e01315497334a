/**
 * The calls of one repetition, as selection and the judge see them. Every call the model asked for
 * is one of them, whatever became of it: the calls the attempt executed (its evidence, including
 * calls refused with a tool input error, since the agent did make them), the calls it only proposed
 * (approval requests for `always_require` tools, never executed), and the calls that never reached
 * a tool at all (arguments that are not a usable JSON object, a function the agent does not have,
 * a call the attempt refused without recording it, a call the run ended before handling). A call
 * left out of this list would be a call scoring never sees, so a forbidden one could pass.
 */
import type { JsonValue, Problem } from "../json.js";
import type { CallOutcomeKind, EvidenceCall, EvidenceError } from "../simulation/evidence.js";

/** A call the attempt executed: one evidence row, reduced to what scoring reads. */
export interface ExecutedCall {
  /** The function name the model used (api.md, Suite: the same names as `expect` and `forbid`). */
  function: string;
  arguments: JsonValue;
  call_id: string | null;
  outcome: CallOutcomeKind;
  result?: JsonValue;
  error?: EvidenceError;
}

/**
 * One evidence call as scoring reads it. Evidence names the tool and operation; the function name
 * the model used (simulation/tool-names.ts) is the caller's to give, since it depends on how many
 * operations the tool has.
 */
export function executedCallOf(evidence: EvidenceCall, functionName: string): ExecutedCall {
  const call: ExecutedCall = {
    function: functionName,
    arguments: evidence.arguments,
    call_id: evidence.call_id,
    outcome: evidence.outcome,
  };
  if (evidence.result !== undefined) call.result = evidence.result;
  if (evidence.error !== undefined) call.error = evidence.error;
  return call;
}

/** A call the agent paused on for approval: proposed with its exact name and arguments, not executed. */
export interface ApprovalRequest {
  function: string;
  arguments: JsonValue;
  call_id: string | null;
  /**
   * Where the arguments break the function's input schema (proposals.ts), set when the repetition
   * is scored: approved as it stands, the call would be refused with a tool input error. Absent
   * when they keep it (and in records stored before proposals were checked).
   */
  problems?: Problem[];
}

/** Why a call the model asked for never reached a tool. */
export type Refusal =
  /** Argument text that is not JSON, or JSON that is not an object: answered to the model as a tool input error. */
  | "malformed_arguments"
  /** A JSON object no call can use (nested past the limit, a number JSON cannot carry): answered as a tool input error. */
  | "unusable_arguments"
  /** A function the agent was not given: answered as a tool input error, so the model may recover. */
  | "unknown_function"
  /** The attempt refused the call without recording it: answered as a tool input error, or a harness error that ended the run. */
  | "refused_by_attempt"
  /** The run ended before the call was handled (past max_function_calls, or after a harness error earlier in the same answer). */
  | "not_handled";

/** A call the model asked for that no tool ever saw, recorded by the runner with what became of it. */
export interface RefusedCall {
  function: string;
  /** The parsed arguments, or the text the model sent when they could not be used. */
  arguments: JsonValue;
  call_id: string | null;
  refusal: Refusal;
  /** What the model was told, or why the run never got to the call. */
  message: string;
}

export type RepetitionCall =
  | ({ kind: "executed" } & ExecutedCall)
  | ({ kind: "approval_request" } & ApprovalRequest)
  | ({ kind: "refused" } & RefusedCall);

/**
 * Executed calls first, in evidence order, then approval requests in the order they were made, then
 * the calls that never reached a tool, in the order the model asked for them. A call id seen before
 * is dropped: an agent framework may report the same call both as a call and as an approval
 * request, and the executed record is the one that carries a result. Calls without an id cannot be
 * matched to anything, so each one counts. (The built-in runner gives every call an id of its own,
 * so none of its calls is dropped here.)
 */
export function repetitionCalls(
  executed: readonly ExecutedCall[],
  approvals: readonly ApprovalRequest[],
  refused: readonly RefusedCall[] = [],
): RepetitionCall[] {
  const seen = new Set<string>();
  const calls: RepetitionCall[] = [];
  const keep = (call: RepetitionCall): void => {
    if (call.call_id !== null) {
      if (seen.has(call.call_id)) return;
      seen.add(call.call_id);
    }
    calls.push(call);
  };
  for (const call of executed) keep({ kind: "executed", ...call });
  for (const request of approvals) keep({ kind: "approval_request", ...request });
  for (const call of refused) keep({ kind: "refused", ...call });
  return calls;
}

/**
 * The first executed call the harness itself failed (unknown tool, missing reference, output not
 * matching its schema, ...), as the cause of an `error` repetition; null when there is none. A tool
 * input error is not one of these: it is the agent's mistake, answered as the contract says.
 */
export function harnessErrorAmong(calls: readonly RepetitionCall[]): string | null {
  for (const call of calls) {
    if (call.kind === "executed" && call.outcome === "harness_error") {
      const detail = call.error ? `${call.error.kind ?? call.error.code}: ${call.error.message}` : "no error record";
      return `the harness failed the call to ${call.function}${call.call_id === null ? "" : ` (call ${call.call_id})`}: ${detail}`;
    }
  }
  return null;
}
