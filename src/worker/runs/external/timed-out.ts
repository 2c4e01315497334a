/**
 * An external repetition whose job's deadline passed with no completion, scored by the run
 * coordinator at the run's deadline as a queue delivery would score it (on the attempt's evidence,
 * so a forbidden call still fails the run), for when that deadline leaves no time for a delivery.
 */
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import { conversationOutcome, type ExternalConversation } from "../../../core/evals/external-conversation.js";
import { evaluateExternalRepetition } from "../../../core/evals/evaluate-repetition.js";
import { messageOf } from "../../../core/message-of.js";
import type { ExecutedCall } from "../../../core/scoring/calls.js";
import type { Env } from "../../platform/env.js";
import { schemaValidator } from "../../platform/services.js";
import { evidenceSince } from "../consumer/attempt-ports.js";
import type { SlotRow, StoredRun } from "../coordinator/storage.js";
import { jobStartedAt, timedOutOutcome } from "./job.js";

/**
 * The repetition's record, or (when the evidence cannot be read) the infrastructure error to record
 * instead: the harness's failure, never the agent's. Null when the slot is not an external job.
 */
export async function scoreTimedOut(
  env: Env,
  run: StoredRun,
  slot: SlotRow,
  now: () => number,
  /** A conversation scenario's turns so far: the record keeps them. */
  held: { conversation?: ExternalConversation } = {},
): Promise<{ record: RepetitionRecord } | { missing: string } | null> {
  const agent = run.start.agent;
  const scenario = run.start.scenarios[slot.scenario_index];
  if (agent.kind !== "external" || !scenario || slot.job_deadline === null) return null;
  const deadline = slot.job_deadline;
  let calls: ExecutedCall[];
  try {
    calls = await evidenceSince(env, slot.attempt_id, 0);
  } catch (error) {
    return {
      missing: `its job's deadline (${new Date(deadline).toISOString()}) passed, but the attempt's evidence could not be read to score it: ${messageOf(error)}`,
    };
  }
  const record = await evaluateExternalRepetition({
    scenario,
    repetition: slot.repetition,
    attempt_id: slot.attempt_id,
    tools: agent.tools,
    outcome: timedOutOutcome(deadline),
    executedCalls: async () => calls,
    validator: schemaValidator(),
    // A timed-out repetition is never put to the judge.
    judge: null,
    started_at: jobStartedAt(deadline, agent),
    now,
    ...(held.conversation ? { conversation: conversationOutcome(held.conversation) } : {}),
  });
  return { record };
}
