/**
 * A conversation scenario: instead of one `query`, a user model plays the user from the scenario's
 * written instruction, turn by turn (conversation-loop.ts), until it ends the conversation, the
 * agent stops, or the turn limit is reached. The suite names the user model (its own connection
 * and parameters, apart from the agent's and the judge's); each scenario gives the instruction.
 * docs/evals.md ("Conversations with a simulated user") states the rules for readers of results.
 */
import type { ChatUsage, ModelClient } from "../ports.js";
import type { ModelParameters } from "./suite-types.js";

export type { ScenarioUser, UserModelSpec } from "./suite-types.js";

/** What the user model says, anywhere in its message, to end the conversation (as τ-bench's user does). */
export const USER_STOP_TOKEN = "###STOP###";
/** User messages per conversation when neither the suite nor the scenario says. */
export const DEFAULT_USER_MAX_TURNS = 10;
/** The most user messages a conversation may be given (each can cost the agent max_iterations answers). */
export const MAX_USER_TURNS_LIMIT = 50;
export const MAX_USER_INSTRUCTION_LENGTH = 20_000;

export type ConversationStopReason =
  /** The user model said USER_STOP_TOKEN: it has what it came for, or gave up. */
  | "user_stop"
  /** The user sent its max_turns messages, each answered, without ending the conversation. */
  | "max_turns"
  /** The agent's turn ended otherwise than with an answer to the user (the agent record's stop_reason says how). */
  | "agent_stop"
  /** The user model's endpoint failed, or answered no text: an infrastructure error, never the agent's fail. */
  | "user_model_error";

/** One answer of the user model, with what it cost. */
export interface UserTurn {
  /** What the user model answered (with the stop token when it ended the conversation). */
  content: string | null;
  latency_ms: number;
  usage: ChatUsage | null;
  finish_reason: string | null;
}

/** Model calls and their tokens, one side of the conversation. `calls_without_usage`: calls the endpoint reported no usage for. */
export interface UsageTotals {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  calls_without_usage: number;
}

/** What a repetition's record keeps of its conversation (RepetitionRecord.conversation). */
export interface ConversationRecord {
  stop_reason: ConversationStopReason;
  /** The connection (and its model) that played the user. */
  user_model: { connection: string; model: string };
  /** The user model's answers in order; each but a stopping one was sent to the agent as a user message. */
  user_turns: UserTurn[];
  /** The agent's and the user model's calls, counted apart (the judge's are in the record's judge entry). */
  usage: { agent: UsageTotals; user_model: UsageTotals };
  /** Set with stop_reason "user_model_error": what failed. */
  user_model_error?: string;
}

/** The user side of one conversation run. */
export interface UserModelInputs {
  client: ModelClient;
  connection: string;
  model: string;
  parameters: ModelParameters;
  instruction: string;
  max_turns: number;
}
