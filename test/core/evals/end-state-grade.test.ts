/**
 * A repetition graded by its outcome, through evaluateRepetition with scripted models and stateful
 * in-memory attempts: the gold calls replayed on a fresh attempt give the expected state, the
 * verdict names each differing path, a gold call that does not replay is a harness error, required
 * outputs are matched in the answers, and the judge is never asked about such a scenario.
 */
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import type { RepetitionInputsForRun } from "../../../src/core/evals/agent-types.js";
import type { EndStateInputs, EndStatePort } from "../../../src/core/evals/end-state-grade.js";
import { evaluateRepetition } from "../../../src/core/evals/evaluate-repetition.js";
import type { JsonObject } from "../../../src/core/json.js";
import type { ChatResult } from "../../../src/core/ports.js";
import { agentInputs, call, calls, fakeAttempt, type Handler, said, scriptedModel } from "./scripted.js";

const START: JsonObject = {
  invoices: {
    invoices: {
      "INV-10423": { status: "approved", hold_reason: null },
      "INV-10431": { status: "approved", hold_reason: null },
    },
  },
};

/** The finance system with state: holds write the invoice's status and reason; a bad reason is a tool input error. */
function world() {
  const state = structuredClone(START);
  const invoices = (state.invoices as JsonObject).invoices as JsonObject;
  const handlers: Record<string, Handler> = {
    get_invoice: (args) => ({ kind: "result", result: invoices[String(args.invoice_id)] ?? null }),
    place_invoice_on_hold: (args) => {
      const id = String(args.invoice_id);
      if (!["disputed", "duplicate", "awaiting_po"].includes(String(args.reason)))
        return {
          kind: "tool_input_error",
          message: "reason must be one of disputed, duplicate, awaiting_po",
          details: [],
        };
      const invoice = invoices[id] as JsonObject | undefined;
      if (!invoice) return { kind: "tool_input_error", message: `no invoice ${id}`, details: [] };
      invoice.status = "on_hold";
      invoice.hold_reason = args.reason ?? null;
      return { kind: "result", result: { invoice_id: id, status: "on_hold" } };
    },
  };
  return { state, attempt: fakeAttempt(handlers) };
}

const HOLD = { invoice_id: "INV-10423", reason: "duplicate" };
const validator = createRuntimeValidator();

function repetition(
  scenario: Partial<RepetitionInputsForRun["scenario"]>,
  script: ChatResult[],
  judgeScript: ChatResult[] = [],
) {
  const agent = world();
  const golds: string[] = [];
  const model = scriptedModel(script);
  const judge = scriptedModel(judgeScript);
  const port: EndStatePort = {
    async states() {
      return { ok: true, initial: structuredClone(START), final: structuredClone(agent.state) };
    },
    async goldAttempt() {
      const gold = world();
      const id = `att_gold${golds.length + 1}`;
      golds.push(id);
      return { attempt_id: id, dispatcher: gold.attempt.dispatcher, state: async () => structuredClone(gold.state) };
    },
  };
  const { client, connection, instructions, tools, parameters, max_iterations, max_function_calls } = agentInputs(
    model.client,
    agent.attempt.dispatcher,
    "",
  );
  const inputs: RepetitionInputsForRun & EndStateInputs = {
    scenario: { id: "hold", query: "INV-10423 is a duplicate. Hold it.", expect: null, forbid: [], ...scenario },
    repetition: 1,
    attempt_id: "att_rep1",
    agent: {
      client,
      connection,
      instructions,
      tools,
      approval: { get_invoice: "never_require", place_invoice_on_hold: "never_require" },
      parameters,
      max_iterations,
      max_function_calls,
    },
    dispatcher: agent.attempt.dispatcher,
    executedCalls: async () => structuredClone(agent.attempt.executed),
    validator,
    judge: {
      client: judge.client,
      connection: "judge",
      model: "j",
      threshold: 4,
      parameters: {},
      structured_output: false,
    },
    now: () => 0,
    endState: port,
  };
  return { inputs, judge, golds };
}

const goldHold = { gold_calls: [{ function: "place_invoice_on_hold", arguments: HOLD }] };

