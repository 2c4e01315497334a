/**
 * Evidence: one record per call, numbered without gaps from 1. The same row shape lives in the
 * attempt object's SQLite (where it is written, in the same step as the state change) and in D1
 * (where it is flushed in batches and read back after the object is gone). JSON documents stay
 * text in rows, so a result is serialized once and that same text is the HTTP response body.
 */
import { isJsonObject, type JsonValue, type Problem } from "../json.js";

export type CallOutcomeKind = "result" | "tool_input_error" | "harness_error";

/** The error half of an answer, exactly as the dispatch error body carries it. */
export interface EvidenceError {
  code: "tool_input_error" | "harness_error";
  /** The harness error kind (unknown_tool, missing_reference, output_schema, lease_expired, ...). */
  kind?: string;
  message: string;
  details: Problem[];
}

export interface EvidenceRow {
  seq: number;
  call_id: string | null;
  tool: string;
  operation_id: string;
  revision: number | null;
  variant: string | null;
  rule: number | null;
  /** JSON text of the call's arguments. */
  arguments: string;
  outcome: CallOutcomeKind;
  /** JSON text of the rendered result (outcome "result"). */
  result: string | null;
  /** JSON text of an EvidenceError (the other outcomes). */
  error: string | null;
  delay_ms: number;
  /** When the call was applied, ISO 8601 UTC. */
  at: string;
  /** JSON text of a StateChange, when the call's set_state changed its tool's state; null otherwise. */
  state_change: string | null;
  /** JSON text of an UpstreamRecord for a call forwarded to a real handler; null for a mock's answer. */
  upstream: string | null;
}

/**
 * A call's set_state: the state of its tool (state is kept per tool, shared by its operations)
 * just before the call and just after it. Recorded only for calls that changed it, so a lookup
 * costs nothing more; the state a lookup saw is the `before` of its tool's next change, or the
 * attempt's state when none follows.
 */
export interface StateChange {
  tool: string;
  before: JsonValue;
  after: JsonValue;
  /**
   * A tool started from a dataset: `before` and `after` hold only the records the call changed
   * (nested as in the state, a created record absent from `before`, a removed one from `after`),
   * `records` their JSON Pointers, and `dataset` the version they changed (core/datasets/records.ts).
   */
  records?: string[];
  dataset?: { name: string; version: number };
}

/** What the evidence keeps of a call forwarded to a real handler. */
export interface UpstreamRecord {
  /** The real handler's HTTP status (an MCP upstream: its HTTP answer's, 200), or null when no answer came. */
  status: number | null;
  latency_ms: number;
  /** Where the real answer breaks the output schema (empty: it keeps the contract). */
  contract_violations: Problem[];
}

/**
 * Every column of an evidence row, in the one order the object's insert, its reads and the flush
 * to D1 all use: a column added here reaches each of them (the `satisfies` below fails to compile
 * while one is missing).
 */
export const EVIDENCE_COLUMNS = [
  "seq",
  "call_id",
  "tool",
  "operation_id",
  "revision",
  "variant",
  "rule",
  "arguments",
  "outcome",
  "result",
  "error",
  "delay_ms",
  "at",
  "state_change",
  "upstream",
] as const satisfies ReadonlyArray<keyof EvidenceRow>;

/** Compiles only while EVIDENCE_COLUMNS names every field of EvidenceRow. */
const everyColumnListed: Record<Exclude<keyof EvidenceRow, (typeof EVIDENCE_COLUMNS)[number]>, never> = {};
void everyColumnListed;

/** An attempt's real-call figures: calls forwarded to real handlers, and those whose real answer broke the output schema. */
export interface RealCallCounts {
  real_calls: number;
  contract_violations: number;
}

/**
 * The SQL select list of RealCallCounts over evidence rows (the object's calls table, D1's
 * attempt_calls): one text for both, so the live attempt and the one read back from D1 count alike.
 * A record that is not JSON counts as a real call without a violation (json_array_length would
 * throw on it, failing the whole read; CASE is evaluated lazily, AND need not be).
 */
export const REAL_CALL_COUNTS = `coalesce(sum(upstream IS NOT NULL), 0) AS real_calls,
  coalesce(sum(CASE WHEN json_valid(upstream) THEN coalesce(json_array_length(upstream, '$.contract_violations'), 0) > 0 ELSE 0 END), 0) AS contract_violations`;

/** One row as its column values, in EVIDENCE_COLUMNS order. */
export function evidenceValues(row: EvidenceRow): Array<string | number | null> {
  return EVIDENCE_COLUMNS.map((column) => row[column]);
}

/**
 * A stored row read back, from the object's SQLite or from D1 (selected by EVIDENCE_COLUMNS). An
 * outcome this code did not write reads as a harness error: an unreadable record must never pass
 * as a successful call.
 */
export function evidenceRowOf(row: Readonly<Record<string, unknown>>): EvidenceRow {
  return {
    seq: Number(row.seq),
    call_id: stringOrNull(row.call_id),
    tool: String(row.tool),
    operation_id: String(row.operation_id),
    revision: numberOrNull(row.revision),
    variant: stringOrNull(row.variant),
    rule: numberOrNull(row.rule),
    arguments: String(row.arguments),
    outcome: isOutcomeKind(row.outcome) ? row.outcome : "harness_error",
    result: stringOrNull(row.result),
    error: stringOrNull(row.error),
    delay_ms: Number(row.delay_ms),
    at: String(row.at),
    state_change: stringOrNull(row.state_change),
    upstream: stringOrNull(row.upstream),
  };
}

