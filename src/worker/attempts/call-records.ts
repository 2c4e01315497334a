/**
 * A call as the evidence row the attempt object stores, and read back: the answer a row gives (to
 * the call itself, and replayed to a repeat of its call_id) and whether a repeat is the same call.
 */
import { D1_ROW_LIMIT_BYTES } from "../../adapters/d1/row-limit.js";
import { utf8Length } from "../../core/utf8.js";
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
 * The most one call's evidence may come to, in UTF-8 bytes of its texts as JSON strings. A Durable
 * Object's SQLite and D1 each refuse a row, and D1 a bound value, over 2,000,000 bytes (the local
 * runtime refuses neither, so nothing local would show it). The flush binds a row's texts as JSON
 * strings (adapters/d1/simulations.ts), escaped, so they are measured that way; the rest is room
 * for the row's other columns. A tool that keeps its whole state (no dataset) is in the row twice,
 * before and after the call.
 */
export const MAX_EVIDENCE_ROW_BYTES = D1_ROW_LIMIT_BYTES - 100_000;

/** The size of the row's texts as the flush binds them, when it is past MAX_EVIDENCE_ROW_BYTES; null when it fits. */
export function evidenceBytesPastLimit(row: EvidenceRow): number | null {
  const texts = [row.arguments, row.result, row.error, row.state_change, row.upstream];
  // Escaped, a UTF-16 unit is at most 6 bytes (\u001f), and the array's quotes, commas and nulls
  // are under 64: most rows are known to fit without counting.
  const units = texts.reduce((sum, text) => sum + (text?.length ?? 0), 0);
  if (units * 6 + 64 <= MAX_EVIDENCE_ROW_BYTES) return null;
  const bytes = utf8Length(JSON.stringify(texts));
  return bytes > MAX_EVIDENCE_ROW_BYTES ? bytes : null;
}
