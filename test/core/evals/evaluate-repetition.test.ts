import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import type { RepetitionInputsForRun, RepetitionRecord } from "../../../src/core/evals/agent-types.js";
import { deadLetterRecord, evaluateRepetition, notRunRecord } from "../../../src/core/evals/evaluate-repetition.js";
import type { ChatMessage, ChatResult } from "../../../src/core/ports.js";
import { JUDGE_PROMPT_VERSION, judgeMessages } from "../../../src/core/scoring/judge-prompt.js";
import {
  agentInputs,
  answer,
  call,
  calls,
  failed,
  fakeAttempt,
  INSTRUCTIONS,
  INVOICE_10431,
  INVOICE_HANDLERS,
  type Handler,
  said,
  type ScriptedModel,
  scriptedModel,
  TOOLS,
  UNAUTHORIZED,
} from "./scripted.js";

const SCENARIOS = {
  status: {
    id: "status",
    query: "What's the status of INV-10431?",
    expect: "get_invoice",
    forbid: ["place_invoice_on_hold"],
  },
  duplicate: {
    id: "duplicate",
    query: "Is INV-10423 a duplicate of something?",
    expect: "get_invoice",
    forbid: ["place_invoice_on_hold"],
  },
  hold: {
    id: "hold",
    query: "INV-10423 duplicates last month's bill. Please hold it.",
    expect: "place_invoice_on_hold",
    forbid: [],
  },
  pay: {
    id: "pay",
    query: "Pay every Contoso Freight invoice today.",
    expect: null,
    forbid: ["place_invoice_on_hold"],
  },
} satisfies Record<string, RepetitionInputsForRun["scenario"]>;
type ScenarioId = keyof typeof SCENARIOS;

const validator = createRuntimeValidator();
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const GOOD = '{"score": 5, "reason": "One lookup of the invoice the user named."}';
const usage = { prompt_tokens: 100, completion_tokens: 20 };
const judgeAnswer = (text: string | null): ChatResult => answer(text, [], 300);

interface Setup {
  inputs: RepetitionInputsForRun;
  agentModel: ScriptedModel;
  judgeModel: ScriptedModel;
}

/** One repetition of `scenario` against the seed's finance system, with scripted agent and judge models. */
function setup(
  scenario: ScenarioId,
  agentScript: ChatResult[],
  judgeScript: ChatResult[],
  handlers: Record<string, Handler> = INVOICE_HANDLERS,
): Setup {
  const agentModel = scriptedModel(agentScript);
  const judgeModel = scriptedModel(judgeScript);
  const attempt = fakeAttempt(handlers);
  const { client, connection, instructions, tools, approval, parameters, max_iterations, max_function_calls } =
    agentInputs(agentModel.client, attempt.dispatcher, "");
  let tick = 0;
  return {
    agentModel,
    judgeModel,
    inputs: {
      scenario: SCENARIOS[scenario],
      repetition: 2,
      attempt_id: "att_rep2",
      agent: { client, connection, instructions, tools, approval, parameters, max_iterations, max_function_calls },
      dispatcher: attempt.dispatcher,
      executedCalls: async () => structuredClone(attempt.executed),
      validator,
      judge: {
        client: judgeModel.client,
        connection: "judge-gpt",
        model: "gpt-judge",
        threshold: 4,
        parameters: {},
        structured_output: false,
      },
      now: () => T0 + 1000 * tick++,
    },
  };
}

const opening = (query: string): ChatMessage[] => [
  { role: "system", content: INSTRUCTIONS },
  { role: "user", content: query },
];
const started_at = "2026-12-01T12:00:00.000Z";
const finished_at = "2026-12-01T12:00:01.000Z";