function numberOrNull(value: unknown): number | null {
  return typeof value === "number" ? value : null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** One call as GET /api/attempts/:id/evidence shows it. */
export interface EvidenceCall {
  seq: number;
  call_id: string | null;
  tool: string;
  operation_id: string;
  revision: number | null;
  variant: string | null;
  rule: number | null;
  arguments: JsonValue;
  outcome: CallOutcomeKind;
  result?: JsonValue;
  error?: EvidenceError;
  delay_ms: number;
  at: string;
  /** Present when the call changed its tool's state (set_state). */
  state_change?: StateChange;
  /** Present for a call forwarded to a real handler. */
  source?: "real";
  upstream?: UpstreamRecord;
}

function isOutcomeKind(value: unknown): value is CallOutcomeKind {
  return value === "result" || value === "tool_input_error" || value === "harness_error";
}

export function toEvidenceCall(row: EvidenceRow): EvidenceCall {
  const call: EvidenceCall = {
    seq: row.seq,
    call_id: row.call_id,
    tool: row.tool,
    operation_id: row.operation_id,
    revision: row.revision,
    variant: row.variant,
    rule: row.rule,
    arguments: parseStored(row.arguments),
    outcome: row.outcome,
    delay_ms: row.delay_ms,
    at: row.at,
  };
  if (row.result !== null) call.result = parseStored(row.result);
  if (row.error !== null) call.error = parseEvidenceError(row.error);
  const change = row.state_change === null ? undefined : parseStateChange(row.state_change);
  if (change) call.state_change = change;
  // The column is written for forwarded calls only, so the call stays a real one even when its
  // record cannot be read; only the unreadable figures are left out (see parseUpstreamRecord).
  if (row.upstream !== null) {
    call.source = "real";
    const upstream = parseUpstreamRecord(row.upstream);
    if (upstream) call.upstream = upstream;
  }
  return call;
}

export function parseEvidenceError(text: string): EvidenceError {
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null)
    return { code: "harness_error", kind: "internal", message: "unreadable error record", details: [] };
  // SAFETY: the text was produced by JSON.stringify of an EvidenceError in the attempt object;
  // this only reads back what toolproof itself wrote.
  return value as EvidenceError;
}

/**
 * A stored state change, or undefined when the text is not one. Only the attempt object writes it
 * (JSON.stringify of a StateChange), so a malformed one means storage was damaged. Deliberately
 * absent rather than a harness error: the call and its outcome stand on their own columns, and a
 * reader of the evidence must not get a 500 for one damaged cell; the state it would have shown
 * is still the attempt's final state and the next change's `before`.
 */
export function parseStateChange(text: string): StateChange | undefined {
  const value = parsedOrUndefined(text);
  if (!isJsonObject(value) || typeof value.tool !== "string" || !("before" in value) || !("after" in value))
    return undefined;
  const { before, after, records, dataset } = value;
  if (before === undefined || after === undefined) return undefined;
  const change: StateChange = { tool: value.tool, before, after };
  if (Array.isArray(records) && records.every((r) => typeof r === "string")) change.records = records as string[];
  if (isJsonObject(dataset) && typeof dataset.name === "string" && typeof dataset.version === "number")
    change.dataset = { name: dataset.name, version: dataset.version };
  return change;
}

/**
 * A stored upstream record, or undefined when the text is not one. Written only by the attempt
 * object (JSON.stringify of an UpstreamRecord); a malformed one is read as absent, on purpose:
 * inventing figures (a latency of 0, no contract violations) would make a damaged record pass for
 * a call that kept the contract, and failing the whole evidence read would hide every other call.
 * The call keeps `source: "real"` (toEvidenceCall), and the SQL counts (REAL_CALL_COUNTS) count it
 * as a real call without a contract violation, since none can be read.
 */
export function parseUpstreamRecord(text: string): UpstreamRecord | undefined {
  const value = parsedOrUndefined(text);
  if (!isJsonObject(value)) return undefined;
  const { status, latency_ms: latency, contract_violations: violations } = value;
  if (status !== null && !(typeof status === "number" && Number.isInteger(status))) return undefined;
  if (typeof latency !== "number" || !Number.isFinite(latency) || latency < 0) return undefined;
  if (!Array.isArray(violations)) return undefined;
  const problems: Problem[] = [];
  for (const violation of violations) {
    if (!isJsonObject(violation) || typeof violation.path !== "string" || typeof violation.message !== "string")
      return undefined;
    problems.push({ path: violation.path, message: violation.message });
  }
  return { status, latency_ms: latency, contract_violations: problems };
}

/** JSON.parse of stored text, or undefined when the text is not JSON. */
function parsedOrUndefined(text: string): JsonValue | undefined {
  try {
    return parseStored(text);
  } catch {
    return undefined;
  }
}

function parseStored(text: string): JsonValue {
  // SAFETY: stored text is always the output of JSON.stringify on a JSON value.
  return JSON.parse(text) as JsonValue;
}
