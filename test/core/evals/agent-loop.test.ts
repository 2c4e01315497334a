import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runAgent } from "../../../src/core/evals/agent-loop.js";
import type { AgentRun, TranscriptTurn } from "../../../src/core/evals/agent-types.js";
import type { ChatMessage, ChatResult, ChatToolCall } from "../../../src/core/ports.js";
import {
  agentInputs,
  call,
  calls,
  failed,
  fakeAttempt,
  INSTRUCTIONS,
  INVOICE_10431,
  INVOICE_HANDLERS,
  said,
  scriptedModel,
  TOOLS,
  UNAUTHORIZED,
} from "./scripted.js";

const STATUS = "What's the status of INV-10431?";
const HOLD = "INV-10423 duplicates last month's bill. Please hold it.";
const opening = (query: string): ChatMessage[] => [
  { role: "system", content: INSTRUCTIONS },
  { role: "user", content: query },
];
const usage = { prompt_tokens: 100, completion_tokens: 20 };
const turn = (messages_sent: number, content: string | null, tool_calls?: ChatToolCall[]): TranscriptTurn => ({
  messages_sent,
  answer: tool_calls ? { role: "assistant", content, tool_calls } : { role: "assistant", content },
  latency_ms: 120,
  usage,
  finish_reason: tool_calls ? "tool_calls" : "stop",
});
const assistant = (t: TranscriptTurn): ChatMessage => t.answer;
const tool = (tool_call_id: string, content: unknown): ChatMessage => ({
  role: "tool",
  tool_call_id,
  content: JSON.stringify(content),
});
const inputError = (message: string, details: unknown) => ({ error: { code: "tool_input_error", message, details } });

const lookup = call("c1", "get_invoice", { invoice_id: "INV-10431" });
const hold = call("c2", "place_invoice_on_hold", { invoice_id: "INV-10423", reason: "duplicate" });

