/**
 * An external agent's conversation, turn by turn (core/evals/external-conversation.ts): the rules
 * of taking a reply (in order, once, the same text answered again) and the end of the
 * conversation, and a property: relayed turn by turn, the user is played exactly as the built-in
 * loop plays it (the same user-model requests, turns, stop reason and messages).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runConversation } from "../../../src/core/evals/conversation-loop.js";
import {
  answerTo,
  applyUserStep,
  conversationMessages,
  conversationOutcome,
  type ExternalConversation,
  openConversation,
  takeReply,
} from "../../../src/core/evals/external-conversation.js";
import { askUser, type UserTurnInputs } from "../../../src/core/evals/user-turn.js";
import type { ChatResult } from "../../../src/core/ports.js";
import { agentInputs, failed, fakeAttempt, INVOICE_HANDLERS, said, scriptedModel, UNAUTHORIZED } from "./scripted.js";

const USER_MODEL = { connection: "user-sim", model: "sim-1" };
const INSTRUCTION = "You are Dana from Contoso. You want to know whether INV-10431 is approved.";
const usage = { prompt_tokens: 100, completion_tokens: 20 };
const userTurn = (content: string | null) => ({ content, latency_ms: 120, usage, finish_reason: "stop" });

function userOf(steps: ChatResult[]): { inputs: UserTurnInputs; requests: unknown[] } {
  const model = scriptedModel(steps);
  return {
    inputs: { client: model.client, connection: "user-sim", parameters: { temperature: 0 }, instruction: INSTRUCTION },
    requests: model.requests,
  };
}

async function opened(steps: ChatResult[]): Promise<{ conversation: ExternalConversation; user: UserTurnInputs }> {
  const { inputs } = userOf(steps);
  return { conversation: openConversation(USER_MODEL, await askUser(inputs, [])), user: inputs };
}

describe("an external agent's conversation", () => {
  it("opens with the user's first message, takes replies in order and ends at the stop token", async () => {
    const { conversation: first, user } = await opened([said("Is INV-10431 approved?"), said("Thanks! ###STOP###")]);
    expect(first).toEqual({
      user_model: USER_MODEL,
      user_turns: [userTurn("Is INV-10431 approved?")],
      user_messages: ["Is INV-10431 approved?"],
      replies: [],
      end: null,
    });
    expect(answerTo(first, 0)).toEqual({ done: false, turn: 1, message: "Is INV-10431 approved?" });

    const taken = takeReply(first, 1, "It is received.", 5);
    if (taken.kind !== "ask") throw new Error(`expected ask, got ${taken.kind}`);
    // Taken, while the user model answers: the same reply waits, another is refused, the next is not due.
    expect(takeReply(taken.conversation, 1, "It is received.", 5)).toEqual({ kind: "repeated", answer: null });
    expect(takeReply(taken.conversation, 2, "More?", 5)).toEqual({
      kind: "out_of_order",
      expected: null,
      reason: "user message 2 has not been sent: the user's answer to reply 1 is still being made",
    });
    const step = await askUser(user, conversationMessages(taken.conversation));
    const ended = applyUserStep(taken.conversation, step);
    expect(ended).toEqual({
      user_model: USER_MODEL,
      user_turns: [userTurn("Is INV-10431 approved?"), userTurn("Thanks! ###STOP###")],
      user_messages: ["Is INV-10431 approved?"],
      replies: ["It is received."],
      end: { stop_reason: "user_stop" },
    });
    expect(answerTo(ended, 1)).toEqual({ done: true, stop_reason: "user_stop" });
    // A retry of the last reply is answered again; a new reply after the end is refused.
    expect(takeReply(ended, 1, "It is received.", 5)).toEqual({
      kind: "repeated",
      answer: { done: true, stop_reason: "user_stop" },
    });
    expect(takeReply(ended, 2, "Anything else?", 5)).toEqual({ kind: "ended", stop_reason: "user_stop" });
    expect(takeReply(ended, 1, "Another text", 5)).toEqual({
      kind: "conflict",
      reason:
        "the reply to user message 1 was taken already, with another text: a reply is posted once (the same text again is answered again)",
    });
    expect(conversationOutcome(ended)).toEqual({
      record: {
        stop_reason: "user_stop",
        user_model: USER_MODEL,
        user_turns: ended.user_turns,
        usage: {
          agent: { calls: 0, prompt_tokens: 0, completion_tokens: 0, calls_without_usage: 0 },
          user_model: { calls: 2, prompt_tokens: 200, completion_tokens: 40, calls_without_usage: 0 },
        },
      },
      messages: [
        { role: "user", content: "Is INV-10431 approved?" },
        { role: "assistant", content: "It is received." },
      ],
      last_reply: "It is received.",
    });
  });

  it("ends with max_turns once the last message the user may send is answered, without asking the user model", async () => {
    const { conversation } = await opened([said("Is INV-10431 approved?")]);
    const taken = takeReply(conversation, 1, "It is received.", 1);
    expect(taken).toEqual({
      kind: "answered",
      conversation: { ...conversation, replies: ["It is received."], end: { stop_reason: "max_turns" } },
      answer: { done: true, stop_reason: "max_turns" },
    });
  });

  it("refuses a reply to a message other than the last one sent", async () => {
    const { conversation } = await opened([said("Is INV-10431 approved?")]);
    expect(takeReply(conversation, 3, "Yes.", 5)).toEqual({
      kind: "out_of_order",
      expected: 1,
      reason: "expected the reply to user message 1 (the last one sent), got 3",
    });
  });

  it("ends with user_model_error when the user model fails or answers no text, keeping the empty answer", async () => {
    const { conversation: broken } = await opened([failed(UNAUTHORIZED)]);
    expect(broken).toEqual({
      user_model: USER_MODEL,
      user_turns: [],
      user_messages: [],
      replies: [],
      end: { stop_reason: "user_model_error", user_model_error: UNAUTHORIZED.message },
    });
    const { conversation: silent } = await opened([said("  ")]);
    expect(silent.end).toEqual({
      stop_reason: "user_model_error",
      user_model_error: `the user model's connection "user-sim" answered no text (finish reason stop)`,
    });
    expect(silent.user_turns).toEqual([userTurn("  ")]);
    expect(conversationOutcome(silent).record).toMatchObject({
      stop_reason: "user_model_error",
      user_model_error: `the user model's connection "user-sim" answered no text (finish reason stop)`,
    });
  });

  it("an agent that completes while the user still had the floor ended it (agent_stop)", async () => {
    const { conversation } = await opened([said("Is INV-10431 approved?")]);
    expect(conversationOutcome(conversation).record.stop_reason).toBe("agent_stop");
  });

  it("plays the user exactly as the built-in loop does, whatever the user says and however many turns are allowed", async () => {
    const userAnswer = fc.oneof(
      { weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).filter((text) => text.trim() !== "") },
      { weight: 1, arbitrary: fc.constant("Bye ###STOP###") },
      { weight: 1, arbitrary: fc.constant("") },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(userAnswer, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 6 }),
        async (answers, maxTurns) => {
          const script = () => [...answers.map((text) => said(text)), failed(UNAUTHORIZED)];
          const reply = (n: number) => `reply ${n}`;

          // The built-in loop, with an agent that answers each user message in text.
          const builtinUser = scriptedModel(script());
          const agent = scriptedModel(Array.from({ length: 8 }, (_, i) => said(reply(i + 1))));
          const { query: _query, ...agentRest } = agentInputs(
            agent.client,
            fakeAttempt(INVOICE_HANDLERS).dispatcher,
            "",
          );
          const builtin = await runConversation({
            agent: agentRest,
            user: {
              client: builtinUser.client,
              connection: "user-sim",
              model: "sim-1",
              parameters: { temperature: 0 },
              instruction: INSTRUCTION,
              max_turns: maxTurns,
            },
          });

          // The same conversation relayed to an external agent that replies the same.
          const externalUser = scriptedModel(script());
          const inputs: UserTurnInputs = {
            client: externalUser.client,
            connection: "user-sim",
            parameters: { temperature: 0 },
            instruction: INSTRUCTION,
          };
          let conversation = openConversation(USER_MODEL, await askUser(inputs, []));
          for (let turn = 1; conversation.end === null; turn++) {
            const taken = takeReply(conversation, turn, reply(turn), maxTurns);
            if (taken.kind === "answered") conversation = taken.conversation;
            else if (taken.kind === "ask")
              conversation = applyUserStep(
                taken.conversation,
                await askUser(inputs, conversationMessages(taken.conversation)),
              );
            else throw new Error(`turn ${turn}: ${taken.kind}`);
          }

          const outcome = conversationOutcome(conversation);
          expect(externalUser.requests).toEqual(builtinUser.requests);
          expect({ ...outcome.record, usage: outcome.record.usage.user_model }).toEqual({
            ...builtin.conversation,
            usage: builtin.conversation.usage.user_model,
          });
          expect(outcome.messages).toEqual(builtin.messages.slice(1));
        },
      ),
      { numRuns: 100 },
    );
  });
});
