import { describe, expect, it } from "vitest";
import { EVIDENCE_COLUMNS, evidenceRowOf, evidenceValues, toEvidenceCall, type EvidenceRow } from "../../../src/core/simulation/evidence.js";

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
    expect(toEvidenceCall({ ...row, state_change: JSON.stringify(change) })).toStrictEqual({ ...common, arguments: { n: 1 }, result: { previous: 0 }, state_change: change });
    expect(toEvidenceCall(row)).not.toHaveProperty("state_change");
  });
});

describe("toEvidenceCall of a real call", () => {
  it("says where the answer came from: source real, with the upstream's status, latency and contract violations", () => {
    const upstream = { status: 200, latency_ms: 12, contract_violations: [{ path: "/previous", message: "expected an integer" }] };
    const { result: _result, error: _error, state_change: _change, upstream: _upstream, ...common } = row;
    expect(toEvidenceCall({ ...row, upstream: JSON.stringify(upstream) })).toStrictEqual({ ...common, arguments: { n: 1 }, result: { previous: 0 }, source: "real", upstream });
  });
});

describe("the evidence column list", () => {
  it("names every field once, and a row written by its values reads back as the same row", () => {
    expect([...EVIDENCE_COLUMNS].sort()).toEqual(Object.keys(row).sort());
    const stored = Object.fromEntries(EVIDENCE_COLUMNS.map((column, i) => [column, evidenceValues(row)[i]]));
    const withRevision = { ...row, revision: 4, rule: 0, call_id: "k" };
    expect([evidenceRowOf(stored), evidenceRowOf(Object.fromEntries(EVIDENCE_COLUMNS.map((c, i) => [c, evidenceValues(withRevision)[i]])))]).toStrictEqual([row, withRevision]);
  });

  it("reads an outcome it did not write as a harness error, never as a result", () => {
    expect(evidenceRowOf({ ...row, outcome: "success" })).toStrictEqual({ ...row, outcome: "harness_error" });
  });
});
