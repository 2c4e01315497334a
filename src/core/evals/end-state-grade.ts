/**
 * Grading a repetition by its outcome (issue 22): the end state through a port onto the attempts
 * (the consumer answers it from the attempt Durable Objects, the real engine), the required
 * outputs from the transcript. The rules live here and in scoring/; the port only reaches attempts.
 *
 * The expectation is τ-bench's: the scenario's gold calls are replayed, in order, on a fresh
 * attempt set up exactly as the repetition's (same pins, variants and starting state), and the
 * state they reach is what the agent's attempt must end in. A gold call that does not come back as
 * a result (a tool input error, a harness error, a refusal) means the expectation could not be
 * built: a harness error, so the repetition is `error`, never the agent's pass or fail.
 *
 * The repetitions of a scenario expect the same state, so a port that says what its fresh attempt
 * is set up from lets them share one replay (gold-replays.ts): the replay is keyed by that setup
 * and by the gold calls themselves, which together are everything the state depends on.
 */
import type { JsonObject } from "../json.js";
import type { ChatMessage } from "../ports.js";
import { type EndStateResult, gradeEndState } from "../scoring/end-state.js";
import { agentAnswers, gradeOutputs, type OutputsResult } from "../scoring/outputs.js";
import type { ToolDispatcher } from "./agent-types.js";
import type { EndStateSpec, GoldCall, ScenarioGrading } from "./end-state-types.js";
import type { GoldReplays, Replayed } from "./gold-replays.js";

/** A fresh attempt the gold calls are replayed on. */
export interface GoldAttempt {
  attempt_id: string;
  dispatcher: ToolDispatcher;
  /** Its state now, per tool. */
  state(): Promise<JsonObject>;
}

export interface EndStatePort {
  /**
   * The repetition's attempt: the state it started from and its state now, per tool
   * (`{"<tool>": state}`), or why its state cannot be graded (an earlier delivery changed it).
   */
  states(): Promise<{ ok: true; initial: JsonObject; final: JsonObject } | { ok: false; message: string }>;
  /** A fresh attempt set up as the repetition's was. */
  goldAttempt(): Promise<GoldAttempt>;
  /**
   * Where repetitions share their replay of the gold calls, and `setup`: a text that names, between
   * repetitions, everything goldAttempt()'s attempt starts from (pins, variants, definitions,
   * starting states, datasets), and nothing that differs per repetition without changing the state
   * (its id, token, lease). Equal texts must mean equal setups; unequal texts for equal setups
   * only cost another replay. Without it, each repetition replays on its own fresh attempt.
   */
  sharing?: { setup: string; replays: GoldReplays };
}

/** What a runner hands evaluateRepetition beside RepetitionInputsForRun for scenarios with `end_state`. */
export interface EndStateInputs {
  /** The attempts behind the end state: the repetition's state, a fresh attempt for the gold calls. */
  endState?: EndStatePort;
}

type EndStateGrade = { ok: true; result: EndStateResult } | { ok: false; harness_error: string };

export async function gradeScenarioEndState(spec: EndStateSpec, port: EndStatePort): Promise<EndStateGrade> {
  const gold = spec.gold_calls === undefined ? Promise.resolve(null) : sharedReplay(spec.gold_calls, port);
  const [states, replayed] = await Promise.all([port.states(), gold]);
  if (!states.ok) return { ok: false, harness_error: states.message };
  if (replayed !== null && !replayed.ok) return { ok: false, harness_error: replayed.message };
  return {
    ok: true,
    result: gradeEndState({
      initial: states.initial,
      actual: states.final,
      ...(replayed === null ? {} : { gold: { state: replayed.state, attempt_id: replayed.attempt_id } }),
      ...(spec.assert === undefined ? {} : { assert: spec.assert }),
    }),
  };
}

/**
 * The gold calls' replay, shared with every repetition whose port names the same setup and whose
 * scenario makes the same calls: the state is a function of exactly those two (the engine reads no
 * clock, random source, attempt id or token), so the key holds both and nothing else. The calls
 * are keyed by their JSON: the same scenario's calls always give the same text.
 */
function sharedReplay(calls: readonly GoldCall[], port: EndStatePort): Promise<Replayed> {
  if (port.sharing === undefined) return replayGold(calls, port);
  const key = `${port.sharing.setup}\n${JSON.stringify(calls)}`;
  return port.sharing.replays.shared(key, () => replayGold(calls, port));
}

/** The gold calls one after another (each may read what the one before wrote), then the state they left. */
async function replayGold(calls: readonly GoldCall[], port: Pick<EndStatePort, "goldAttempt">): Promise<Replayed> {
  const attempt = await port.goldAttempt();
  for (const [index, call] of calls.entries()) {
    const answer = await attempt.dispatcher.call(call.function, call.arguments, `gold-${index + 1}`);
    if (answer.kind !== "result") {
      const kind = answer.kind === "harness_error" ? "a harness error" : "a tool input error";
      return {
        ok: false,
        message: `gold call ${index + 1} of ${calls.length}, ${call.function}(${JSON.stringify(call.arguments)}), did not replay on attempt ${attempt.attempt_id}: ${kind}: ${answer.message}; the expected end state cannot be built (fix the scenario's gold calls)`,
      };
    }
  }
  return { ok: true, state: await attempt.state(), attempt_id: attempt.attempt_id };
}

/** The outputs' grade from what the agent told the user; null for a scenario without outputs. */
export function scenarioOutputs(
  scenario: ScenarioGrading,
  messages: readonly ChatMessage[],
  finalAnswer: string | null,
): OutputsResult | null {
  const outputs = scenario.outputs ?? [];
  if (outputs.length === 0) return null;
  return gradeOutputs(outputs, agentAnswers(messages, finalAnswer));
}
