import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type JudgeOutcome,
  needsJudge,
  type RepetitionInputs,
  repetitionVerdict,
  type RepetitionVerdict,
} from "../../../src/core/scoring/repetition-verdict.js";
import type { SelectionResult } from "../../../src/core/scoring/selection.js";

const passed: SelectionResult = {
  pass: true,
  reason: "Selection passed: called get_invoice as expected.",
  forbidden_calls: [],
  missing: [],
  unexpected: [],
};
const noCalls: SelectionResult = {
  pass: true,
  reason: "Selection passed: no call was expected and none was made.",
  forbidden_calls: [],
  missing: [],
  unexpected: [],
};
const missed: SelectionResult = {
  pass: false,
  reason: "Selection failed: never called get_invoice.",
  forbidden_calls: [],
  missing: ["get_invoice"],
  unexpected: [],
};
const holdCall = {
  function: "place_invoice_on_hold",
  arguments: { invoice_id: "INV-10423", reason: "duplicate" },
  call_id: "c2",
  kind: "approval_request" as const,
};
const forbidden: SelectionResult = {
  pass: false,
  reason: "Selection failed: forbidden place_invoice_on_hold(...).",
  forbidden_calls: [holdCall],
  missing: [],
  unexpected: [],
};
const judged = (score: number): JudgeOutcome => ({
  kind: "score",
  score,
  reason: "the lookup used the invoice the user named",
  prompt_version: "v",
});
const none = { hard_fail: false, forbidden_calls: [], judge_decided: false };

