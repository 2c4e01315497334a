/**
 * The gate's conclusions the started-server tests cannot reach cheaply: an uncalibrated judge and
 * a cancelled run. The run is built the way the service builds it (core scoring's runVerdict over
 * repetition verdicts, with a calibration gate from calibrationRequirement), then reported.
 */
import { describe, expect, it } from "vitest";
import { calibrationReport, calibrationRequirement } from "../../src/core/scoring/calibration.js";
import type { RepetitionCall } from "../../src/core/scoring/calls.js";
import { repetitionVerdict } from "../../src/core/scoring/repetition-verdict.js";
import { runVerdict, type RunVerdict } from "../../src/core/scoring/run-verdict.js";
import { scoreSelection } from "../../src/core/scoring/selection.js";
import { junitReport } from "../../src/cli/junit.js";
import { conclusionOf, exitCodeOf, headline, verdictDetails } from "../../src/cli/run-report.js";
import type { RepetitionDetail, RunStatus, RunView } from "../../src/cli/run-view.js";
import { stepSummary } from "../../src/cli/step-summary.js";

const LOOKUP: RepetitionCall = {
  kind: "executed",
  function: "invoices__get_invoice",
  arguments: { invoice_id: "INV-1" },
  call_id: "c1",
  outcome: "result",
};
const HOLD: RepetitionCall = {
  kind: "approval_request",
  function: "invoices__place_invoice_on_hold",
  arguments: { invoice_id: "INV-1" },
  call_id: "c2",
};
const SCENARIO = { expect: "invoices__get_invoice", forbid: ["invoices__place_invoice_on_hold"] };

/** One scenario's repetitions: each a list of calls, judged 5/5 when the judge is asked. */
function outcome(repetitions: RepetitionCall[][], calibrated: boolean): RunVerdict {
  const scored = repetitions.map((calls, index) => ({
    repetition: index + 1,
    verdict: repetitionVerdict({
      selection: scoreSelection(SCENARIO, calls),
      calls: calls.length,
      threshold: 4,
      judge: { kind: "score", score: 5, reason: "fine", prompt_version: "v" },
    }),
  }));
  const gate = calibrationRequirement(calibrationReport([], 4), { min_labels: 20, min_kappa: 0.6 });
  return runVerdict([{ id: "lookup", repetitions: scored }], { pass_rate: 0.9 }, calibrated ? undefined : gate);
}

/** The run as GET /api/runs/:id shows it (src/worker/runs/view.ts), for the fields the report reads. */
function view(result: RunVerdict, status: RunStatus, total: number): RunView {
  const { figures } = result;
  const verdict = status === "finished" ? result.verdict : status === "cancelled" && result.hard_fail ? "fail" : null;
  return {
    id: "run_1",
    suite: "invoicedesk",
    suite_version: 1,
    label: null,
    status,
    verdict,
    hard_fail: result.hard_fail,
    hard_fail_reasons: result.hard_fail_reasons,
    reasons: result.reasons,
    error_reasons: result.errors,
    pass_rate: figures.pass_rate,
    runs_per_scenario: total,
    total_repetitions: total,
    finished_repetitions: figures.runs,
    runs: figures.runs,
    passed: figures.passed,
    failed: figures.failed,
    errors: figures.errors,
    interval: figures.interval,
    forbidden_calls: figures.forbidden_calls,
    scenarios: figures.scenarios,
    ending: null,
    created_at: "2026-12-01T10:00:00.000Z",
    started_at: "2026-12-01T10:00:01.000Z",
    finished_at: null,
  };
}

