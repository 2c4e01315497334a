/**
 * A run's conversations, counted: each side's model calls and tokens summed over the repetitions
 * that held a conversation (RepetitionRecord.conversation.usage), so the user model's cost is read
 * apart from the agent's in the run's summary as in each repetition.
 */
import type { ChatUsage } from "../ports.js";
import type { ConversationRecord, UsageTotals } from "./conversation-types.js";

export type ConversationUsage = ConversationRecord["usage"];

export interface RunConversationUsage extends ConversationUsage {
  /** The repetitions summed (those that held a conversation). */
  repetitions: number;
}

/** Null when no repetition held a conversation. */
export function runConversationUsage(
  usages: ReadonlyArray<ConversationUsage | undefined>,
): RunConversationUsage | null {
  const held = usages.filter((usage): usage is ConversationUsage => usage !== undefined);
  if (held.length === 0) return null;
  return {
    repetitions: held.length,
    agent: sum(held.map((usage) => usage.agent)),
    user_model: sum(held.map((usage) => usage.user_model)),
  };
}

function sum(totals: readonly UsageTotals[]): UsageTotals {
  return totals.reduce(
    (all, one) => ({
      calls: all.calls + one.calls,
      prompt_tokens: all.prompt_tokens + one.prompt_tokens,
      completion_tokens: all.completion_tokens + one.completion_tokens,
      calls_without_usage: all.calls_without_usage + one.calls_without_usage,
    }),
    { calls: 0, prompt_tokens: 0, completion_tokens: 0, calls_without_usage: 0 },
  );
}

/** One side's model calls, counted (a call the endpoint reported no usage for is counted apart). */
export function usageTotals(calls: ReadonlyArray<{ usage: ChatUsage | null }>): UsageTotals {
  const sum: UsageTotals = { calls: calls.length, prompt_tokens: 0, completion_tokens: 0, calls_without_usage: 0 };
  for (const { usage } of calls) {
    if (usage === null) sum.calls_without_usage++;
    else {
      sum.prompt_tokens += usage.prompt_tokens;
      sum.completion_tokens += usage.completion_tokens;
    }
  }
  return sum;
}
