/**
 * A run's progress as one value: what the coordinator writes to its D1 row and what
 * GET /api/runs/:id shows, recomputed from the stored repetition verdicts alone (core/scoring's
 * runVerdict), so a live run and a finished one are read the same way and every figure traces
 * back to repetitions.
 */
import type { RepetitionVerdict } from "../../../core/scoring/repetition-verdict.js";
import { runAttackFigures, type RunAttackFigures } from "../../../core/scoring/attacks.js";
import { runVerdict, type RunVerdict, type RunVerdictName } from "../../../core/scoring/run-verdict.js";
import type { RunStart } from "./run-start.js";
import {
  type ConversationUsage,
  type RunConversationUsage,
  runConversationUsage,
} from "../../../core/evals/conversation-usage.js";

export type RunStatus = "queued" | "running" | "finished" | "cancelled";

export function isRunStatus(value: unknown): value is RunStatus {
  return value === "queued" || value === "running" || value === "finished" || value === "cancelled";
}

/** How a run ended: every repetition reported, it was cancelled, or its deadline passed first. */
export interface RunEnding {
  reason: "completed" | "cancelled" | "deadline";
  /** Repetitions without a result when it ended (cancelled: never run; deadline: recorded as infrastructure errors). */
  missing: Array<{ seq: number; scenario: string; repetition: number }>;
}

export interface RunSummary {
  outcome: RunVerdict;
  /** Attack success rate and utility per attack; null for a suite without attacks. */
  attacks: RunAttackFigures | null;
  ending: RunEnding | null;
  /** Runs with conversation scenarios: the agent's and the user model's calls and tokens, summed apart. */
  conversation_usage?: RunConversationUsage;
}

export interface RunProgress {
  status: RunStatus;
  /** Null until the run has ended (and for a cancelled run without a hard fail: too little ran to gate on). */
  verdict: RunVerdictName | null;
  hard_fail: boolean;
  pass_rate: number | null;
  finished_repetitions: number;
  total_repetitions: number;
  summary: RunSummary;
  started_at: string | null;
  finished_at: string | null;
}

export interface StoredVerdict {
  scenario_index: number;
  repetition: number;
  verdict: RepetitionVerdict;
  /** A conversation's record: each side's calls and tokens (RepetitionRecord.conversation.usage). */
  conversation_usage?: ConversationUsage;
}

interface RunState {
  status: RunStatus;
  started_at: number | null;
  finished_at: number | null;
  ending: RunEnding | null;
}

/** `total` is the run's number of repetitions; `verdicts` those recorded so far. */
export function runProgress(
  start: Pick<RunStart, "scenarios" | "gate" | "calibration">,
  total: number,
  verdicts: readonly StoredVerdict[],
  state: RunState,
): RunProgress {
  const scenarios = start.scenarios.map((scenario, index) => ({
    id: scenario.id,
    attack: scenario.attack,
    repetitions: verdicts
      .filter((v) => v.scenario_index === index)
      .sort((a, b) => a.repetition - b.repetition)
      .map((v) => ({ repetition: v.repetition, verdict: v.verdict })),
  }));
  const outcome = runVerdict(scenarios, start.gate, start.calibration);
  return {
    status: state.status,
    verdict: verdictOf(state.status, outcome),
    hard_fail: outcome.hard_fail,
    pass_rate: outcome.figures.pass_rate,
    finished_repetitions: verdicts.length,
    total_repetitions: total,
    summary: {
      outcome,
      attacks: runAttackFigures(scenarios),
      ending: state.ending,
      ...conversationUsageOf(verdicts),
    },
    started_at: iso(state.started_at),
    finished_at: iso(state.finished_at),
  };
}

function conversationUsageOf(verdicts: readonly StoredVerdict[]): Pick<RunSummary, "conversation_usage"> {
  const usage = runConversationUsage(verdicts.map((v) => v.conversation_usage));
  return usage === null ? {} : { conversation_usage: usage };
}

function verdictOf(status: RunStatus, outcome: RunVerdict): RunVerdictName | null {
  if (status === "finished") return outcome.verdict;
  // A forbidden call that was observed fails the run however little of it ran.
  if (status === "cancelled" && outcome.hard_fail) return "fail";
  return null;
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
