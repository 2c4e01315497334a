/**
 * A delivery's claim on a repetition, decided over its slot: refused while the repetition has its
 * record or another delivery (or an external agent) holds it, else the job the delivery runs,
 * assembled from the stored run. The object claims the slot and stores what the claim changes;
 * these only decide and assemble.
 */
import type { ExternalConversation } from "../../../core/evals/external-conversation.js";
import { awaitingAgent } from "../external/phases.js";
import { attemptSetupOf, sharedSetupOf } from "./records.js";
import type { ClaimReply, ExternalPhase, RunJob, RunScenario } from "./replies.js";
import type { RunStorage, SlotRow, StoredRun } from "./storage.js";

/** Why a delivery may not take the repetition now, or null when it may. */
export function claimRefusal(slot: SlotRow, now: number, repetitionTimeoutMs: number): ClaimReply | null {
  if (slot.record !== null) return { kind: "done" };
  // An external agent has its job and its own deadline: nothing is sent again while it works.
  if (awaitingAgent(slot)) return { kind: "busy" };
  if (slot.claimed_at !== null && now - slot.claimed_at < repetitionTimeoutMs) return { kind: "busy" };
  return null;
}

/** What the claim gave the delivery, beside the stored run and slot. */
interface Claimed {
  /** The claim's number (1 for the first delivery that claimed the repetition). */
  claim: number;
  scenario: RunScenario;
  external: ExternalPhase | null;
  held: { conversation?: ExternalConversation };
}

/** The job a delivery that claimed the slot runs. */
export function jobOf(run: StoredRun, slot: SlotRow, claimed: Claimed, parts: SharedParts): RunJob {
  const { start } = run;
  return {
    run_id: start.run_id,
    tenant_id: start.tenant_id,
    seq: slot.seq,
    scenario: claimed.scenario,
    repetition: slot.repetition,
    attempt_id: slot.attempt_id,
    token_hash: slot.token_hash,
    claim: claimed.claim,
    agent: start.agent,
    judge: start.judge,
    ...(start.user_model ? { user_model: start.user_model } : {}),
    ...(claimed.external ? { external: claimed.external } : {}),
    ...claimed.held,
    setup: attemptSetupOf(start, slot, (plan) => parts.setupText(plan)),
  };
}

/** The run's shared parts (RunAttemptPlans.shared), each parsed on first use and kept: once per instance, not per claim. */
export class SharedParts {
  private readonly parsed = new Map<number, unknown>();
  private readonly texts = new Map<string, string>();

  constructor(private readonly storage: RunStorage) {}

  /** A plan's JobSetup.shared text, written once per instance for each pair of parts. */
  setupText(plan: { operations: number; tools: number }): string {
    const key = `${plan.operations}/${plan.tools}`;
    let text = this.texts.get(key);
    if (text === undefined) {
      text = sharedSetupOf(this.get(plan.operations), this.get(plan.tools));
      this.texts.set(key, text);
    }
    return text;
  }

  /** A part that is missing is an error the delivery retries. */
  get(idx: number): unknown {
    const cached = this.parsed.get(idx);
    if (cached !== undefined) return cached;
    const part = this.storage.part(idx);
    if (part === undefined) throw new Error(`the run has no shared part ${idx}`);
    this.parsed.set(idx, part);
    return part;
  }
}