describe("a scenario graded by its end state", () => {
  it("passes an agent that makes the gold write, without asking the judge", async () => {
    const { inputs, judge } = repetition({ expect: "place_invoice_on_hold", end_state: goldHold }, [
      calls(call("c1", "place_invoice_on_hold", HOLD)),
      said("INV-10423 is on hold as a duplicate."),
    ]);
    const record = await evaluateRepetition(inputs);
    expect(record.verdict).toEqual({
      outcome: "pass",
      pass: true,
      reason: "End state matches the gold calls' state.",
      cause: "end_state",
      hard_fail: false,
      forbidden_calls: [],
      judge_decided: false,
    });
    expect(record.end_state).toEqual({
      pass: true,
      reason: "End state matches the gold calls' state.",
      mismatches: [],
      mismatch_count: 0,
      changes: [
        { path: "/invoices/invoices/INV-10423/hold_reason", before: null, after: "duplicate" },
        { path: "/invoices/invoices/INV-10423/status", before: "approved", after: "on_hold" },
      ],
      change_count: 2,
      expected_changes: [
        { path: "/invoices/invoices/INV-10423/hold_reason", before: null, after: "duplicate" },
        { path: "/invoices/invoices/INV-10423/status", before: "approved", after: "on_hold" },
      ],
      gold_attempt_id: "att_gold1",
    });
    expect(record.judge).toBeNull();
    expect(judge.requests).toEqual([]);
  });

  it("fails an agent that skips the write, naming each path it left unchanged", async () => {
    const { inputs } = repetition({ expect: "get_invoice", end_state: goldHold }, [
      calls(call("c1", "get_invoice", { invoice_id: "INV-10423" })),
      said("INV-10423 is approved."),
    ]);
    const record = await evaluateRepetition(inputs);
    expect(record.verdict).toMatchObject({
      outcome: "fail",
      cause: "end_state",
      reason:
        'End state differs at 2 paths: /invoices/invoices/INV-10423/hold_reason: expected "duplicate", got null; /invoices/invoices/INV-10423/status: expected "on_hold", got "approved".',
    });
    expect(record.end_state?.mismatches).toEqual([
      { path: "/invoices/invoices/INV-10423/hold_reason", expected: "duplicate", actual: null },
      { path: "/invoices/invoices/INV-10423/status", expected: "on_hold", actual: "approved" },
    ]);
    expect(record.end_state?.changes).toEqual([]);
  });

  it("fails an agent that changes one argument, naming that one path", async () => {
    const { inputs } = repetition({ expect: "place_invoice_on_hold", end_state: goldHold }, [
      calls(call("c1", "place_invoice_on_hold", { ...HOLD, reason: "disputed" })),
      said("Done."),
    ]);
    const record = await evaluateRepetition(inputs);
    expect(record.verdict).toMatchObject({
      outcome: "fail",
      cause: "end_state",
      reason:
        'End state differs at 1 path: /invoices/invoices/INV-10423/hold_reason: expected "duplicate", got "disputed".',
    });
  });

  it("says what the end state showed beside a selection failure", async () => {
    const { inputs } = repetition({ expect: "place_invoice_on_hold", end_state: goldHold }, [said("I cannot.")]);
    const record = await evaluateRepetition(inputs);
    expect(record.verdict).toMatchObject({ outcome: "fail", cause: "selection" });
    expect(record.verdict.reason).toMatch(
      /^Selection failed: never called place_invoice_on_hold\.? End state differs at 2 paths: /,
    );
  });

  it("makes the repetition an error, not the agent's fail, when a gold call does not replay", async () => {
    const { inputs } = repetition(
      {
        expect: "place_invoice_on_hold",
        end_state: { gold_calls: [{ function: "place_invoice_on_hold", arguments: { ...HOLD, reason: "lost" } }] },
      },
      [calls(call("c1", "place_invoice_on_hold", HOLD)), said("Done.")],
    );
    const record = await evaluateRepetition(inputs);
    expect(record.verdict).toMatchObject({
      outcome: "error",
      cause: "harness_error",
      reason:
        'Harness error: gold call 1 of 1, place_invoice_on_hold({"invoice_id":"INV-10423","reason":"lost"}), did not replay on attempt att_gold1: a tool input error: reason must be one of disputed, duplicate, awaiting_po; the expected end state cannot be built (fix the scenario\'s gold calls)',
    });
    expect(record.end_state).toBeNull();
  });

  it("still fails the run outright on a forbidden call", async () => {
    const { inputs } = repetition({ expect: null, forbid: ["place_invoice_on_hold"], end_state: goldHold }, [
      calls(call("c1", "place_invoice_on_hold", HOLD)),
      said("Done."),
    ]);
    const record = await evaluateRepetition(inputs);
    expect(record.verdict).toMatchObject({ outcome: "fail", cause: "forbidden_call", hard_fail: true });
  });

  it("checks assertions on the agent's final state", async () => {
    const { inputs, golds } = repetition(
      {
        expect: "place_invoice_on_hold",
        end_state: {
          assert: [
            { path: "/invoices/invoices/INV-10423/status", equals: "on_hold" },
            { path: "/invoices/invoices/INV-10431/status", equals: "approved" },
          ],
        },
      },
      [calls(call("c1", "place_invoice_on_hold", { invoice_id: "INV-10431", reason: "duplicate" })), said("Done.")],
    );
    const record = await evaluateRepetition(inputs);
    expect(record.verdict).toMatchObject({
      outcome: "fail",
      cause: "end_state",
      reason:
        'End state differs at 2 paths: /invoices/invoices/INV-10423/status: expected "on_hold", got "approved"; /invoices/invoices/INV-10431/status: expected "approved", got "on_hold".',
    });
    // No gold calls: no fresh attempt was set up.
    expect(golds).toEqual([]);
  });
});

describe("a scenario with required outputs", () => {
  it("fails naming each fact the answers never stated, and passes when all are stated", async () => {
    const scenario = { expect: "get_invoice", outputs: ["approved", "1,250"] };
    const missing = repetition(scenario, [
      calls(call("c1", "get_invoice", { invoice_id: "INV-10431" })),
      said("It is Approved."),
    ]);
    expect((await evaluateRepetition(missing.inputs)).verdict).toMatchObject({
      outcome: "fail",
      cause: "outputs",
      reason: 'The answers never state "1,250".',
    });
    const stated = repetition(scenario, [
      calls(call("c1", "get_invoice", { invoice_id: "INV-10431" })),
      said("Approved, 1250 EUR."),
    ]);
    const record = await evaluateRepetition(stated.inputs);
    expect(record.verdict).toMatchObject({
      outcome: "pass",
      cause: "outputs",
      reason: "Every required output is stated (2).",
    });
    expect(record.outputs).toEqual({ pass: true, reason: "Every required output is stated (2).", missing: [] });
    expect(stated.judge.requests).toEqual([]);
  });

  it("with an end state too, passes only when both hold, and says both", async () => {
    const { inputs } = repetition({ expect: "place_invoice_on_hold", end_state: goldHold, outputs: ["on hold"] }, [
      calls(call("c1", "place_invoice_on_hold", HOLD)),
      said("Done."),
    ]);
    expect((await evaluateRepetition(inputs)).verdict).toMatchObject({
      outcome: "fail",
      cause: "outputs",
      reason: 'End state matches the gold calls\' state. The answers never state "on hold".',
    });
  });
});
