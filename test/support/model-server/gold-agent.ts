/**
 * Scripts for conversation suites graded by end state (τ-bench's retail tasks as
 * `npm run import:tau-retail` writes them): an agent that performs each scenario's gold calls in
 * order and states its required outputs, and a user model that answers from the scenario's
 * instruction. Both are plain model-server scripts (README.md beside this file), so the server
 * derives every answer from the conversation it is sent, never from which repetition is running:
 *
 * - The user model is keyed by its system prompt (`query_from: "system"`), which carries the
 *   instruction. Its first message is the instruction itself; once the agent has answered, it ends
 *   the conversation with the stop token.
 * - The agent is keyed by the conversation's first user message, that is, by the instruction the
 *   user said, and answers turn i with the i-th group of gold calls, i being the assistant messages
 *   (one per tool round) already in the request; after the last group, a text answer that states
 *   the scenario's outputs. The calls go one per answer, or as few per answer as fit the suite's
 *   `max_iterations` (a model answer's calls run in order, so the order is kept either way).
 *
 * Used by test/worker/runs/runs.tau-retail.test.ts and scripts/bench/conversations.ts.
 */
import { USER_STOP_TOKEN } from "../../../src/core/evals/conversation-types.js";
import { userSystemPrompt } from "../../../src/core/evals/user-prompt.js";
import type { ModelScript, Turn } from "./script.js";

/** What the scripts read of a scenario of the suite document. */
export interface GoldScenario {
  id: string;
  user: { instruction: string };
  end_state: { gold_calls: ReadonlyArray<{ function: string; arguments: Record<string, unknown> }> };
  outputs?: readonly string[];
}

/** The user model's closing message, after the agent's answer. */
export const USER_THANKS = `Thank you, that is everything. ${USER_STOP_TOKEN}`;

/** The agent's text answer once every gold call is made: the required outputs, stated. */
export function goldFinalAnswer(outputs: readonly string[] = []): string {
  return outputs.length === 0 ? "All done." : `All done. What you asked about: ${outputs.join("; ")}.`;
}

/** The agent's answers for one scenario: its gold calls in order, grouped to fit max_iterations, then the final answer. */
export function goldAgentTurns(scenario: GoldScenario, maxIterations: number): Turn[] {
  const calls = scenario.end_state.gold_calls;
  // The last allowed answer must be the text answer; every earlier one may carry calls.
  const perAnswer = Math.max(1, Math.ceil(calls.length / Math.max(1, maxIterations - 1)));
  const turns: Turn[] = [];
  for (let start = 0; start < calls.length; start += perAnswer) {
    turns.push({
      tool_calls: calls
        .slice(start, start + perAnswer)
        .map((call) => ({ name: call.function, arguments: call.arguments })),
    });
  }
  turns.push({ content: goldFinalAnswer(scenario.outputs) });
  return turns;
}

/**
 * The agent's script: conversations keyed by each scenario's instruction (what the user model says
 * first). Two scenarios may share an instruction only with the same answers (τ-bench's test split
 * has such a pair), since nothing else in the conversation could tell them apart.
 */
export function goldAgentScript(
  scenarios: readonly GoldScenario[],
  options: { max_iterations: number; latency_ms?: number },
): ModelScript {
  const conversations: Record<string, Turn[]> = {};
  for (const scenario of scenarios) {
    const turns = goldAgentTurns(scenario, options.max_iterations);
    const key = scenario.user.instruction;
    const earlier = conversations[key];
    if (earlier !== undefined && JSON.stringify(earlier) !== JSON.stringify(turns))
      throw new Error(`scenario ${scenario.id} shares its instruction with another scenario but not its gold answers`);
    conversations[key] = turns;
  }
  return { ...(options.latency_ms === undefined ? {} : { latency_ms: options.latency_ms }), conversations };
}

/** The user model's script: keyed by its system prompt, it says the instruction, then thanks the agent and stops. */
export function instructedUserScript(
  scenarios: readonly GoldScenario[],
  options: { latency_ms?: number } = {},
): ModelScript {
  const conversations: Record<string, Turn[]> = {};
  for (const scenario of scenarios) {
    const instruction = scenario.user.instruction;
    conversations[userSystemPrompt(instruction)] = [{ content: instruction }, { content: USER_THANKS }];
  }
  return {
    ...(options.latency_ms === undefined ? {} : { latency_ms: options.latency_ms }),
    query_from: "system",
    conversations,
  };
}

/**
 * The model answers one repetition waits for, one after another: the user's opening, the agent's
 * answers (each group of calls, then the text), and the user's closing message.
 */
export function sequentialAnswers(scenario: GoldScenario, maxIterations: number): number {
  return 1 + goldAgentTurns(scenario, maxIterations).length + 1;
}
