import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runConversation, type ConversationRun } from "../../../src/core/evals/conversation-loop.js";
import type { TranscriptTurn } from "../../../src/core/evals/agent-types.js";
import type { UserModelInputs } from "../../../src/core/evals/conversation-types.js";
import { AGENT_GREETING, userModelMessages, userSystemPrompt } from "../../../src/core/evals/user-prompt.js";
import type { ChatMessage, ChatToolCall } from "../../../src/core/ports.js";
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
  UNAUTHORIZED,
} from "./scripted.js";

const INSTRUCTION =
  "You are Dana from Contoso. You want to know whether INV-10431 is approved. Your invoice id is INV-10431.";
const usage = { prompt_tokens: 100, completion_tokens: 20 };
const agentTurn = (messages_sent: number, content: string | null, tool_calls?: ChatToolCall[]): TranscriptTurn => ({
  messages_sent,
  answer: tool_calls ? { role: "assistant", content, tool_calls } : { role: "assistant", content },
  latency_ms: 120,
  usage,
  finish_reason: tool_calls ? "tool_calls" : "stop",
});
const userTurn = (content: string | null) => ({ content, latency_ms: 120, usage, finish_reason: "stop" });
const totals = (calls: number) => ({
  calls,
  prompt_tokens: 100 * calls,
  completion_tokens: 20 * calls,
  calls_without_usage: 0,
});

function conversationOf(
  agentSteps: Parameters<typeof scriptedModel>[0],
  userSteps: Parameters<typeof scriptedModel>[0],
  max_turns = 5,
) {
  const agent = scriptedModel(agentSteps);
  const user = scriptedModel(userSteps);
  const attempt = fakeAttempt(INVOICE_HANDLERS);
  const userInputs: UserModelInputs = {
    client: user.client,
    connection: "user-sim",
    model: "sim-1",
    parameters: { temperature: 0 },
    instruction: INSTRUCTION,
    max_turns,
  };
  const { query: _query, ...agentRest } = agentInputs(agent.client, attempt.dispatcher, "");
  const run = () => runConversation({ agent: agentRest, user: userInputs });
  return { agent, user, attempt, run };
}

const lookup = call("c1", "get_invoice", { invoice_id: "INV-10431" });

