/**
 * A call as the evidence row the attempt object stores, and read back: the answer a row gives (to
 * the call itself, and replayed to a repeat of its call_id) and whether a repeat is the same call.
 */
import { utf8Length } from "../../core/contract/index.js";
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

/**
 * The most one call's evidence row may hold, in UTF-8 bytes over its texts. A Durable Object's
 * SQLite and D1 each refuse a row over 2,000,000 bytes (the local runtime refuses neither, so
 * nothing local would show it); the rest is room for the row's other columns. A tool that keeps
 * its whole state (no dataset) is in the row twice, before and after the call.
 */
export const MAX_EVIDENCE_ROW_BYTES = 1_900_000;

/** The UTF-8 size of the row's texts when it is past MAX_EVIDENCE_ROW_BYTES; null when it fits. */
export function evidenceBytesPastLimit(row: EvidenceRow): number | null {
  const texts = [row.arguments, row.result, row.error, row.state_change, row.upstream];
  // A UTF-16 unit is at most 3 UTF-8 bytes: most rows are known to fit without counting bytes.
  const units = texts.reduce((sum, text) => sum + (text?.length ?? 0), 0);
  if (units * 3 <= MAX_EVIDENCE_ROW_BYTES) return null;
  const bytes = texts.reduce((sum, text) => sum + (text === null ? 0 : utf8Length(text)), 0);
  return bytes > MAX_EVIDENCE_ROW_BYTES ? bytes : null;
}