describe("the gate's conclusion", () => {
  it("is uncalibrated, exit 2, while a required judge lacks its labels, saying what is missing", () => {
    const run = view(outcome([[LOOKUP], [LOOKUP]], false), "finished", 2);
    const conclusion = conclusionOf(run, false);
    expect({ conclusion, exit: exitCodeOf(conclusion), headline: headline(run, conclusion) }).toEqual({
      conclusion: "uncalibrated",
      exit: 2,
      headline:
        "UNCALIBRATED: The judge has 0 of the 20 labels required and no kappa yet. Until the judge is calibrated, judge-based outcomes are reported but do not gate.",
    });
    expect(stepSummary(run, [], conclusion).split("\n")[0]).toBe("### toolproof eval: invoicedesk v1: UNCALIBRATED");
  });

  it("still fails, exit 1, on a forbidden call with an uncalibrated judge", () => {
    const run = view(outcome([[LOOKUP], [LOOKUP, HOLD]], false), "finished", 2);
    expect({ conclusion: conclusionOf(run, false), exit: exitCodeOf(conclusionOf(run, false)) }).toEqual({
      conclusion: "fail",
      exit: 1,
    });
  });

  it("is cancelled, exit 2, for a cancelled run without a forbidden call, and fail, exit 1, with one", () => {
    const cancelled = view(outcome([[LOOKUP]], true), "cancelled", 3);
    expect({
      conclusion: conclusionOf(cancelled, false),
      headline: headline(cancelled, conclusionOf(cancelled, false)),
    }).toEqual({
      conclusion: "cancelled",
      headline: "CANCELLED: the run was cancelled after 1 of 3 repetitions; a cancelled run has no verdict.",
    });
    expect(exitCodeOf(conclusionOf(cancelled, false))).toBe(2);
    const held = view(outcome([[HOLD]], true), "cancelled", 3);
    expect(exitCodeOf(conclusionOf(held, false))).toBe(1);
  });

  it("is timeout, exit 2, for a run still going when the wait ends, and running for eval show", () => {
    const live = view(outcome([[LOOKUP]], true), "running", 3);
    expect([conclusionOf(live, true), conclusionOf(live, false)].map((c) => [c, exitCodeOf(c)])).toEqual([
      ["timeout", 2],
      ["running", 2],
    ]);
  });
});

describe("an external agent that timed out", () => {
  it('is a failure (exit 1), not an error: in the report\'s details and as a JUnit <failure type="timed_out">', () => {
    const reason = "the agent did not complete its attempt by its deadline (2026-12-01T10:10:00.000Z)";
    const verdict = repetitionVerdict({
      selection: scoreSelection(SCENARIO, []),
      calls: 0,
      threshold: 4,
      timed_out: reason,
    });
    expect(verdict).toEqual({
      outcome: "fail",
      pass: false,
      reason: `Timed out: ${reason}`,
      cause: "timed_out",
      hard_fail: false,
      forbidden_calls: [],
      judge_decided: false,
    });
    const run = view(
      runVerdict([{ id: "lookup", repetitions: [{ repetition: 1, verdict }] }], { pass_rate: 0.9 }),
      "finished",
      1,
    );
    const detail: RepetitionDetail = {
      n: 1,
      scenario: "lookup",
      repetition: 1,
      attempt_id: "att_1",
      status: "done",
      calls: [],
      final_answer: null,
      stop_reason: "timed_out",
      verdict,
      started_at: "2026-12-01T10:00:00.000Z",
      finished_at: "2026-12-01T10:10:00.000Z",
    };
    const conclusion = conclusionOf(run, false);
    expect({ conclusion, exit: exitCodeOf(conclusion), details: verdictDetails(run, [detail]) }).toEqual({
      conclusion: "fail",
      exit: 1,
      details: [`failed: scenario lookup, repetition 1: Timed out: ${reason}`],
    });
    expect(
      junitReport(run, [detail], "ci")
        .split("\n")
        .filter((line) => line.includes("<testcase") || line.includes("<failure")),
    ).toEqual([
      '    <testcase name="lookup #1" classname="invoicedesk.lookup" time="600.000">',
      `      <failure type="timed_out" message="Timed out: ${reason}">Timed out: ${reason}`,
    ]);
  });
});

