/**
 * A repetition graded by its end state and outputs, as the CLI log and JUnit show it: each
 * differing path with the expected and actual values, each fact never stated, and the changes
 * over the starting state as a diff. Built the way the service builds it (core scoring).
 */
import { describe, expect, it } from "vitest";
import { gradeEndState } from "../../src/core/scoring/end-state.js";
import { gradeOutputs } from "../../src/core/scoring/outputs.js";
import { repetitionVerdict } from "../../src/core/scoring/repetition-verdict.js";
import { runVerdict } from "../../src/core/scoring/run-verdict.js";
import { scoreSelection } from "../../src/core/scoring/selection.js";
import { changeLines, mismatchLines } from "../../src/cli/end-state-report.js";
import { junitReport } from "../../src/cli/junit.js";
import { conclusionOf, exitCodeOf, verdictDetails } from "../../src/cli/run-report.js";
import type { RepetitionDetail, RunView } from "../../src/cli/run-view.js";

const HOLD = "invoices__place_invoice_on_hold";
const P = "/invoices/invoices/INV-10423";
const start = { invoices: { invoices: { "INV-10423": { status: "approved", hold_reason: null } } } };
const held = (reason: string) => ({
  invoices: { invoices: { "INV-10423": { status: "on_hold", hold_reason: reason } } },
});

const end_state = gradeEndState({
  initial: start,
  actual: held("disputed"),
  gold: { state: held("duplicate"), attempt_id: "att_gold" },
});
const outputs = gradeOutputs(["on hold", "duplicate"], ["INV-10423 is on hold."]);
const call = {
  kind: "executed" as const,
  function: HOLD,
  arguments: { invoice_id: "INV-10423", reason: "disputed" },
  call_id: "c1",
  outcome: "result" as const,
};
const verdict = repetitionVerdict({
  selection: scoreSelection({ expect: HOLD, forbid: [] }, [call]),
  calls: 1,
  threshold: 4,
  end_state,
  outputs,
});
const result = runVerdict([{ id: "hold", repetitions: [{ repetition: 1, verdict }] }], { pass_rate: 0.9 });
const run: RunView = {
  id: "run_1",
  suite: "graded",
  suite_version: 1,
  label: null,
  status: "finished",
  verdict: result.verdict,
  hard_fail: false,
  hard_fail_reasons: [],
  reasons: result.reasons,
  error_reasons: result.errors,
  pass_rate: result.figures.pass_rate,
  runs_per_scenario: 1,
  total_repetitions: 1,
  finished_repetitions: 1,
  runs: 1,
  passed: 0,
  failed: 1,
  errors: 0,
  interval: result.figures.interval,
  forbidden_calls: 0,
  scenarios: result.figures.scenarios,
  ending: null,
  created_at: "2026-12-01T10:00:00.000Z",
  started_at: "2026-12-01T10:00:01.000Z",
  finished_at: "2026-12-01T10:00:02.000Z",
};
const detail: RepetitionDetail = {
  n: 1,
  scenario: "hold",
  repetition: 1,
  attempt_id: "att_1",
  status: "done",
  calls: [call],
  final_answer: "INV-10423 is on hold.",
  stop_reason: "final_answer",
  verdict,
  end_state,
  outputs,
  started_at: "2026-12-01T10:00:01.000Z",
  finished_at: "2026-12-01T10:00:02.000Z",
};
const reason = `End state differs at 1 path: ${P}/hold_reason: expected "duplicate", got "disputed". The answers never state "duplicate".`;

describe("a repetition graded by its outcome, in the CLI's reports", () => {
  it("fails (exit 1), and the log names each differing path with both values and each missing fact", () => {
    expect(verdict).toMatchObject({ outcome: "fail", cause: "end_state", reason });
    expect({ exit: exitCodeOf(conclusionOf(run, false)), details: verdictDetails(run, [detail]) }).toEqual({
      exit: 1,
      details: [
        `failed: scenario hold, repetition 1: ${reason}`,
        `  ${P}/hold_reason: expected "duplicate", actual "disputed"`,
        '  output never stated: "duplicate"',
      ],
    });
  });

  it("shows the state's changes over the start as a diff, the agent's and the gold calls'", () => {
    expect(changeLines(detail)).toEqual([
      "state changes over the start (agent, 2):",
      `  ~ ${P}/hold_reason: null → "disputed"`,
      `  ~ ${P}/status: "approved" → "on_hold"`,
      "state changes over the start (gold calls, attempt att_gold):",
      `  ~ ${P}/hold_reason: null → "duplicate"`,
      `  ~ ${P}/status: "approved" → "on_hold"`,
    ]);
    const added = gradeEndState({ initial: { t: { a: 1 } }, actual: { t: { b: 2 } }, assert: [] });
    expect(changeLines({ end_state: added })).toEqual([
      "state changes over the start (agent, 2):",
      "  - /t/a: 1",
      "  + /t/b: 2",
    ]);
    expect(mismatchLines({})).toEqual([]);
    const big = { rows: Array.from({ length: 1000 }, (_, i) => i) };
    const large = gradeEndState({
      initial: { t: {} },
      actual: { t: {} },
      gold: { state: { t: { big } }, attempt_id: "g" },
    });
    const bytes = JSON.stringify(big).length;
    expect(mismatchLines({ end_state: large })).toEqual([
      `/t/big: expected (${bytes} bytes of JSON, too large to keep), actual (absent)`,
    ]);
    expect(changeLines({ end_state: large }).slice(2)).toEqual([
      "state changes over the start (gold calls, attempt g):",
      `  + /t/big: (${bytes} bytes of JSON, too large to keep)`,
    ]);
  });

  it("puts the mismatches and the diff in the JUnit failure", () => {
    const junit = junitReport(run, [detail], "ci");
    expect(junit).toContain(`<failure type="end_state" message="${reason.replaceAll('"', "&quot;")}">`);
    expect(junit).toContain(
      [
        "final answer: INV-10423 is on hold.",
        "end state and outputs:",
        `  ${P}/hold_reason: expected "duplicate", actual "disputed"`,
        '  output never stated: "duplicate"',
        "state changes over the start (agent, 2):",
        `  ~ ${P}/hold_reason: null → "disputed"`,
        `  ~ ${P}/status: "approved" → "on_hold"`,
        "state changes over the start (gold calls, attempt att_gold):",
        `  ~ ${P}/hold_reason: null → "duplicate"`,
        `  ~ ${P}/status: "approved" → "on_hold"</failure>`,
      ].join("\n"),
    );
  });
});