describe("runAgent: the seed's flows", () => {
  it("looks the invoice up, then answers: the final answer ends the run", async () => {
    const model = scriptedModel([calls(lookup), said("INV-10431 from Contoso Freight is approved.")]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));

    const t1 = turn(2, null, [lookup]);
    const t2 = turn(4, "INV-10431 from Contoso Freight is approved.");
    expect(run).toEqual<AgentRun>({
      stop_reason: "final_answer",
      final_answer: "INV-10431 from Contoso Freight is approved.",
      approval_requests: [],
      refused_calls: [],
      messages: [...opening(STATUS), assistant(t1), tool("c1", INVOICE_10431), assistant(t2)],
      turns: [t1, t2],
    });
    expect(attempt.dispatched).toEqual([{ function: "get_invoice", args: { invoice_id: "INV-10431" }, call_id: "c1" }]);
    // Each request carries the tools, the parameters and the transcript so far, exactly.
    expect(model.requests).toEqual([
      { messages: opening(STATUS), tools: TOOLS, temperature: 0, seed: 7 },
      {
        messages: [...opening(STATUS), assistant(t1), tool("c1", INVOICE_10431)],
        tools: TOOLS,
        temperature: 0,
        seed: 7,
      },
    ]);
  });

  it("records the hold as an approval request, never executes it, and stops there", async () => {
    const model = scriptedModel([calls(hold)]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, HOLD));

    const t1 = turn(2, null, [hold]);
    expect(run).toEqual<AgentRun>({
      stop_reason: "approval_request",
      final_answer: null,
      approval_requests: [
        {
          function: "place_invoice_on_hold",
          arguments: { invoice_id: "INV-10423", reason: "duplicate" },
          call_id: "c2",
        },
      ],
      refused_calls: [],
      messages: [...opening(HOLD), assistant(t1)],
      turns: [t1],
    });
    expect(attempt.dispatched).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it("runs the approval-free calls of the answer that holds an approval request, before and after it, and records every proposal", async () => {
    const before = call("a", "get_invoice", { invoice_id: "INV-10431" });
    const secondHold = call("b", "place_invoice_on_hold", { invoice_id: "INV-10431", reason: "disputed" });
    const after = call("d", "get_invoice", { invoice_id: "INV-10423" });
    const model = scriptedModel([
      {
        ok: true,
        answer: {
          content: "Looking it up and requesting the hold.",
          tool_calls: [before, hold, secondHold, after],
          finish_reason: "tool_calls",
          usage,
          latency_ms: 120,
        },
      },
    ]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, HOLD));

    const t1 = turn(2, "Looking it up and requesting the hold.", [before, hold, secondHold, after]);
    expect(run).toEqual<AgentRun>({
      stop_reason: "approval_request",
      final_answer: "Looking it up and requesting the hold.",
      approval_requests: [
        {
          function: "place_invoice_on_hold",
          arguments: { invoice_id: "INV-10423", reason: "duplicate" },
          call_id: "c2",
        },
        { function: "place_invoice_on_hold", arguments: { invoice_id: "INV-10431", reason: "disputed" }, call_id: "b" },
      ],
      refused_calls: [],
      messages: [
        ...opening(HOLD),
        assistant(t1),
        tool("a", INVOICE_10431),
        tool("d", inputError('no invoice "INV-10423"', [{ path: "/invoice_id", message: "unknown invoice" }])),
      ],
      turns: [t1],
    });
    expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["a", "d"]);
  });

  it("records an approval request with the raw text when its arguments are not JSON", async () => {
    const broken = call("c2", "place_invoice_on_hold", '{"invoice_id": "INV-10423", reason: duplicate}');
    const model = scriptedModel([calls(broken)]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, HOLD));
    expect(run.approval_requests).toEqual([
      { function: "place_invoice_on_hold", arguments: '{"invoice_id": "INV-10423", reason: duplicate}', call_id: "c2" },
    ]);
    expect(run.stop_reason).toBe("approval_request");
    expect(attempt.dispatched).toEqual([]);
  });

  it("dispatches parallel tool calls in the order the model gave them and answers each under its id", async () => {
    const first = call("p1", "get_invoice", { invoice_id: "INV-10431" });
    const second = call("p2", "get_invoice", { invoice_id: "INV-10423" });
    const model = scriptedModel([calls(first, second), said("One is approved; INV-10423 does not exist.")]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, "Compare INV-10431 and INV-10423."));

    const t1 = turn(2, null, [first, second]);
    const t2 = turn(5, "One is approved; INV-10423 does not exist.");
    expect(run).toEqual<AgentRun>({
      stop_reason: "final_answer",
      final_answer: "One is approved; INV-10423 does not exist.",
      approval_requests: [],
      refused_calls: [],
      messages: [
        ...opening("Compare INV-10431 and INV-10423."),
        assistant(t1),
        tool("p1", INVOICE_10431),
        tool("p2", inputError('no invoice "INV-10423"', [{ path: "/invoice_id", message: "unknown invoice" }])),
        assistant(t2),
      ],
      turns: [t1, t2],
    });
    expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["p1", "p2"]);
  });

  it.each([
    ["not JSON", '{"invoice_id": INV-10431', "not valid JSON"],
    ["a JSON array", '["INV-10431"]', "JSON but not an object (got an array)"],
    ["a JSON string", '"INV-10431"', "JSON but not an object (got a string)"],
    ["JSON null", "null", "JSON but not an object (got null)"],
  ])(
    "answers arguments that are %s as a tool input error, without dispatching, records the call as refused, and the model recovers",
    async (_, raw, problem) => {
      const broken = call("m1", "get_invoice", raw);
      const model = scriptedModel([calls(broken), calls(lookup), said("It is approved.")]);
      const attempt = fakeAttempt(INVOICE_HANDLERS);
      const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));

      const t1 = turn(2, null, [broken]);
      const t2 = turn(4, null, [lookup]);
      const t3 = turn(6, "It is approved.");
      const message = `the arguments of get_invoice are ${problem}; send a JSON object that matches the function's parameters`;
      expect(run).toEqual<AgentRun>({
        stop_reason: "final_answer",
        final_answer: "It is approved.",
        approval_requests: [],
        refused_calls: [
          { function: "get_invoice", arguments: raw, call_id: "m1", refusal: "malformed_arguments", message },
        ],
        messages: [
          ...opening(STATUS),
          assistant(t1),
          tool("m1", inputError(message, [{ path: "", message: problem }])),
          assistant(t2),
          tool("c1", INVOICE_10431),
          assistant(t3),
        ],
        turns: [t1, t2, t3],
      });
      expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["c1"]);
    },
  );

  it.each([
    [
      "a number JSON cannot carry",
      '{"invoice_id":"INV-10431","n":1e400}',
      "/n: expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)",
    ],
    ["nesting past the limit", `{"invoice_id":${"[".repeat(101)}${"]".repeat(101)}}`, "/invoice_id"],
    [
      "a key given twice",
      '{"invoice_id":"INV-1","invoice_id":"INV-10431"}',
      '/invoice_id: the key "invoice_id" appears more than once in this object',
    ],
    [
      "a whole number past 2^53",
      '{"invoice_id":"INV-10431","n":9007199254740993}',
      "/n: the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992",
    ],
  ])("refuses arguments with %s before the attempt, keeping the text the model sent", async (_, raw, problem) => {
    const unusable = call("n1", "get_invoice", raw);
    const model = scriptedModel([calls(unusable), said("Sorry.")]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));
    expect(run.refused_calls).toEqual([
      {
        function: "get_invoice",
        arguments: raw,
        call_id: "n1",
        refusal: "unusable_arguments",
        message: expect.stringContaining(problem),
      },
    ]);
    expect(run.messages[3]).toMatchObject({
      role: "tool",
      tool_call_id: "n1",
      content: expect.stringContaining('"code":"tool_input_error"'),
    });
    expect(attempt.dispatched).toEqual([]);
  });

  it("reads empty argument text as an empty object (endpoints send it for functions without parameters)", async () => {
    const bare = call("e1", "list_invoices", "");
    const model = scriptedModel([calls(bare), said("None are open.")]);
    const attempt = fakeAttempt({ list_invoices: () => ({ kind: "result", result: [] }) });
    const tools = [{ name: "list_invoices", description: "Every open invoice.", parameters: { type: "object" } }];
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, "Which invoices are open?", { tools }));
    expect(attempt.dispatched).toEqual([{ function: "list_invoices", args: {}, call_id: "e1" }]);
    expect(run.stop_reason).toBe("final_answer");
  });

  it("tells the model a tool input error as the attempt answered it, and the model recovers", async () => {
    const wrong = call("w1", "get_invoice", { invoice_id: "INV-1043" });
    const model = scriptedModel([calls(wrong), calls(lookup), said("INV-10431 is approved.")]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));

    const t1 = turn(2, null, [wrong]);
    const t2 = turn(4, null, [lookup]);
    const t3 = turn(6, "INV-10431 is approved.");
    expect(run).toEqual<AgentRun>({
      stop_reason: "final_answer",
      final_answer: "INV-10431 is approved.",
      approval_requests: [],
      refused_calls: [],
      messages: [
        ...opening(STATUS),
        assistant(t1),
        tool("w1", inputError('no invoice "INV-1043"', [{ path: "/invoice_id", message: "unknown invoice" }])),
        assistant(t2),
        tool("c1", INVOICE_10431),
        assistant(t3),
      ],
      turns: [t1, t2, t3],
    });
  });

  it("answers a function the agent does not have as a tool input error, never dispatches it, records it, and the model recovers", async () => {
    const unknown = call("u1", "get_supplier", { supplier: "Contoso" });
    const model = scriptedModel([calls(unknown), calls(lookup), said("It is approved.")]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));

    const t1 = turn(2, null, [unknown]);
    const t2 = turn(4, null, [lookup]);
    const t3 = turn(6, "It is approved.");
    const message =
      'there is no function named "get_supplier"; the functions you have are get_invoice, place_invoice_on_hold';
    expect(run).toEqual<AgentRun>({
      stop_reason: "final_answer",
      final_answer: "It is approved.",
      approval_requests: [],
      refused_calls: [
        {
          function: "get_supplier",
          arguments: { supplier: "Contoso" },
          call_id: "u1",
          refusal: "unknown_function",
          message,
        },
      ],
      messages: [
        ...opening(STATUS),
        assistant(t1),
        tool("u1", inputError(message, [{ path: "", message: "unknown function" }])),
        assistant(t2),
        tool("c1", INVOICE_10431),
        assistant(t3),
      ],
      turns: [t1, t2, t3],
    });
    expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["c1"]);
  });

  it("stops at a harness error, naming the call, and records the calls after it as not handled", async () => {
    const broken = call("h1", "get_invoice", { invoice_id: "INV-10431" });
    const model = scriptedModel([calls(broken, hold)]);
    const attempt = fakeAttempt({
      get_invoice: () => ({
        kind: "harness_error",
        message: "missing_reference: the state has no invoices",
        recorded: true,
      }),
    });
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));

    const t1 = turn(2, null, [broken, hold]);
    expect(run).toEqual<AgentRun>({
      stop_reason: "harness_error",
      final_answer: null,
      approval_requests: [],
      refused_calls: [
        {
          function: "place_invoice_on_hold",
          arguments: hold.arguments,
          call_id: "c2",
          refusal: "not_handled",
          message: "after a harness error earlier in the same answer (call h1): the run ended before this call",
        },
      ],
      messages: [...opening(STATUS), assistant(t1)],
      turns: [t1],
      harness_error:
        "the harness failed the call to get_invoice (call h1): missing_reference: the state has no invoices",
    });
    expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["h1"]);
  });

  it("records a call the attempt refused without recording it, with what the model was told", async () => {
    const model = scriptedModel([calls(lookup), said("Sorry.")]);
    const attempt = fakeAttempt({
      get_invoice: () => ({
        kind: "refused",
        message: "/call_id: expected a string of 1 to 200 characters",
        details: [],
      }),
    });
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));
    expect(run.refused_calls).toEqual([
      {
        function: "get_invoice",
        arguments: { invoice_id: "INV-10431" },
        call_id: "c1",
        refusal: "refused_by_attempt",
        message: "/call_id: expected a string of 1 to 200 characters",
      },
    ]);
    expect(run.messages[3]).toEqual(tool("c1", inputError("/call_id: expected a string of 1 to 200 characters", [])));
    expect(attempt.executed).toEqual([]);
  });

  it("dispatches a call whose id is a lone surrogate or too long under a derived, well-formed id", async () => {
    const lone = call("call_\ud800", "get_invoice", { invoice_id: "INV-10431" });
    const long = call("x".repeat(500), "get_invoice", { invoice_id: "INV-10431" });
    const model = scriptedModel([calls(lone, long), said("Approved.")]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));
    expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["call_\ufffd~1.1", `${"x".repeat(160)}~1.2`]);
    // The model is answered under the ids it sent.
    expect(run.messages.filter((m) => m.role === "tool").map((m) => (m.role === "tool" ? m.tool_call_id : ""))).toEqual(
      ["call_\ud800", "x".repeat(500)],
    );
  });

  it("ends a model that keeps calling after max_iterations answers, with the last answer's calls handled", async () => {
    const loops = [1, 2, 3].map((n) => call(`l${n}`, "get_invoice", { invoice_id: "INV-10431" }));
    const model = scriptedModel(loops.map((c) => calls(c)));
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS, { max_iterations: 3 }));

    const turns = loops.map((c, i) => turn(2 + 2 * i, null, [c]));
    expect(run).toEqual<AgentRun>({
      stop_reason: "max_iterations",
      final_answer: null,
      approval_requests: [],
      refused_calls: [],
      messages: [...opening(STATUS), ...loops.flatMap((c, i) => [assistant(turns[i]!), tool(c.id, INVOICE_10431)])],
      turns,
    });
    expect(model.requests).toHaveLength(3);
    expect(attempt.dispatched).toHaveLength(3);
  });

  it("a final answer in the last allowed answer is a final answer, not a limit", async () => {
    const model = scriptedModel([calls(lookup), said("Approved.")]);
    const run = await runAgent(
      agentInputs(model.client, fakeAttempt(INVOICE_HANDLERS).dispatcher, STATUS, { max_iterations: 2 }),
    );
    expect(run.stop_reason).toBe("final_answer");
  });

  it("ends the run at the first call past max_function_calls, counting malformed calls, and records it as not handled", async () => {
    const broken = call("m1", "get_invoice", "{");
    const c2 = call("c2", "get_invoice", { invoice_id: "INV-10431" });
    const c3 = call("c3", "get_invoice", { invoice_id: "INV-10431" });
    const model = scriptedModel([calls(broken, lookup), calls(c2, c3)]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS, { max_function_calls: 3 }));

    const t1 = turn(2, null, [broken, lookup]);
    const t2 = turn(5, null, [c2, c3]);
    expect(run).toEqual<AgentRun>({
      stop_reason: "max_function_calls",
      final_answer: null,
      approval_requests: [],
      refused_calls: [
        {
          function: "get_invoice",
          arguments: "{",
          call_id: "m1",
          refusal: "malformed_arguments",
          message:
            "the arguments of get_invoice are not valid JSON; send a JSON object that matches the function's parameters",
        },
        {
          function: "get_invoice",
          arguments: c3.arguments,
          call_id: "c3",
          refusal: "not_handled",
          message: "past max_function_calls (3): the run ended before this call",
        },
      ],
      messages: [
        ...opening(STATUS),
        assistant(t1),
        tool(
          "m1",
          inputError(
            "the arguments of get_invoice are not valid JSON; send a JSON object that matches the function's parameters",
            [{ path: "", message: "not valid JSON" }],
          ),
        ),
        tool("c1", INVOICE_10431),
        assistant(t2),
        tool("c2", INVOICE_10431),
      ],
      turns: [t1, t2],
    });
    expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["c1", "c2"]);
  });

  it("counts an approval request as a call: a proposal past the budget is not a request, and is kept as not handled", async () => {
    const model = scriptedModel([calls(lookup, hold)]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, HOLD, { max_function_calls: 1 }));
    expect(run.stop_reason).toBe("max_function_calls");
    expect(run.approval_requests).toEqual([]);
    expect(run.refused_calls).toEqual([
      {
        function: "place_invoice_on_hold",
        arguments: hold.arguments,
        call_id: "c2",
        refusal: "not_handled",
        message: "past max_function_calls (1): the run ended before this call",
      },
    ]);
  });

  it("an approval request within the budget stops the run as an approval request even when the budget runs out after it", async () => {
    const model = scriptedModel([calls(hold, lookup)]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, HOLD, { max_function_calls: 1 }));
    expect(run.stop_reason).toBe("approval_request");
    expect(run.approval_requests.map((r) => r.call_id)).toEqual(["c2"]);
    expect(attempt.dispatched).toEqual([]);
  });

  it("ends with model_error and the failure when the endpoint fails, keeping the transcript so far", async () => {
    const model = scriptedModel([calls(lookup), failed(UNAUTHORIZED)]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));

    const t1 = turn(2, null, [lookup]);
    expect(run).toEqual<AgentRun>({
      stop_reason: "model_error",
      final_answer: null,
      approval_requests: [],
      refused_calls: [],
      messages: [...opening(STATUS), assistant(t1), tool("c1", INVOICE_10431)],
      turns: [t1],
      model_failure: UNAUTHORIZED,
    });
  });

  it("dispatches and records a repeated or empty call id under a derived one, and answers the model under its own", async () => {
    const first = call("call_0", "get_invoice", { invoice_id: "INV-10431" });
    const again = call("call_0", "get_invoice", { invoice_id: "INV-10423" });
    const empty = call("", "place_invoice_on_hold", { invoice_id: "INV-10431", reason: "disputed" });
    const model = scriptedModel([calls(first), calls(again, empty)]);
    const attempt = fakeAttempt(INVOICE_HANDLERS);
    const run = await runAgent(agentInputs(model.client, attempt.dispatcher, STATUS));

    const t1 = turn(2, null, [first]);
    const t2 = turn(4, null, [again, empty]);
    expect(run).toEqual<AgentRun>({
      stop_reason: "approval_request",
      final_answer: null,
      approval_requests: [
        {
          function: "place_invoice_on_hold",
          arguments: { invoice_id: "INV-10431", reason: "disputed" },
          call_id: "~2.2",
        },
      ],
      refused_calls: [],
      messages: [
        ...opening(STATUS),
        assistant(t1),
        tool("call_0", INVOICE_10431),
        assistant(t2),
        tool("call_0", inputError('no invoice "INV-10423"', [{ path: "/invoice_id", message: "unknown invoice" }])),
      ],
      turns: [t1, t2],
    });
    expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["call_0", "call_0~2.1"]);
  });

  it("sends no tools field when the agent has no tools, and only the parameters that are set", async () => {
    const model = scriptedModel([said("Hello.")]);
    await runAgent(
      agentInputs(model.client, fakeAttempt({}).dispatcher, "Hi", { tools: [], parameters: { max_tokens: 200 } }),
    );
    expect(model.requests).toEqual([{ messages: opening("Hi"), max_tokens: 200 }]);
  });
});

