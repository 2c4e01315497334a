/**
 * A conversation with an external agent (docs/external-agents.md, "Conversations"): toolproof
 * plays the user and relays the turns. The user model's opening message goes out in the job; the
 * agent POSTs each reply, numbered by the user message it answers, and gets the user's next
 * message back, or the end of the conversation. This module holds the turn rules as pure
 * functions over the conversation so far; where it is stored and how turns are serialised is the
 * run coordinator's business, and the user's turn itself is user-turn.ts's, shared with the
 * built-in agent's loop, so the user is played the same way whoever the agent is.
 *
 * The rules are the built-in conversation's (conversation-loop.ts):
 * - `max_turns` counts the user messages sent to the agent. Once the agent has replied to the
 *   last of them, the conversation ends with `max_turns`, without asking the user model again.
 * - A user message with the stop token ends it (`user_stop`): kept among the user's turns, never
 *   sent to the agent. One in the opening ends it before the agent is sent anything.
 * - The user model failing, or answering no text, ends it with `user_model_error`: an
 *   infrastructure error for the repetition, never the agent's fail.
 * - An agent that completes its attempt while the user still had the floor ended it (`agent_stop`).
 * - A reply posted again with the same text is answered again (a retry after a lost answer); a
 *   different text for a reply already taken, or a reply to a message not sent yet, is refused.
 */
import type { ChatMessage } from "../ports.js";
import type { ConversationRecord, ConversationStopReason, UserTurn } from "./conversation-types.js";
import { usageTotals } from "./conversation-usage.js";
import type { UserStep } from "./user-turn.js";

/**
 * The longest reply an agent may post in one turn: at the most turns a conversation may have, the
 * replies still fit the repetition's record (one SQLite value of at most 2 MB) beside the rest.
 */
export const MAX_AGENT_REPLY_LENGTH = 8_000;

/** An external agent's conversation as toolproof relays it; stored as JSON by the run coordinator. */
export interface ExternalConversation {
  /** The connection (and its model) that plays the user. */
  user_model: ConversationRecord["user_model"];
  /** Every answer of the user model, in order (a stopping or empty last one included). */
  user_turns: UserTurn[];
  /** The user messages sent to the agent: message k (from 1) is user_messages[k - 1]. */
  user_messages: string[];
  /** The agent's replies: replies[k - 1] answers user message k. */
  replies: string[];
  /** Null while the conversation goes on. */
  end: ConversationEnd | null;
}

interface ConversationEnd {
  stop_reason: Exclude<ConversationStopReason, "agent_stop">;
  /** Set with user_model_error: what failed. */
  user_model_error?: string;
}

/** What the agent is answered for a reply: the user's next message, or the end of the conversation. */
export type TurnAnswer =
  | { done: false; turn: number; message: string }
  | { done: true; stop_reason: ConversationEnd["stop_reason"] };

/** Where the agent's reply to user message `turn` leaves the conversation. */
type TakenReply =
  /** Taken: the user model is to be asked for the next message. */
  | { kind: "ask"; conversation: ExternalConversation }
  /** Taken, and the conversation is over (max_turns). */
  | { kind: "answered"; conversation: ExternalConversation; answer: TurnAnswer }
  /** This very reply was taken before: its answer again, or `null` while the user model is still answering it. */
  | { kind: "repeated"; answer: TurnAnswer | null }
  /** The conversation has ended: no reply is taken any more. */
  | { kind: "ended"; stop_reason: ConversationEnd["stop_reason"] }
  /** A reply to a message that is not the one the agent is to answer now; `expected` is, or null while none is. */
  | { kind: "out_of_order"; expected: number | null; reason: string }
  /** A reply to a message answered before, with another text. */
  | { kind: "conflict"; reason: string };

/** The conversation from the user model's first answer (sent to the agent in its job, unless it ended it). */
export function openConversation(user_model: ConversationRecord["user_model"], step: UserStep): ExternalConversation {
  return applyUserStep({ user_model, user_turns: [], user_messages: [], replies: [], end: null }, step);
}

