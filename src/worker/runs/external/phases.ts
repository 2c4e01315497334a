/**
 * Where an external agent's repetition stands, read from its slot in the run coordinator: waiting
 * for the agent, done, or out of time. The coordinator decides what to send and when to wake on
 * these; keeping them here puts the external agent's rules in one folder (runs/external).
 */
import type { SlotRow, StoredRun } from "../coordinator/storage.js";
import type { ExternalPhase } from "../coordinator/replies.js";

type AgentSlot = Pick<SlotRow, "job_deadline" | "completed_at" | "timed_out_at">;

/** An external agent's job's deadline has passed without a completion (marked timed out or not yet). */
export function agentTimedOut(slot: AgentSlot, now: number): boolean {
  return slot.job_deadline !== null && slot.job_deadline <= now && slot.completed_at === null;
}

/** An external agent has its job and neither completed nor ran out of time yet. */
export function awaitingAgent(slot: AgentSlot): boolean {
  return slot.job_deadline !== null && slot.completed_at === null && slot.timed_out_at === null;
}

/** What a delivery of an external agent's repetition is to do; null for the built-in runner. */
export function externalPhase(run: StoredRun, slot: AgentSlot, now: number): ExternalPhase | null {
  const agent = run.start.agent;
  if (agent.kind !== "external") return null;
  if (slot.timed_out_at !== null) return { phase: "timed_out", deadline_at: slot.job_deadline ?? slot.timed_out_at };
  if (slot.completed_at !== null) return { phase: "score", deadline_at: slot.job_deadline ?? slot.completed_at };
  return { phase: "send", deadline_at: Math.min(now + agent.timeout_seconds * 1000, run.start.deadline_at) };
}