// ---------------------------------------------------------------------------------------------
// Open-ended scripts: whatever the model answers, the loop stays within its limits and its record
// stays consistent.

const NAMES = ["get_invoice", "place_invoice_on_hold", "get_supplier"] as const;
const argumentText = fc.oneof(
  fc.constant('{"invoice_id":"INV-10431"}'),
  fc.constant('{"invoice_id":"INV-0"}'),
  fc.constant("{"),
  fc.constant("[]"),
  fc.constant(""),
  fc.json(),
);
const toolCall = fc.record({
  id: fc.constantFrom("", "c", "c~1.1", "d", "call_0"),
  name: fc.constantFrom(...NAMES),
  arguments: argumentText,
});
const step: fc.Arbitrary<ChatResult> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(said("Done.")) },
  { weight: 1, arbitrary: fc.constant(failed(UNAUTHORIZED)) },
  { weight: 6, arbitrary: fc.array(toolCall, { minLength: 1, maxLength: 4 }).map((list) => calls(...list)) },
);

describe("runAgent: properties over any script", () => {
  it("never exceeds max_iterations answers or max_function_calls handled calls, and names the limit it hit", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 8 }),
        async (script, max_iterations, max_function_calls) => {
          const model = scriptedModel(script);
          const attempt = fakeAttempt({ get_invoice: INVOICE_HANDLERS.get_invoice! });
          const run = await runAgent(
            agentInputs(model.client, attempt.dispatcher, STATUS, { max_iterations, max_function_calls }),
          );

          expect(model.requests.length).toBeLessThanOrEqual(max_iterations);
          expect(run.turns.length).toBe(run.messages.filter((m) => m.role === "assistant").length);
          const handled =
            run.messages.filter((m) => m.role === "tool").length +
            run.approval_requests.length +
            (run.stop_reason === "harness_error" ? 1 : 0);
          expect(handled).toBeLessThanOrEqual(max_function_calls);
          // Every call the model asked for is dispatched, proposed or refused: exactly one of them.
          const asked = run.turns.flatMap((t) => t.answer.tool_calls ?? []);
          const notDispatched = run.refused_calls.filter((r) => r.refusal !== "refused_by_attempt");
          expect(attempt.dispatched.length + run.approval_requests.length + notDispatched.length).toBe(asked.length);
          // Every tool message answers a call the model made, and no proposal was ever executed.
          const askedIds = new Set(asked.map((c) => c.id));
          for (const m of run.messages) if (m.role === "tool") expect(askedIds.has(m.tool_call_id)).toBe(true);
          expect(attempt.dispatched.filter((d) => d.function === "place_invoice_on_hold")).toEqual([]);
          // Whatever ids the model sends, the attempt and the record never see one twice.
          const recorded = [
            ...attempt.dispatched.map((d) => d.call_id),
            ...run.approval_requests.map((r) => r.call_id),
            ...notDispatched.map((r) => r.call_id),
          ];
          expect(new Set(recorded).size).toBe(recorded.length);
          // The stop reason agrees with the record.
          expect(run.model_failure !== undefined).toBe(run.stop_reason === "model_error");
          expect(run.harness_error !== undefined).toBe(run.stop_reason === "harness_error");
          if (run.stop_reason === "approval_request") expect(run.approval_requests.length).toBeGreaterThan(0);
          if (run.stop_reason === "max_iterations") expect(run.turns).toHaveLength(max_iterations);
          if (run.stop_reason === "final_answer") expect(run.final_answer).toBe("Done.");
        },
      ),
      { numRuns: 300 },
    );
  });
});
