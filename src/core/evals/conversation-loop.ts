/**
 * A conversation: the user model and the built-in agent take turns until one of them ends it.
 * Each user message starts one run of the agent loop (agent-loop.ts) on the whole conversation so
 * far, so the agent works as it would with a person typing: it may call tools, and its turn ends
 * when it answers in text. The rules, for readers of results (docs/evals.md, "Conversations with
 * a simulated user"):
 *
 * - The user speaks first (answering the agent's greeting, user-prompt.ts). A message containing
 *   USER_STOP_TOKEN ends the conversation (`user_stop`); it is kept among the user's turns but
 *   never sent to the agent.
 * - `max_turns` counts the user's messages sent to the agent. When the agent has answered the
 *   last of them and the user has not ended the conversation, it ends with `max_turns` (the user
 *   model is not asked once more only to be cut off).
 * - An agent turn that ends otherwise than with a text answer (an approval request, a budget
 *   reached, a harness or model error) ends the conversation (`agent_stop`); the agent's own stop
 *   reason is the record's `stop_reason`, as in a single-query run.
 * - The agent's budgets (max_iterations, max_function_calls) count per user message, and its call
 *   ids stay unique across the whole conversation (the attempt treats them as idempotency keys).
 * - The user model failing, or answering no text, ends the conversation with `user_model_error`:
 *   an infrastructure error for the repetition, never the agent's fail (evaluate-repetition.ts).
 */
import type { ChatMessage, ModelFailure } from "../ports.js";
import type { ApprovalRequest, RefusedCall } from "../scoring/calls.js";
import { runAgent } from "./agent-loop.js";
import type { AgentRun, AgentRunInputs, AgentStopReason, TranscriptTurn } from "./agent-types.js";
import type { ConversationRecord, ConversationStopReason, UserModelInputs, UserTurn } from "./conversation-types.js";
import { usageTotals } from "./conversation-usage.js";
import { askUser } from "./user-turn.js";

interface ConversationInputs {
  agent: Omit<AgentRunInputs, "query" | "history" | "used_call_ids">;
  user: UserModelInputs;
}

/** A conversation's outcome: the agent's run over every turn, and the conversation's own record. */
export type ConversationRun = Omit<AgentRun, "stop_reason"> & {
  /** The agent's last turn's stop reason; null when the user model failed before the agent ever answered. */
  stop_reason: AgentStopReason | null;
  conversation: ConversationRecord;
  /** Set with stop_reason "user_model_error" when the endpoint failed (absent when it answered no text). */
  user_model_failure?: ModelFailure;
};

export async function runConversation(inputs: ConversationInputs): Promise<ConversationRun> {
  const { agent, user } = inputs;
  let messages: ChatMessage[] = [{ role: "system", content: agent.instructions }];
  const turns: TranscriptTurn[] = [];
  const approval_requests: ApprovalRequest[] = [];
  const refused_calls: RefusedCall[] = [];
  const user_turns: UserTurn[] = [];
  const usedIds = new Set<string>();
  let final_answer: string | null = null;
  let last: AgentRun | null = null;

  const finish = (
    stop: ConversationStopReason,
    extra: Pick<ConversationRun, "user_model_failure"> & { user_model_error?: string } = {},
  ): ConversationRun => {
    const conversation: ConversationRecord = {
      stop_reason: stop,
      user_model: { connection: user.connection, model: user.model },
      user_turns,
      usage: { agent: usageTotals(turns), user_model: usageTotals(user_turns) },
      ...(extra.user_model_error === undefined ? {} : { user_model_error: extra.user_model_error }),
    };
    return {
      stop_reason: last?.stop_reason ?? null,
      final_answer,
      approval_requests,
      refused_calls,
      messages,
      turns,
      ...(last?.model_failure ? { model_failure: last.model_failure } : {}),
      ...(last?.harness_error === undefined ? {} : { harness_error: last.harness_error }),
      ...(extra.user_model_failure ? { user_model_failure: extra.user_model_failure } : {}),
      conversation,
    };
  };

  for (let turn = 0; turn < user.max_turns; turn++) {
    const step = await askUser(user, messages);
    if (step.turn) user_turns.push(step.turn);
    if (step.kind === "error")
      return finish("user_model_error", {
        ...(step.failure ? { user_model_failure: step.failure } : {}),
        user_model_error: step.error,
      });
    if (step.kind === "stop") return finish("user_stop");

    last = await runAgent({ ...agent, query: step.text, history: messages, used_call_ids: usedIds });
    messages = last.messages;
    turns.push(...last.turns);
    approval_requests.push(...last.approval_requests);
    refused_calls.push(...last.refused_calls);
    if (last.final_answer !== null) final_answer = last.final_answer;
    if (last.stop_reason !== "final_answer") return finish("agent_stop");
  }
  return finish("max_turns");
}