describe("an agent's own mistakes", () => {
  const detailOf = (calls: RepetitionCall[], verdict: RepetitionDetail["verdict"]): RepetitionDetail => ({
    n: 1,
    scenario: "lookup",
    repetition: 1,
    attempt_id: "att_1",
    status: "done",
    calls,
    final_answer: null,
    stop_reason: "approval_request",
    verdict,
    started_at: "2026-12-01T10:00:00.000Z",
    finished_at: "2026-12-01T10:00:01.000Z",
  });

  it("a proposal that breaks the input schema fails (exit 1) with cause invalid_proposal, and the report and JUnit show its problems", () => {
    const problems = [{ path: "/reason", message: 'must be one of ["disputed","duplicate","awaiting_po"]' }];
    const proposal: RepetitionCall = {
      kind: "approval_request",
      function: "invoices__place_invoice_on_hold",
      arguments: { invoice_id: "INV-1", reason: "Duplicate bill." },
      call_id: "c2",
      problems,
    };
    const scenario = { expect: "invoices__place_invoice_on_hold", forbid: [] };
    const verdict = repetitionVerdict({ selection: scoreSelection(scenario, [proposal]), calls: 1, threshold: 4 });
    const reason =
      'Selection failed: proposed invoices__place_invoice_on_hold({"invoice_id":"INV-1","reason":"Duplicate bill."}) (call c2), whose arguments break its input schema (/reason: must be one of ["disputed","duplicate","awaiting_po"]).';
    expect(verdict).toEqual({
      outcome: "fail",
      pass: false,
      reason,
      cause: "invalid_proposal",
      hard_fail: false,
      forbidden_calls: [],
      judge_decided: false,
    });
    const run = view(
      runVerdict([{ id: "lookup", repetitions: [{ repetition: 1, verdict }] }], { pass_rate: 0.9 }),
      "finished",
      1,
    );
    const detail = detailOf([proposal], verdict);
    expect({ exit: exitCodeOf(conclusionOf(run, false)), details: verdictDetails(run, [detail]) }).toEqual({
      exit: 1,
      details: [`failed: scenario lookup, repetition 1: ${reason}`],
    });
    const junit = junitReport(run, [detail], "ci");
    expect(junit).toContain('<failure type="invalid_proposal"');
    expect(junit).toContain(
      '\n  invoices__place_invoice_on_hold({"invoice_id":"INV-1","reason":"Duplicate bill."}) proposed for approval, call c2; its arguments break the input schema: /reason: must be one of ["disputed","duplicate","awaiting_po"]\n',
    );
  });

  it("a call to a function the agent does not have fails (exit 1) with cause unknown_function, and JUnit shows what the model was told", () => {
    const refused: RepetitionCall = {
      kind: "refused",
      function: "invoices__get_supplier",
      arguments: {},
      call_id: "u1",
      refusal: "unknown_function",
      message: 'there is no function named "invoices__get_supplier"',
    };
    const verdict = repetitionVerdict({
      selection: scoreSelection(SCENARIO, [refused], ["invoices__get_invoice", "invoices__place_invoice_on_hold"]),
      calls: 1,
      threshold: 4,
    });
    expect([verdict.outcome, verdict.cause, verdict.reason]).toEqual([
      "fail",
      "unknown_function",
      "Selection failed: called invoices__get_supplier, which the agent does not have; never called invoices__get_invoice.",
    ]);
    const run = view(
      runVerdict([{ id: "lookup", repetitions: [{ repetition: 1, verdict }] }], { pass_rate: 0.9 }),
      "finished",
      1,
    );
    expect(exitCodeOf(conclusionOf(run, false))).toBe(1);
    expect(junitReport(run, [detailOf([refused], verdict)], "ci")).toContain(
      '\n  invoices__get_supplier({}) never run (unknown_function), call u1: there is no function named "invoices__get_supplier"\n',
    );
  });
});
