import { describe, expect, it } from "vitest";
import { runConversationUsage } from "../../../src/core/evals/conversation-usage.js";

const totals = (calls: number, prompt: number, completion: number, without = 0) => ({
  calls,
  prompt_tokens: prompt,
  completion_tokens: completion,
  calls_without_usage: without,
});

describe("runConversationUsage", () => {
  it("sums each side apart over the repetitions that held a conversation", () => {
    expect(
      runConversationUsage([
        { agent: totals(3, 300, 60), user_model: totals(2, 150, 20) },
        undefined,
        { agent: totals(1, 90, 10, 1), user_model: totals(1, 80, 5) },
      ]),
    ).toEqual({ repetitions: 2, agent: totals(4, 390, 70, 1), user_model: totals(3, 230, 25) });
  });

  it("is null for a run without conversations", () => {
    expect(runConversationUsage([undefined, undefined])).toBeNull();
  });
});