describe("runConversation", () => {
  it("runs user and agent turn by turn until the user says the stop token", async () => {
    const { agent, user, attempt, run } = conversationOf(
      [said("Which invoice is it?"), calls(lookup), said("INV-10431 is approved.")],
      [said("Is my invoice approved?"), said("It is INV-10431."), said("Thanks! ###STOP###")],
    );
    const result = await run();

    const a1 = agentTurn(2, "Which invoice is it?");
    const a2 = agentTurn(4, null, [lookup]);
    const a3 = agentTurn(6, "INV-10431 is approved.");
    const messages: ChatMessage[] = [
      { role: "system", content: INSTRUCTIONS },
      { role: "user", content: "Is my invoice approved?" },
      a1.answer,
      { role: "user", content: "It is INV-10431." },
      a2.answer,
      { role: "tool", tool_call_id: "c1", content: JSON.stringify(INVOICE_10431) },
      a3.answer,
    ];
    expect(result).toEqual<ConversationRun>({
      stop_reason: "final_answer",
      final_answer: "INV-10431 is approved.",
      approval_requests: [],
      refused_calls: [],
      messages,
      turns: [a1, a2, a3],
      conversation: {
        stop_reason: "user_stop",
        user_model: { connection: "user-sim", model: "sim-1" },
        user_turns: [userTurn("Is my invoice approved?"), userTurn("It is INV-10431."), userTurn("Thanks! ###STOP###")],
        usage: { agent: totals(3), user_model: totals(3) },
      },
    });
    expect(attempt.dispatched).toEqual([{ function: "get_invoice", args: { invoice_id: "INV-10431" }, call_id: "c1" }]);
    // The user model sees the conversation from its side: no system prompt of the agent's, no tool traffic.
    expect(user.requests).toEqual([
      {
        messages: [
          { role: "system", content: userSystemPrompt(INSTRUCTION) },
          { role: "user", content: AGENT_GREETING },
        ],
        temperature: 0,
      },
      {
        messages: [
          { role: "system", content: userSystemPrompt(INSTRUCTION) },
          { role: "user", content: AGENT_GREETING },
          { role: "assistant", content: "Is my invoice approved?" },
          { role: "user", content: "Which invoice is it?" },
        ],
        temperature: 0,
      },
      {
        messages: [
          { role: "system", content: userSystemPrompt(INSTRUCTION) },
          { role: "user", content: AGENT_GREETING },
          { role: "assistant", content: "Is my invoice approved?" },
          { role: "user", content: "Which invoice is it?" },
          { role: "assistant", content: "It is INV-10431." },
          { role: "user", content: "INV-10431 is approved." },
        ],
        temperature: 0,
      },
    ]);
    // The agent's second turn carries the whole conversation so far; the instruction never reaches it.
    expect(agent.requests[1]?.messages).toEqual(messages.slice(0, 4));
    expect(JSON.stringify(agent.requests)).not.toContain("Dana");
  });

  it("ends with max_turns once the user's last allowed message is answered", async () => {
    const { user, run } = conversationOf(
      [said("Which invoice?"), said("Which invoice, please?")],
      [said("Is my invoice approved?"), said("The one from Contoso.")],
      2,
    );
    const result = await run();
    expect(result.conversation).toEqual({
      stop_reason: "max_turns",
      user_model: { connection: "user-sim", model: "sim-1" },
      user_turns: [userTurn("Is my invoice approved?"), userTurn("The one from Contoso.")],
      usage: { agent: totals(2), user_model: totals(2) },
    });
    expect({ stop_reason: result.stop_reason, final_answer: result.final_answer }).toEqual({
      stop_reason: "final_answer",
      final_answer: "Which invoice, please?",
    });
    expect(user.requests).toHaveLength(2);
  });

  it("ends with agent_stop when the agent's turn ends without an answer to the user", async () => {
    const hold = call("h1", "place_invoice_on_hold", { invoice_id: "INV-10423", reason: "duplicate" });
    const { run } = conversationOf([calls(hold)], [said("Please hold INV-10423, it is a duplicate.")]);
    const result = await run();
    expect({
      stop_reason: result.stop_reason,
      conversation: result.conversation.stop_reason,
      approval_requests: result.approval_requests,
    }).toEqual({
      stop_reason: "approval_request",
      conversation: "agent_stop",
      approval_requests: [
        {
          function: "place_invoice_on_hold",
          arguments: { invoice_id: "INV-10423", reason: "duplicate" },
          call_id: "h1",
        },
      ],
    });
  });

  it("a user model that fails ends the conversation as user_model_error, keeping what the agent did", async () => {
    const { run } = conversationOf(
      [calls(lookup), said("It is approved.")],
      [said("Is INV-10431 approved?"), failed(UNAUTHORIZED)],
    );
    const result = await run();
    expect(result.conversation).toEqual({
      stop_reason: "user_model_error",
      user_model: { connection: "user-sim", model: "sim-1" },
      user_turns: [userTurn("Is INV-10431 approved?")],
      usage: { agent: totals(2), user_model: totals(1) },
      user_model_error: UNAUTHORIZED.message,
    });
    expect(result.user_model_failure).toEqual(UNAUTHORIZED);
    expect(result.stop_reason).toBe("final_answer");
  });

  it("a user model that answers no text is a user model error before the agent runs", async () => {
    const { agent, run } = conversationOf([], [said("  ")]);
    const result = await run();
    expect({ stop_reason: result.stop_reason, conversation: result.conversation }).toEqual({
      stop_reason: null,
      conversation: {
        stop_reason: "user_model_error",
        user_model: { connection: "user-sim", model: "sim-1" },
        user_turns: [userTurn("  ")],
        usage: { agent: totals(0), user_model: totals(1) },
        user_model_error: 'the user model\'s connection "user-sim" answered no text (finish reason stop)',
      },
    });
    expect(agent.requests).toEqual([]);
  });

  it("keeps call ids unique across turns: a model reusing an id gets a derived one", async () => {
    const again = call("c1", "get_invoice", { invoice_id: "INV-10431" });
    const { attempt, run } = conversationOf(
      [calls(lookup), said("Approved."), calls(again), said("Still approved.")],
      [said("Is INV-10431 approved?"), said("Check again please."), said("###STOP###")],
    );
    const result = await run();
    expect(result.conversation.stop_reason).toBe("user_stop");
    expect(attempt.dispatched.map((d) => d.call_id)).toEqual(["c1", "c1~1.1"]);
  });
});

