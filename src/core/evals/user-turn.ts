/**
 * One turn of the simulated user: the user model is asked for its next message on the conversation
 * so far, and its answer is read as a message for the agent, the end of the conversation (the stop
 * token), or the user model's failure. Both ways a conversation is held share this step: the
 * built-in agent's loop (conversation-loop.ts) and an external agent's turns, relayed by toolproof
 * (external-conversation.ts), so the user is played by the same rules whoever the agent is.
 */
import type { ChatMessage, ModelFailure } from "../ports.js";
import type { UserModelInputs, UserTurn } from "./conversation-types.js";
import { endsConversation, userModelMessages } from "./user-prompt.js";

export type UserStep =
  /** A message for the agent. */
  | { kind: "message"; turn: UserTurn; text: string }
  /** The user ended the conversation (USER_STOP_TOKEN); the turn is kept, never sent to the agent. */
  | { kind: "stop"; turn: UserTurn }
  /**
   * The user model failed (`failure`, and no turn), or answered no text (its turn kept): an
   * infrastructure error for the repetition, never the agent's fail.
   */
  | { kind: "error"; turn?: UserTurn; error: string; failure?: ModelFailure };

/** What the user model needs for a turn: who it plays and where it runs (not how many turns are left). */
export type UserTurnInputs = Pick<UserModelInputs, "client" | "connection" | "parameters" | "instruction">;

/**
 * Asks the user model for its next message. `conversation` is the agent's side of it so far (its
 * system prompt and tool traffic, if any, are dropped by userModelMessages).
 */
export async function askUser(user: UserTurnInputs, conversation: readonly ChatMessage[]): Promise<UserStep> {
  const result = await user.client.chat({
    messages: userModelMessages(user.instruction, conversation),
    ...user.parameters,
  });
  if (!result.ok) return { kind: "error", error: result.failure.message, failure: result.failure };
  const { answer } = result;
  const turn: UserTurn = {
    content: answer.content,
    latency_ms: answer.latency_ms,
    usage: answer.usage,
    finish_reason: answer.finish_reason,
  };
  const text = answer.content;
  if (text === null || text.trim() === "")
    return {
      kind: "error",
      turn,
      error: `the user model's connection "${user.connection}" answered no text (finish reason ${answer.finish_reason ?? "none"})`,
    };
  if (endsConversation(text)) return { kind: "stop", turn };
  return { kind: "message", turn, text };
}