/** The user's turn, added: a message for the agent, or the conversation's end. */
export function applyUserStep(conversation: ExternalConversation, step: UserStep): ExternalConversation {
  const user_turns = step.turn ? [...conversation.user_turns, step.turn] : conversation.user_turns;
  switch (step.kind) {
    case "message":
      return { ...conversation, user_turns, user_messages: [...conversation.user_messages, step.text] };
    case "stop":
      return { ...conversation, user_turns, end: { stop_reason: "user_stop" } };
    case "error":
      return { ...conversation, user_turns, end: { stop_reason: "user_model_error", user_model_error: step.error } };
  }
}

/** The agent's reply to user message `turn`, checked against the conversation so far. */
export function takeReply(
  conversation: ExternalConversation,
  turn: number,
  message: string,
  maxTurns: number,
): TakenReply {
  const { replies, user_messages, end } = conversation;
  if (turn <= replies.length) {
    if (replies[turn - 1] === message) return { kind: "repeated", answer: answerTo(conversation, turn) };
    return {
      kind: "conflict",
      reason: `the reply to user message ${turn} was taken already, with another text: a reply is posted once (the same text again is answered again)`,
    };
  }
  if (end !== null) return { kind: "ended", stop_reason: end.stop_reason };
  // Waiting for a reply to the last message sent; none is awaited while the user model is answering.
  const expected = replies.length < user_messages.length ? user_messages.length : null;
  if (turn !== expected)
    return {
      kind: "out_of_order",
      expected,
      reason:
        expected === null
          ? `user message ${turn} has not been sent: the user's answer to reply ${replies.length} is still being made`
          : `expected the reply to user message ${expected} (the last one sent), got ${turn}`,
    };
  const taken = { ...conversation, replies: [...replies, message] };
  if (turn >= maxTurns) {
    const ended: ExternalConversation = { ...taken, end: { stop_reason: "max_turns" } };
    return { kind: "answered", conversation: ended, answer: { done: true, stop_reason: "max_turns" } };
  }
  return { kind: "ask", conversation: taken };
}

/** What the agent's reply to user message `turn` is answered with; null while the user model has not answered it. */
export function answerTo(conversation: ExternalConversation, turn: number): TurnAnswer | null {
  const next = conversation.user_messages[turn];
  if (next !== undefined) return { done: false, turn: turn + 1, message: next };
  if (conversation.end !== null && conversation.replies.length === turn)
    return { done: true, stop_reason: conversation.end.stop_reason };
  return null;
}

/** The conversation as the agent's side saw it, user and assistant messages in order. */
export function conversationMessages(conversation: ExternalConversation): ChatMessage[] {
  const messages: ChatMessage[] = [];
  conversation.user_messages.forEach((content, index) => {
    messages.push({ role: "user", content });
    const reply = conversation.replies[index];
    if (reply !== undefined) messages.push({ role: "assistant", content: reply });
  });
  return messages;
}

/** What scoring keeps of an external conversation: its record, its transcript, and the agent's last reply. */
export interface ExternalConversationOutcome {
  record: ConversationRecord;
  messages: ChatMessage[];
  last_reply: string | null;
}

/**
 * The conversation as a repetition records it. The agent's side counts no model calls: an external
 * agent's model is its own, and toolproof never sees its calls (only the replies it posted).
 */
export function conversationOutcome(conversation: ExternalConversation): ExternalConversationOutcome {
  const { end } = conversation;
  const record: ConversationRecord = {
    stop_reason: end?.stop_reason ?? "agent_stop",
    user_model: conversation.user_model,
    user_turns: conversation.user_turns,
    usage: { agent: usageTotals([]), user_model: usageTotals(conversation.user_turns) },
    ...(end?.user_model_error === undefined ? {} : { user_model_error: end.user_model_error }),
  };
  return {
    record,
    messages: conversationMessages(conversation),
    last_reply: conversation.replies.at(-1) ?? null,
  };
}
