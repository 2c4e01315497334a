/**
 * Required outputs, matched as τ-bench matches a task's `outputs`: a fact is stated when it is a
 * substring of one of the agent's answers, ignoring case, with commas removed. τ-bench removes the
 * commas from the answer only, so a fact written with a comma ("1,093.34") can never match there;
 * here they are removed from the fact too, so "1,093.34" and "1093.34" both match "$1,093.34".
 *
 * The agent's answers are what it told the user: each assistant message without tool calls (τ-bench
 * counts only its `respond` actions, and a tool-calling turn is not one), and the final answer. Each
 * answer is searched on its own, as τ-bench does: a fact split across two answers is not stated.
 */
import type { ChatMessage } from "../ports.js";

export interface OutputsResult {
  pass: boolean;
  reason: string;
  /** Each required fact the answers never stated, in the scenario's order. */
  missing: string[];
}

/** Lower case, commas removed: both sides of every comparison. */
export function normalizeOutput(text: string): string {
  return text.toLowerCase().replaceAll(",", "");
}

/** The texts the agent told the user: assistant messages without tool calls, then the final answer. */
export function agentAnswers(messages: readonly ChatMessage[], finalAnswer: string | null): string[] {
  const answers = messages.flatMap((message) =>
    message.role === "assistant" && (message.tool_calls ?? []).length === 0 && message.content !== null
      ? [message.content]
      : [],
  );
  // An external agent may report its final answer without the transcript it came from.
  if (finalAnswer !== null && !answers.includes(finalAnswer)) answers.push(finalAnswer);
  return answers;
}

export function missingOutputs(outputs: readonly string[], answers: readonly string[]): string[] {
  const normalized = answers.map(normalizeOutput);
  return outputs.filter((output) => {
    const fact = normalizeOutput(output);
    return !normalized.some((answer) => answer.includes(fact));
  });
}

export function gradeOutputs(outputs: readonly string[], answers: readonly string[]): OutputsResult {
  const missing = missingOutputs(outputs, answers);
  const pass = missing.length === 0;
  return {
    pass,
    reason: pass
      ? `Every required output is stated (${outputs.length}).`
      : `The answers never state ${missing.map((fact) => JSON.stringify(fact)).join(", ")}.`,
    missing,
  };
}
