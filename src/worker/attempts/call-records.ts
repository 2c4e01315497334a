/**
 * A call as the evidence row the attempt object stores, and read back: the answer a row gives (to
 * the call itself, and replayed to a repeat of its call_id) and whether a repeat is the same call.
 */
import type { CallOutcome } from "../../core/contract/types.js";
import { jsonEqual } from "../../core/json.js";
import type { DispatchRequest } from "../../core/simulation/dispatch-request.js";
import type { EvidenceError, EvidenceRow, StateChange, UpstreamRecord } from "../../core/simulation/evidence.js";
import type { PinnedOperation } from "../../core/simulation/setup.js";
import type { Answer } from "./replies.js";
import { storedArguments } from "./stored-values.js";

interface RecordedCall {
  seq: number;
  request: DispatchRequest;
  /** The function name the call resolved to (or the requested tool, when it resolved to none). */
  tool: string;
  operationId: string;
  operation: PinnedOperation | null;
  outcome: CallOutcome;
  change: StateChange | null;
  upstream: UpstreamRecord | null;
  /** Epoch milliseconds. */
  at: number;
}

export function evidenceRowOf(call: RecordedCall): EvidenceRow {
  const { outcome, operation } = call;
  let error: EvidenceError | null = null;
  if (outcome.kind === "tool_input_error")
    error = { code: "tool_input_error", message: outcome.message, details: outcome.details };
  if (outcome.kind === "harness_error")
    error = { code: "harness_error", kind: outcome.harness_kind, message: outcome.message, details: outcome.details };
  return {
    seq: call.seq,
    call_id: call.request.call_id ?? null,
    tool: call.tool,
    operation_id: call.operationId,
    revision: operation?.revision ?? null,
    variant: outcome.variant === "" ? (operation?.variant ?? null) : outcome.variant,
    rule: outcome.rule,
    arguments: JSON.stringify(call.request.arguments),
    outcome: outcome.kind,
    result: outcome.kind === "result" ? JSON.stringify(outcome.result) : null,
    error: error ? JSON.stringify(error) : null,
    delay_ms: outcome.kind === "result" ? outcome.delay_ms : 0,
    at: new Date(call.at).toISOString(),
    state_change: call.change ? JSON.stringify(call.change) : null,
    upstream: call.upstream === null ? null : JSON.stringify(call.upstream),
  };
}

/** Whether a recorded (or forwarded) call is the same call as this request: a call_id names one call only. */
export function sameCall(
  earlier: { tool: string; operation_id: string; arguments: string },
  tool: string,
  operationId: string,
  request: DispatchRequest,
): boolean {
  return (
    earlier.tool === tool &&
    earlier.operation_id === operationId &&
    jsonEqual(storedArguments(earlier.arguments), request.arguments)
  );
}

export function answerOf(row: EvidenceRow, replayed: boolean): Answer {
  return {
    seq: row.seq,
    tool: row.tool,
    operation_id: row.operation_id,
    revision: row.revision,
    variant: row.variant,
    rule: row.rule,
    outcome: row.outcome,
    result: row.result,
    error: row.error,
    delay_ms: row.delay_ms,
    replayed,
  };
}