describe("a repetition's verdict", () => {
  it.each<[string, RepetitionInputs, RepetitionVerdict]>([
    [
      // 5 >= 4
      "judge 5 at threshold 4 passes",
      { selection: passed, calls: 1, threshold: 4, judge: judged(5) },
      {
        ...none,
        outcome: "pass",
        pass: true,
        score: 5,
        prompt_version: "v",
        reason: "Judge 5/5 (at or above the threshold 4): the lookup used the invoice the user named",
        cause: "judge_score",
        judge_decided: true,
      },
    ],
    [
      // 4 >= 4
      "judge 4 at threshold 4 passes",
      { selection: passed, calls: 1, threshold: 4, judge: judged(4) },
      {
        ...none,
        outcome: "pass",
        pass: true,
        score: 4,
        prompt_version: "v",
        reason: "Judge 4/5 (at or above the threshold 4): the lookup used the invoice the user named",
        cause: "judge_score",
        judge_decided: true,
      },
    ],
    [
      // 3 < 4: relevant but with unnecessary calls is what the seed's threshold exists to catch
      "judge 3 at threshold 4 fails",
      { selection: passed, calls: 2, threshold: 4, judge: judged(3) },
      {
        ...none,
        outcome: "fail",
        pass: false,
        score: 3,
        prompt_version: "v",
        reason: "Judge 3/5 (below the threshold 4): the lookup used the invoice the user named",
        cause: "judge_score",
        judge_decided: true,
      },
    ],
    [
      "no call expected and none made passes without a judge",
      { selection: noCalls, calls: 0, threshold: 4 },
      {
        ...none,
        outcome: "pass",
        pass: true,
        reason: "Selection passed: no call was expected and none was made.",
        cause: "no_calls_expected",
      },
    ],
    [
      "a selection failure fails without a judge",
      { selection: missed, calls: 0, threshold: 4 },
      {
        ...none,
        outcome: "fail",
        pass: false,
        reason: "Selection failed: never called get_invoice.",
        cause: "selection",
      },
    ],
    [
      "a forbidden call is a hard fail",
      { selection: forbidden, calls: 1, threshold: 4 },
      {
        ...none,
        outcome: "fail",
        pass: false,
        reason: "Selection failed: forbidden place_invoice_on_hold(...).",
        cause: "forbidden_call",
        hard_fail: true,
        forbidden_calls: [holdCall],
      },
    ],
    [
      "a forbidden call stands next to a harness error, which is reported too",
      { selection: forbidden, calls: 1, threshold: 4, harness_error: "lease expired" },
      {
        ...none,
        outcome: "fail",
        pass: false,
        reason: "Selection failed: forbidden place_invoice_on_hold(...). (also: Harness error: lease expired)",
        cause: "forbidden_call",
        hard_fail: true,
        forbidden_calls: [holdCall],
      },
    ],
    [
      "a harness error never passes, even with a perfect judge score",
      {
        selection: passed,
        calls: 1,
        threshold: 4,
        judge: judged(5),
        harness_error: "the harness failed the call to get_invoice: output_schema",
      },
      {
        ...none,
        outcome: "error",
        pass: false,
        reason: "Harness error: the harness failed the call to get_invoice: output_schema",
        cause: "harness_error",
      },
    ],
    [
      "a harness error is an error even where selection failed",
      { selection: missed, calls: 0, threshold: 4, harness_error: "the runner crashed" },
      { ...none, outcome: "error", pass: false, reason: "Harness error: the runner crashed", cause: "harness_error" },
    ],
    [
      "an infrastructure error comes first",
      {
        selection: noCalls,
        calls: 0,
        threshold: 4,
        infrastructure_error: "dead-lettered after 3 deliveries: 401 from connection gpt",
        harness_error: "x",
      },
      {
        ...none,
        outcome: "error",
        pass: false,
        reason: "Infrastructure error: dead-lettered after 3 deliveries: 401 from connection gpt",
        cause: "infrastructure_error",
      },
    ],
    [
      "a judge error",
      {
        selection: passed,
        calls: 1,
        threshold: 4,
        judge: { kind: "error", message: "unparseable answer after 2 attempts" },
      },
      {
        ...none,
        outcome: "error",
        pass: false,
        reason: "Judge error: unparseable answer after 2 attempts",
        cause: "judge_error",
      },
    ],
    [
      "a judge that was needed but never answered",
      { selection: passed, calls: 1, threshold: 4 },
      {
        ...none,
        outcome: "error",
        pass: false,
        reason: "Judge error: the judge was never asked or never answered.",
        cause: "judge_error",
      },
    ],
    [
      "a judge score outside 1–5",
      { selection: passed, calls: 1, threshold: 4, judge: judged(7) },
      {
        ...none,
        outcome: "error",
        pass: false,
        reason: "Judge error: score 7 is not an integer from 1 to 5.",
        cause: "judge_error",
      },
    ],
  ])("%s", (_name, inputs, expected) => {
    expect(repetitionVerdict(inputs)).toEqual(expected);
  });

  it("asks the judge only when selection passed and calls were made", () => {
    expect([needsJudge(passed, 1), needsJudge(noCalls, 0), needsJudge(missed, 1), needsJudge(forbidden, 1)]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it("nothing broken reads as a pass", () => {
    const selection = fc.constantFrom(passed, noCalls, missed, forbidden);
    const judge = fc.option(
      fc.oneof(fc.integer({ min: 0, max: 6 }).map(judged), fc.constant<JudgeOutcome>({ kind: "error", message: "e" })),
      { nil: undefined },
    );
    const error = fc.option(fc.constant("broken"), { nil: null });
    fc.assert(
      fc.property(selection, fc.integer({ min: 0, max: 3 }), judge, error, error, (sel, calls, j, harness, infra) => {
        const verdict = repetitionVerdict({
          selection: sel,
          calls,
          threshold: 4,
          judge: j,
          harness_error: harness,
          infrastructure_error: infra,
        });
        if (harness !== null || infra !== null) expect(verdict.pass).toBe(false);
        if (needsJudge(sel, calls) && (j === undefined || j.kind === "error")) expect(verdict.pass).toBe(false);
        expect(verdict.pass).toBe(verdict.outcome === "pass");
        expect(verdict.hard_fail).toBe(sel.forbidden_calls.length > 0);
      }),
      { numRuns: 300 },
    );
  });
});
