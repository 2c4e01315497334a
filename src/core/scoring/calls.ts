/**
 * The calls of one repetition, as selection and the judge see them: the calls the attempt executed
 * (its evidence, including calls refused with a tool input error, since the agent did make them)
 * plus the calls it only proposed (approval requests for `always_require` tools, never executed),
 * deduplicated by call id.
 */
import type { JsonValue } from "../json.js";
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
  const call: ExecutedCall = { function: functionName, arguments: evidence.arguments, call_id: evidence.call_id, outcome: evidence.outcome };
  if (evidence.result !== undefined) call.result = evidence.result;
  if (evidence.error !== undefined) call.error = evidence.error;
  return call;
}

/** A call the agent paused on for approval: proposed with its exact name and arguments, not executed. */
export interface ApprovalRequest {
  function: string;
  arguments: JsonValue;
  call_id: string | null;
}

export type RepetitionCall =
  | ({ kind: "executed" } & ExecutedCall)
  | ({ kind: "approval_request" } & ApprovalRequest);

/**
 * Executed calls first, in evidence order, then approval requests in the order they were made.
 * A call id seen before is dropped: an agent framework may report the same call both as a call and
 * as an approval request, and the executed record is the one that carries a result. Calls without
 * an id cannot be matched to anything, so each one counts.
 */
export function repetitionCalls(executed: readonly ExecutedCall[], approvals: readonly ApprovalRequest[]): RepetitionCall[] {
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
