import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ApprovalRequest,
  type ExecutedCall,
  executedCallOf,
  harnessErrorAmong,
  type RepetitionCall,
  repetitionCalls,
} from "../../../src/core/scoring/calls.js";

const lookup = (call_id: string | null, invoice_id = "INV-10431"): ExecutedCall => ({
  function: "get_invoice",
  arguments: { invoice_id },
  call_id,
  outcome: "result",
  result: { status: "received" },
});
const hold = (call_id: string | null): ApprovalRequest => ({
  function: "place_invoice_on_hold",
  arguments: { invoice_id: "INV-10423", reason: "duplicate" },
  call_id,
});

describe("the calls of a repetition", () => {
  it.each<[string, ExecutedCall[], ApprovalRequest[], RepetitionCall[]]>([
    ["nothing called", [], [], []],
    ["one lookup", [lookup("c1")], [], [{ kind: "executed", ...lookup("c1") }]],
    [
      "an approval request only: proposed, not executed",
      [],
      [hold("c2")],
      [{ kind: "approval_request", ...hold("c2") }],
    ],
    [
      "a lookup, then the hold it paused on",
      [lookup("c1")],
      [hold("c2")],
      [
        { kind: "executed", ...lookup("c1") },
        { kind: "approval_request", ...hold("c2") },
      ],
    ],
    [
      // A framework that reports the paused call both as a call and as an approval request: one call.
      "an approval request whose id was already executed is the same call",
      [{ ...lookup("c1"), function: "place_invoice_on_hold" }],
      [{ ...hold("c1") }],
      [{ kind: "executed", ...lookup("c1"), function: "place_invoice_on_hold" }],
    ],
    [
      "the same call id twice in the evidence counts once",
      [lookup("c1"), lookup("c1", "INV-10423")],
      [],
      [{ kind: "executed", ...lookup("c1") }],
    ],
    [
      "calls without an id cannot be matched, so each counts",
      [lookup(null), lookup(null)],
      [hold(null)],
      [
        { kind: "executed", ...lookup(null) },
        { kind: "executed", ...lookup(null) },
        { kind: "approval_request", ...hold(null) },
      ],
    ],
    [
      "a call refused with a tool input error was still made",
      [
        {
          function: "get_invoice",
          arguments: { invoice_id: 7 },
          call_id: "c1",
          outcome: "tool_input_error",
          error: { code: "tool_input_error", message: "invoice_id must be a string", details: [] },
        },
      ],
      [],
      [
        {
          kind: "executed",
          function: "get_invoice",
          arguments: { invoice_id: 7 },
          call_id: "c1",
          outcome: "tool_input_error",
          error: { code: "tool_input_error", message: "invoice_id must be a string", details: [] },
        },
      ],
    ],
  ])("%s", (_name, executed, approvals, expected) => {
    expect(repetitionCalls(executed, approvals)).toEqual(expected);
  });

  it("keeps every distinct call id once, executed calls first, and every call without an id", () => {
    const id = fc.option(fc.constantFrom("a", "b", "c", "d"), { nil: null });
    const executed = fc.array(
      id.map((call_id) => lookup(call_id)),
      { maxLength: 8 },
    );
    const approvals = fc.array(
      id.map((call_id) => hold(call_id)),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(executed, approvals, (e, a) => {
        const calls = repetitionCalls(e, a);
        const ids = calls.map((c) => c.call_id).filter((c) => c !== null);
        expect(new Set(ids).size).toBe(ids.length);
        expect(new Set(ids)).toEqual(new Set([...e, ...a].map((c) => c.call_id).filter((c) => c !== null)));
        expect(calls.filter((c) => c.call_id === null).length).toBe(
          [...e, ...a].filter((c) => c.call_id === null).length,
        );
        const firstProposed = calls.findIndex((c) => c.kind === "approval_request");
        if (firstProposed >= 0)
          expect(calls.slice(firstProposed).every((c) => c.kind === "approval_request")).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe("a harness error among the calls", () => {
  it.each<[string, RepetitionCall[], string | null]>([
    ["none", [{ kind: "executed", ...lookup("c1") }], null],
    [
      "a tool input error is the agent's, not the harness's",
      [
        {
          kind: "executed",
          ...lookup("c1"),
          outcome: "tool_input_error",
          error: { code: "tool_input_error", message: "bad", details: [] },
        },
      ],
      null,
    ],
    [
      "the first harness error, with its kind",
      [
        { kind: "executed", ...lookup("c1") },
        {
          kind: "executed",
          ...lookup("c2"),
          outcome: "harness_error",
          error: {
            code: "harness_error",
            kind: "output_schema",
            message: "the result does not match the output schema",
            details: [],
          },
        },
        { kind: "executed", ...lookup(null), outcome: "harness_error" },
      ],
      "the harness failed the call to get_invoice (call c2): output_schema: the result does not match the output schema",
    ],
    [
      "without an error record",
      [{ kind: "executed", ...lookup(null), outcome: "harness_error" }],
      "the harness failed the call to get_invoice: no error record",
    ],
  ])("%s", (_name, calls, expected) => {
    expect(harnessErrorAmong(calls)).toBe(expected);
  });
});

describe("an evidence call as scoring reads it", () => {
  const row = {
    seq: 1,
    call_id: "c1",
    tool: "invoices",
    operation_id: "get",
    revision: 1,
    variant: null,
    rule: 0,
    arguments: { invoice_id: "INV-1" },
    delay_ms: 0,
    at: "2026-12-01T00:00:00.000Z",
  };
  it.each<[string, Parameters<typeof executedCallOf>[0], ExecutedCall]>([
    [
      "a result",
      { ...row, outcome: "result", result: { status: "approved" } },
      {
        function: "invoices__get",
        arguments: { invoice_id: "INV-1" },
        call_id: "c1",
        outcome: "result",
        result: { status: "approved" },
      },
    ],
    [
      "a tool input error",
      {
        ...row,
        outcome: "tool_input_error",
        error: { code: "tool_input_error", message: "bad id", details: [{ path: "/invoice_id", message: "bad id" }] },
      },
      {
        function: "invoices__get",
        arguments: { invoice_id: "INV-1" },
        call_id: "c1",
        outcome: "tool_input_error",
        error: { code: "tool_input_error", message: "bad id", details: [{ path: "/invoice_id", message: "bad id" }] },
      },
    ],
  ])("%s", (_name, evidence, expected) => {
    expect(executedCallOf(evidence, "invoices__get")).toEqual(expected);
  });
});