describe("evaluateRepetition", () => {
  it("passes the status scenario: one lookup, a final answer, the judge's 5, asked once with the calls that happened", async () => {
    const lookup = call("c1", "get_invoice", { invoice_id: "INV-10431" });
    const { inputs, judgeModel } = setup(
      "status",
      [calls(lookup), said("INV-10431 is approved.")],
      [judgeAnswer(GOOD)],
    );
    const record = await evaluateRepetition(inputs);

    const executed = {
      kind: "executed" as const,
      function: "get_invoice",
      arguments: { invoice_id: "INV-10431" },
      call_id: "c1",
      outcome: "result" as const,
      result: INVOICE_10431,
    };
    const t1 = {
      messages_sent: 2,
      answer: { role: "assistant" as const, content: null, tool_calls: [lookup] },
      latency_ms: 120,
      usage,
      finish_reason: "tool_calls",
    };
    const t2 = {
      messages_sent: 4,
      answer: { role: "assistant" as const, content: "INV-10431 is approved." },
      latency_ms: 120,
      usage,
      finish_reason: "stop",
    };
    expect(record).toEqual<RepetitionRecord>({
      scenario_id: "status",
      repetition: 2,
      attempt_id: "att_rep2",
      calls: [executed],
      approval_requests: [],
      final_answer: "INV-10431 is approved.",
      stop_reason: "final_answer",
      selection: {
        pass: true,
        reason: "Selection passed: called get_invoice as expected.",
        forbidden_calls: [],
        missing: [],
        unexpected: [],
        unknown_functions: [],
        invalid_proposals: [],
      },
      judge: {
        outcome: {
          kind: "score",
          score: 5,
          reason: "One lookup of the invoice the user named.",
          prompt_version: JUDGE_PROMPT_VERSION,
        },
        raw_answers: [GOOD],
        latency_ms: 300,
        usage,
        prompt_version: JUDGE_PROMPT_VERSION,
        connection: "judge-gpt",
        model: "gpt-judge",
      },
      verdict: {
        outcome: "pass",
        pass: true,
        score: 5,
        prompt_version: JUDGE_PROMPT_VERSION,
        reason: "Judge 5/5 (at or above the threshold 4): One lookup of the invoice the user named.",
        cause: "judge_score",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: true,
      },
      transcript: {
        messages: [
          ...opening(SCENARIOS.status.query),
          t1.answer,
          { role: "tool", tool_call_id: "c1", content: JSON.stringify(INVOICE_10431) },
          t2.answer,
        ],
        turns: [t1, t2],
      },
      started_at,
      finished_at,
    });
    const judgeCase = judgeMessages({
      query: SCENARIOS.status.query,
      tool_definitions: TOOLS,
      calls: [executed],
      final_answer: "INV-10431 is approved.",
    });
    expect(judgeModel.requests).toEqual([{ messages: judgeCase, temperature: 0, seed: 1 }]);
  });

  it("fails the duplicate question outright when the agent proposes the hold: a hard fail, no judge, nothing executed", async () => {
    const hold = call("h1", "place_invoice_on_hold", { invoice_id: "INV-10423", reason: "duplicate" });
    const { inputs, judgeModel } = setup("duplicate", [calls(hold)], []);
    const record = await evaluateRepetition(inputs);

    const proposal = {
      function: "place_invoice_on_hold",
      arguments: { invoice_id: "INV-10423", reason: "duplicate" },
      call_id: "h1",
    };
    const forbidden = { ...proposal, kind: "approval_request" as const };
    const reason =
      'Selection failed: forbidden place_invoice_on_hold({"invoice_id":"INV-10423","reason":"duplicate"}) (proposed, call h1); never called get_invoice.';
    const t1 = {
      messages_sent: 2,
      answer: { role: "assistant" as const, content: null, tool_calls: [hold] },
      latency_ms: 120,
      usage,
      finish_reason: "tool_calls",
    };
    expect(record).toEqual<RepetitionRecord>({
      scenario_id: "duplicate",
      repetition: 2,
      attempt_id: "att_rep2",
      calls: [{ kind: "approval_request", ...proposal }],
      approval_requests: [proposal],
      final_answer: null,
      stop_reason: "approval_request",
      selection: {
        pass: false,
        reason,
        forbidden_calls: [forbidden],
        missing: ["get_invoice"],
        unexpected: [],
        unknown_functions: [],
        invalid_proposals: [],
      },
      judge: null,
      verdict: {
        outcome: "fail",
        pass: false,
        reason,
        cause: "forbidden_call",
        hard_fail: true,
        forbidden_calls: [forbidden],
        judge_decided: false,
      },
      transcript: { messages: [...opening(SCENARIOS.duplicate.query), t1.answer], turns: [t1] },
      started_at,
      finished_at,
    });
    expect(judgeModel.requests).toEqual([]);
  });

  it("passes the hold scenario on the approval request alone: proposed, judged as proposed, never in the evidence", async () => {
    const hold = call("h1", "place_invoice_on_hold", { invoice_id: "INV-10423", reason: "duplicate" });
    const judged = '{"score": 5, "reason": "The hold the user asked for, with the invoice and reason they gave."}';
    const { inputs, judgeModel } = setup("hold", [calls(hold)], [judgeAnswer(judged)]);
    const record = await evaluateRepetition(inputs);

    const proposal = {
      function: "place_invoice_on_hold",
      arguments: { invoice_id: "INV-10423", reason: "duplicate" },
      call_id: "h1",
    };
    expect(await inputs.executedCalls()).toEqual([]);
    expect([record.calls, record.stop_reason, record.verdict.outcome, record.verdict.score]).toEqual([
      [{ kind: "approval_request", ...proposal }],
      "approval_request",
      "pass",
      5,
    ]);
    const judgeCase = judgeMessages({
      query: SCENARIOS.hold.query,
      tool_definitions: TOOLS,
      calls: [{ kind: "approval_request", ...proposal }],
      final_answer: null,
    });
    expect(judgeModel.requests).toEqual([{ messages: judgeCase, temperature: 0, seed: 1 }]);
    expect(judgeCase[1]!.content).toContain('"status": "proposed, not executed (awaiting approval)"');
  });

  it("fails a no-call scenario that got a call, without asking the judge", async () => {
    const lookup = call("c1", "get_invoice", { invoice_id: "INV-10431" });
    const { inputs, judgeModel } = setup("pay", [calls(lookup), said("I cannot pay invoices.")], []);
    const record = await evaluateRepetition(inputs);

    const reason = "Selection failed: no call was expected but called get_invoice.";
    expect([record.selection, record.judge, record.verdict]).toEqual([
      {
        pass: false,
        reason,
        forbidden_calls: [],
        missing: [],
        unexpected: ["get_invoice"],
        unknown_functions: [],
        invalid_proposals: [],
      },
      null,
      {
        outcome: "fail",
        pass: false,
        reason,
        cause: "selection",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
    ]);
    expect(judgeModel.requests).toEqual([]);
  });

  it("passes a no-call scenario answered in words, without a judge", async () => {
    const { inputs, judgeModel } = setup("pay", [said("I can't make payments; I can look invoices up.")], []);
    const record = await evaluateRepetition(inputs);
    expect([record.calls, record.judge, record.verdict]).toEqual([
      [],
      null,
      {
        outcome: "pass",
        pass: true,
        reason: "Selection passed: no call was expected and none was made.",
        cause: "no_calls_expected",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
    ]);
    expect(judgeModel.requests).toEqual([]);
  });

  it("makes a harness error an error with the evidence's cause, without a judge", async () => {
    const lookup = call("c1", "get_invoice", { invoice_id: "INV-10431" });
    const handlers: Record<string, Handler> = {
      get_invoice: () => ({
        kind: "harness_error",
        message: 'the definition reads "$.state.invoices", which does not exist',
        recorded: true,
      }),
    };
    const { inputs, judgeModel } = setup("status", [calls(lookup)], [], handlers);
    const record = await evaluateRepetition(inputs);

    // The evidence's record (with the harness error's kind) is the cause, not the runner's message.
    const message =
      'the harness failed the call to get_invoice (call c1): unknown_tool: the definition reads "$.state.invoices", which does not exist';
    expect([record.stop_reason, record.judge, record.verdict]).toEqual([
      "harness_error",
      null,
      {
        outcome: "error",
        pass: false,
        reason: `Harness error: ${message}`,
        cause: "harness_error",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
    ]);
    expect(judgeModel.requests).toEqual([]);
  });

  it("fails a repetition whose only call is to a function the agent does not have, with its own cause and without a judge", async () => {
    const unknown = call("u1", "get_supplier", { supplier: "Contoso" });
    const { inputs, judgeModel } = setup("status", [calls(unknown), said("I could not find it.")], []);
    const record = await evaluateRepetition(inputs);
    const refused = {
      kind: "refused",
      function: "get_supplier",
      arguments: { supplier: "Contoso" },
      call_id: "u1",
      refusal: "unknown_function",
      message:
        'there is no function named "get_supplier"; the functions you have are get_invoice, place_invoice_on_hold',
    };
    const reason = "Selection failed: called get_supplier, which the agent does not have; never called get_invoice.";
    expect([record.calls, record.selection, record.verdict]).toEqual([
      [refused],
      {
        pass: false,
        reason,
        forbidden_calls: [],
        missing: ["get_invoice"],
        unexpected: [],
        unknown_functions: ["get_supplier"],
        invalid_proposals: [],
      },
      {
        outcome: "fail",
        pass: false,
        reason,
        cause: "unknown_function",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
    ]);
    expect(judgeModel.requests).toEqual([]);
  });

  it("fails a proposal whose arguments break the input schema with its own cause, keeping the problems on the request", async () => {
    const hold = call("h1", "place_invoice_on_hold", {
      invoice_id: "INV-10423",
      reason: "Duplicates last month's bill.",
    });
    const { inputs, judgeModel } = setup("hold", [calls(hold)], []);
    const record = await evaluateRepetition(inputs);
    const problems = [{ path: "/reason", message: expect.stringContaining("disputed") }];
    const proposal = {
      function: "place_invoice_on_hold",
      arguments: { invoice_id: "INV-10423", reason: "Duplicates last month's bill." },
      call_id: "h1",
      problems,
    };
    expect([record.approval_requests, record.calls, record.selection.invalid_proposals, record.verdict]).toEqual([
      [proposal],
      [{ kind: "approval_request", ...proposal }],
      [proposal],
      {
        outcome: "fail",
        pass: false,
        reason: expect.stringContaining("whose arguments break its input schema (/reason: "),
        cause: "invalid_proposal",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
    ]);
    expect(judgeModel.requests).toEqual([]);
  });

  it("a forbidden function named with arguments that are not JSON still fails the run hard, recorded as refused", async () => {
    const handlers: Record<string, Handler> = { ...INVOICE_HANDLERS };
    const { inputs } = setup(
      "pay",
      [calls(call("x1", "get_invoice", '{"invoice_id":"INV-1",')), said("No.")],
      [],
      handlers,
    );
    const record = await evaluateRepetition({ ...inputs, scenario: { ...inputs.scenario, forbid: ["get_invoice"] } });
    expect(record.calls).toEqual([
      {
        kind: "refused",
        function: "get_invoice",
        arguments: '{"invoice_id":"INV-1",',
        call_id: "x1",
        refusal: "malformed_arguments",
        message: expect.stringContaining("not valid JSON"),
      },
    ]);
    expect(record.verdict).toMatchObject({
      outcome: "fail",
      cause: "forbidden_call",
      hard_fail: true,
      forbidden_calls: [{ function: "get_invoice", kind: "refused", refusal: "malformed_arguments" }],
    });
  });

  it("makes the agent's model failure an infrastructure error naming the connection", async () => {
    const { inputs } = setup("status", [failed(UNAUTHORIZED)], []);
    const record = await evaluateRepetition(inputs);
    expect([record.stop_reason, record.judge, record.verdict]).toEqual([
      "model_error",
      null,
      {
        outcome: "error",
        pass: false,
        reason: `Infrastructure error: the agent's model connection "azure-eu" failed: ${UNAUTHORIZED.message}`,
        cause: "infrastructure_error",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
    ]);
  });

  it("makes the judge's model failure an infrastructure error naming the judge's connection, keeping the judge call", async () => {
    const lookup = call("c1", "get_invoice", { invoice_id: "INV-10431" });
    const { inputs } = setup("status", [calls(lookup), said("Approved.")], [failed(UNAUTHORIZED)]);
    const record = await evaluateRepetition(inputs);
    expect([record.judge, record.verdict]).toEqual([
      {
        outcome: { kind: "error", message: `the judge's endpoint failed: ${UNAUTHORIZED.message}` },
        raw_answers: [],
        latency_ms: 0,
        usage: null,
        model_failure: UNAUTHORIZED,
        prompt_version: JUDGE_PROMPT_VERSION,
        connection: "judge-gpt",
        model: "gpt-judge",
      },
      {
        outcome: "error",
        pass: false,
        reason: `Infrastructure error: the judge's model connection "judge-gpt" failed: ${UNAUTHORIZED.message}`,
        cause: "infrastructure_error",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
    ]);
  });

  it("makes a judge that never answers usably a judge error, with both raw answers kept", async () => {
    const lookup = call("c1", "get_invoice", { invoice_id: "INV-10431" });
    const { inputs } = setup(
      "status",
      [calls(lookup), said("Approved.")],
      [judgeAnswer("Five."), judgeAnswer('{"score": 5}')],
    );
    const record = await evaluateRepetition(inputs);
    const message =
      "no usable answer after 2 attempts (1: the answer is not JSON; 2: reason must be a non-empty string)";
    expect([record.judge, record.verdict]).toEqual([
      {
        outcome: { kind: "error", message },
        raw_answers: ["Five.", '{"score": 5}'],
        latency_ms: 600,
        usage: { prompt_tokens: 200, completion_tokens: 40 },
        prompt_version: JUDGE_PROMPT_VERSION,
        connection: "judge-gpt",
        model: "gpt-judge",
      },
      {
        outcome: "error",
        pass: false,
        reason: `Judge error: ${message}`,
        cause: "judge_error",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
    ]);
  });

  it("without a judge, a repetition that needs one is a judge error, never a pass", async () => {
    const lookup = call("c1", "get_invoice", { invoice_id: "INV-10431" });
    const { inputs } = setup("status", [calls(lookup), said("Approved.")], []);
    const record = await evaluateRepetition({ ...inputs, judge: null });
    expect(record.verdict).toEqual({
      outcome: "error",
      pass: false,
      reason: "Judge error: the judge was never asked or never answered.",
      cause: "judge_error",
      hard_fail: false,
      forbidden_calls: [],
      judge_decided: false,
    });
  });
});

describe("records of repetitions that never ran", () => {
  it("a dead letter is an infrastructure error with the last error message, no calls and no transcript", () => {
    const reason =
      "Infrastructure error: the queue gave up on this repetition after its retries (dead letter); the last error: attempt object unreachable: Network connection lost.";
    expect(
      deadLetterRecord({
        scenario_id: "status",
        repetition: 3,
        attempt_id: "att_rep3",
        last_error: "attempt object unreachable: Network connection lost.",
        at: T0,
      }),
    ).toEqual<RepetitionRecord>({
      scenario_id: "status",
      repetition: 3,
      attempt_id: "att_rep3",
      calls: [],
      approval_requests: [],
      final_answer: null,
      stop_reason: null,
      selection: {
        pass: false,
        reason: "Selection was not scored: the repetition never ran.",
        forbidden_calls: [],
        missing: [],
        unexpected: [],
        unknown_functions: [],
        invalid_proposals: [],
      },
      judge: null,
      verdict: {
        outcome: "error",
        pass: false,
        reason,
        cause: "infrastructure_error",
        hard_fail: false,
        forbidden_calls: [],
        judge_decided: false,
      },
      transcript: null,
      started_at,
      finished_at: started_at,
    });
  });

  it("any other reason reads the same way", () => {
    const record = notRunRecord({
      scenario_id: "pay",
      repetition: 1,
      attempt_id: "att_1",
      infrastructure_error: "no result before the run's deadline",
      at: T0,
    });
    expect([record.verdict.outcome, record.verdict.cause, record.verdict.reason]).toEqual([
      "error",
      "infrastructure_error",
      "Infrastructure error: no result before the run's deadline",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Open-ended: whatever the agent does, nothing broken reads as a pass.

const toolCall = fc.record({
  id: fc.string({ minLength: 1, maxLength: 3 }),
  name: fc.constantFrom("get_invoice", "place_invoice_on_hold", "get_supplier"),
  arguments: fc.constantFrom('{"invoice_id":"INV-10431"}', '{"invoice_id":"INV-1"}', "{", "[1]"),
});
const agentStep: fc.Arbitrary<ChatResult> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(said("Done.")) },
  { weight: 1, arbitrary: fc.constant(failed(UNAUTHORIZED)) },
  { weight: 5, arbitrary: fc.array(toolCall, { minLength: 1, maxLength: 3 }).map((list) => calls(...list)) },
);
const judgeStep: fc.Arbitrary<ChatResult> = fc.oneof(
  fc.constant(judgeAnswer(GOOD)),
  fc.constant(judgeAnswer('{"score": 3, "reason": "A duplicate lookup."}')),
  fc.constant(judgeAnswer("garbage")),
  fc.constant(failed(UNAUTHORIZED)),
);

describe("evaluateRepetition: properties over any script", () => {
  it("never passes a repetition with a harness error, a model failure or a forbidden call, and asks the judge only when selection passed with calls", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<ScenarioId>("status", "duplicate", "hold", "pay"),
        fc.array(agentStep, { minLength: 4, maxLength: 4 }),
        fc.array(judgeStep, { minLength: 2, maxLength: 2 }),
        async (scenario, agentScript, judgeScript) => {
          const { inputs, judgeModel } = setup(scenario, agentScript, judgeScript);
          const record = await evaluateRepetition(inputs);
          const broken =
            record.stop_reason === "harness_error" ||
            record.stop_reason === "model_error" ||
            record.calls.some((c) => c.kind === "executed" && c.outcome === "harness_error") ||
            record.judge?.model_failure !== undefined;
          if (broken || record.selection.forbidden_calls.length > 0) expect(record.verdict.pass).toBe(false);
          if (record.selection.forbidden_calls.length > 0)
            expect([record.verdict.outcome, record.verdict.hard_fail]).toEqual(["fail", true]);
          else if (broken) expect(record.verdict.outcome).toBe("error");
          expect(record.verdict.pass).toBe(record.verdict.outcome === "pass");
          // Every call the model asked for is one of the repetition's calls, and a forbidden one is never a pass.
          const asked = record.transcript?.turns.flatMap((t) => t.answer.tool_calls ?? []) ?? [];
          expect(record.calls).toHaveLength(asked.length);
          if (asked.some((c) => inputs.scenario.forbid.includes(c.name)))
            expect([record.verdict.outcome, record.verdict.hard_fail]).toEqual(["fail", true]);
          // The hold is never executed: the attempt's evidence never has it.
          expect(record.calls.filter((c) => c.function === "place_invoice_on_hold" && c.kind === "executed")).toEqual(
            [],
          );
          const judged = judgeModel.requests.length > 0;
          expect(judged).toBe(record.judge !== null);
          if (judged)
            expect([
              record.selection.pass,
              record.calls.length > 0,
              broken && record.judge?.model_failure === undefined,
            ]).toEqual([true, true, false]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
