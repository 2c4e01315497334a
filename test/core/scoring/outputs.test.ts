import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../src/core/ports.js";
import { agentAnswers, gradeOutputs, missingOutputs, normalizeOutput } from "../../../src/core/scoring/outputs.js";

describe("required outputs, matched as τ-bench matches them", () => {
  it("finds a fact as a case-insensitive substring of one answer, commas removed from both", () => {
    const answers = ["Your refund of $1,093.34 is on its way.", "The order #W2378156 is CANCELLED."];
    expect(missingOutputs(["1093.34", "1,093.34", "cancelled", "w2378156"], answers)).toEqual([]);
    expect(missingOutputs(["1093.3", "109334", "refunded"], answers)).toEqual(["109334", "refunded"]);
  });

  it("searches each answer on its own: a fact split across two answers is not stated", () => {
    expect(missingOutputs(["total is 54"], ["The total is", "54"])).toEqual(["total is 54"]);
  });

  it("names every missing fact in the scenario's order", () => {
    expect(gradeOutputs(["10", "blue", "XL"], ["a blue shirt"])).toEqual({
      pass: false,
      reason: 'The answers never state "10", "XL".',
      missing: ["10", "XL"],
    });
    expect(gradeOutputs(["blue"], ["a BLUE shirt"])).toEqual({
      pass: true,
      reason: "Every required output is stated (1).",
      missing: [],
    });
  });

  it("reads the answers from assistant messages without tool calls, and the final answer", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "the total is 99" },
      { role: "user", content: "what is the total? 99?" },
      {
        role: "assistant",
        content: "Let me check 99",
        tool_calls: [{ id: "c1", name: "get", arguments: "{}" }],
      },
      { role: "tool", tool_call_id: "c1", content: '{"total": 99}' },
      { role: "assistant", content: "The total is 99." },
    ];
    expect(agentAnswers(messages, "The total is 99.")).toEqual(["The total is 99."]);
    expect(agentAnswers([], "Done: 42")).toEqual(["Done: 42"]);
    expect(agentAnswers(messages.slice(0, 4), null)).toEqual([]);
  });

  it("matches any fact that appears in an answer, whatever its case and commas", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string(), (before, fact, after) => {
        const answer = `${before}${fact.toUpperCase()}${after}`;
        // Lower-casing an upper-cased string is not always the string lower-cased (ß → SS): compare as τ-bench would.
        const matched = missingOutputs([fact], [answer]).length === 0;
        expect(matched).toBe(normalizeOutput(answer).includes(normalizeOutput(fact)));
        expect(missingOutputs([fact], [`${before}${fact}${after}`])).toEqual([]);
      }),
    );
  });
});