describe("userModelMessages", () => {
  it("flips roles and leaves out tool traffic and empty agent messages", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "agent prompt" },
      { role: "user", content: "hello" },
      { role: "assistant", content: null, tool_calls: [lookup] },
      { role: "tool", tool_call_id: "c1", content: "{}" },
      { role: "assistant", content: "  " },
      { role: "assistant", content: "done" },
    ];
    expect(userModelMessages("be Dana", messages)).toEqual([
      { role: "system", content: userSystemPrompt("be Dana") },
      { role: "user", content: AGENT_GREETING },
      { role: "assistant", content: "hello" },
      { role: "user", content: "done" },
    ]);
  });
});

describe("runConversation, for any script", () => {
  const userStep = fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }).map((text) => ({ kind: "say" as const, text: `u:${text}` })),
    fc.constant({ kind: "stop" as const }),
    fc.constant({ kind: "fail" as const }),
    fc.constant({ kind: "silent" as const }),
  );
  const agentStep = fc.oneof(
    fc.string({ maxLength: 20 }).map((text) => ({ kind: "say" as const, text: `a:${text}` })),
    fc.constant({ kind: "lookup" as const }),
    fc.constant({ kind: "hold" as const }),
  );

  it("never shows the agent the instruction or a stop message, never exceeds max_turns, and says why it ended", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(userStep, { minLength: 1, maxLength: 8 }),
        fc.array(agentStep, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 6 }),
        async (userScript, agentScript, maxTurns) => {
          let u = 0;
          let a = 0;
          const user = (): ReturnType<typeof said> => {
            const step = userScript[u++] ?? { kind: "stop" as const };
            if (step.kind === "say") return said(step.text);
            if (step.kind === "stop") return said("done ###STOP###");
            if (step.kind === "silent") return said("");
            return failed(UNAUTHORIZED);
          };
          const agent = (): ReturnType<typeof said> => {
            const step = agentScript[a++] ?? { kind: "say" as const, text: "a:end" };
            if (step.kind === "say") return said(step.text);
            if (step.kind === "lookup") return calls(call(`c${a}`, "get_invoice", { invoice_id: "INV-10431" }));
            return calls(call(`h${a}`, "place_invoice_on_hold", { invoice_id: "INV-10431", reason: "duplicate" }));
          };
          const {
            run,
            agent: agentModel,
            user: userModel,
          } = conversationOf(
            Array.from({ length: 200 }, () => agent),
            Array.from({ length: 50 }, () => user),
            maxTurns,
          );
          const result = await run();
          const seen = JSON.stringify(agentModel.requests);
          expect(seen).not.toContain("Dana");
          expect(seen).not.toContain("###STOP###");
          const sent = result.messages.filter((m) => m.role === "user");
          expect(sent.length).toBeLessThanOrEqual(maxTurns);
          // Every answer the user model gave is kept; a failed request has no answer to keep.
          const failedRequests = result.user_model_failure ? 1 : 0;
          expect(result.conversation.user_turns).toHaveLength(userModel.requests.length - failedRequests);
          const stop = result.conversation.stop_reason;
          if (stop === "max_turns") expect(sent).toHaveLength(maxTurns);
          if (stop === "user_stop") expect(result.conversation.user_turns.at(-1)?.content).toContain("###STOP###");
          if (stop === "agent_stop") expect(result.stop_reason).not.toBe("final_answer");
          if (stop !== "agent_stop" && result.stop_reason !== null) expect(result.stop_reason).toBe("final_answer");
          expect(stop === "user_model_error").toBe(result.conversation.user_model_error !== undefined);
        },
      ),
      { numRuns: 200 },
    );
  });
});
