import { describe, expect, it } from "vitest";
import {
  EVIDENCE_COLUMNS,
  evidenceRowOf,
  evidenceValues,
  parseStateChange,
  parseUpstreamRecord,
  toEvidenceCall,
  type EvidenceRow,
} from "../../../src/core/simulation/evidence.js";

const row: EvidenceRow = {
  seq: 3,
  call_id: null,
  tool: "counter",
  operation_id: "counter",
  revision: null,
  variant: "swap",
  rule: null,
  arguments: '{"n":1}',
  outcome: "result",
  result: '{"previous":0}',
  error: null,
  delay_ms: 0,
  at: "2026-01-01T00:00:00.000Z",
  state_change: null,
  upstream: null,
};

describe("toEvidenceCall", () => {
  it("parses the stored JSON text and leaves out the half that does not apply", () => {
    const { result: _result, error: _error, state_change: _change, upstream: _upstream, ...common } = row;
    expect(toEvidenceCall(row)).toStrictEqual({ ...common, arguments: { n: 1 }, result: { previous: 0 } });
    const error = { code: "harness_error", kind: "unknown_tool", message: "no", details: [] };
    const failed = toEvidenceCall({ ...row, outcome: "harness_error", result: null, error: JSON.stringify(error) });
    expect(failed).toStrictEqual({ ...common, arguments: { n: 1 }, outcome: "harness_error", error });
  });

  it("shows a set_state's state before and after only on the call that changed it", () => {
    const { result: _result, error: _error, state_change: _change, upstream: _upstream, ...common } = row;
    const change = { tool: "counter", before: { n: 0 }, after: { n: 1 } };
    expect(toEvidenceCall({ ...row, state_change: JSON.stringify(change) })).toStrictEqual({
      ...common,
      arguments: { n: 1 },
      result: { previous: 0 },
      state_change: change,
    });
    expect(toEvidenceCall(row)).not.toHaveProperty("state_change");
  });
});

describe("toEvidenceCall of a real call", () => {
  it("says where the answer came from: source real, with the upstream's status, latency and contract violations", () => {
    const upstream = {
      status: 200,
      latency_ms: 12,
      contract_violations: [{ path: "/previous", message: "expected an integer" }],
    };
    const { result: _result, error: _error, state_change: _change, upstream: _upstream, ...common } = row;
    expect(toEvidenceCall({ ...row, upstream: JSON.stringify(upstream) })).toStrictEqual({
      ...common,
      arguments: { n: 1 },
      result: { previous: 0 },
      source: "real",
      upstream,
    });
  });
});

describe("reading back a stored upstream record", () => {
  const record = { status: 503, latency_ms: 7, contract_violations: [{ path: "", message: "expected an object" }] };

  it("reads a record the object wrote, a call with no HTTP answer (status null) included", () => {
    expect(parseUpstreamRecord(JSON.stringify(record))).toStrictEqual(record);
    expect(parseUpstreamRecord(JSON.stringify({ ...record, status: null, contract_violations: [] }))).toStrictEqual({
      ...record,
      status: null,
      contract_violations: [],
    });
  });

  it("reads a malformed record as absent: not JSON, the wrong shape, or a violation that is not a problem", () => {
    const malformed = [
      "{",
      "null",
      "[]",
      JSON.stringify({ ...record, status: "503" }),
      JSON.stringify({ status: 200, contract_violations: [] }),
      JSON.stringify({ ...record, latency_ms: -1 }),
      JSON.stringify({ ...record, contract_violations: {} }),
      JSON.stringify({ ...record, contract_violations: [{ path: "/a" }] }),
      JSON.stringify({ ...record, contract_violations: ["bad"] }),
    ];
    expect(malformed.map(parseUpstreamRecord)).toStrictEqual(malformed.map(() => undefined));
  });

  it("keeps a call with a malformed record a real call, without figures nobody can read", () => {
    const { result: _result, error: _error, state_change: _change, upstream: _upstream, ...common } = row;
    expect(toEvidenceCall({ ...row, upstream: '{"status":' })).toStrictEqual({
      ...common,
      arguments: { n: 1 },
      result: { previous: 0 },
      source: "real",
    });
  });

  it("reads a malformed state change as absent, and a well-formed one whole", () => {
    const change = { tool: "counter", before: { n: [1, { m: null }] }, after: "x" };
    expect(parseStateChange(JSON.stringify(change))).toStrictEqual(change);
    expect(
      ["{", "[]", JSON.stringify({ before: 1, after: 2 }), JSON.stringify({ tool: "counter", after: 2 })].map(
        parseStateChange,
      ),
    ).toStrictEqual([undefined, undefined, undefined, undefined]);
    const { result: _result, error: _error, state_change: _change, upstream: _upstream, ...common } = row;
    expect(toEvidenceCall({ ...row, state_change: "not json" })).toStrictEqual({
      ...common,
      arguments: { n: 1 },
      result: { previous: 0 },
    });
  });
});

describe("the evidence column list", () => {
  it("names every field once, and a row written by its values reads back as the same row", () => {
    expect([...EVIDENCE_COLUMNS].sort()).toEqual(Object.keys(row).sort());
    const stored = Object.fromEntries(EVIDENCE_COLUMNS.map((column, i) => [column, evidenceValues(row)[i]]));
    const withRevision = { ...row, revision: 4, rule: 0, call_id: "k" };
    expect([
      evidenceRowOf(stored),
      evidenceRowOf(Object.fromEntries(EVIDENCE_COLUMNS.map((c, i) => [c, evidenceValues(withRevision)[i]]))),
    ]).toStrictEqual([row, withRevision]);
  });

  it("reads an outcome it did not write as a harness error, never as a result", () => {
    expect(evidenceRowOf({ ...row, outcome: "success" })).toStrictEqual({ ...row, outcome: "harness_error" });
  });
});
