/**
 * Reading the run coordinator's stored rows back: a repetition's record, its entry in the
 * repetitions listing, the rows copied to D1 when the run ends, and what a delivery sets its
 * attempt up from. Pure over StoredRun and SlotRow: the object decides when; this says what.
 */
import type { RunRepetitionRow } from "../../../adapters/d1/runs.js";
import {
  operationsWithoutCheckedExamples,
  type PinnedOperation,
  type PinnedTool,
} from "../../../core/simulation/setup.js";
import { type JobSetup, sharedSetupText } from "./job-setup.js";
import { attemptLeaseEnd } from "./lifetimes.js";
import type { RepetitionEntry } from "./replies.js";
import { parseRecord, type RunStorage, type SlotRow, type StoredRun } from "./storage.js";

/** Rows read per step when copying an ended run's records to D1. */
const COPY_CHUNK = 50;

export function ended(run: StoredRun): boolean {
  return run.status === "finished" || run.status === "cancelled";
}

export function entryOf(run: StoredRun, slot: SlotRow): RepetitionEntry {
  return {
    seq: slot.seq,
    scenario_id: scenarioIdOf(run, slot),
    repetition: slot.repetition,
    attempt_id: slot.attempt_id,
    sends: slot.sends,
    last_error: slot.last_error,
    record: slot.record === null ? null : parseRecord(slot.record),
  };
}

export function scenarioIdOf(run: StoredRun, slot: Pick<SlotRow, "scenario_index">): string {
  return run.start.scenarios[slot.scenario_index]?.id ?? "";
}

/** Every recorded repetition as its D1 row, a chunk at a time (a run may hold thousands). */
export function* repetitionRows(run: StoredRun, storage: RunStorage): Generator<RunRepetitionRow[]> {
  let after = 0;
  for (;;) {
    const slots = storage.slots(after, COPY_CHUNK);
    if (slots.length === 0) return;
    after = slots[slots.length - 1]?.seq ?? after;
    yield slots.flatMap((slot) =>
      slot.record === null || slot.outcome === null
        ? []
        : [
            {
              run_id: run.start.run_id,
              seq: slot.seq,
              tenant_id: run.start.tenant_id,
              scenario_id: scenarioIdOf(run, slot),
              repetition: slot.repetition,
              attempt_id: slot.attempt_id,
              outcome: slot.outcome,
              record: slot.record,
            },
          ],
    );
  }
}

/** A scenario plan's shared setup text (JobSetup.shared); the coordinator caches them. */
type SharedSetupReader = (plan: { operations: number; tools: number }) => string;

/**
 * The slot's attempt setup, for the delivery to make sure of: the attempt's own fields, and the
 * scenario's operations and tools as shared text (job-setup.ts), their definitions without
 * checked examples, which no attempt runs.
 */
export function attemptSetupOf(start: StoredRun["start"], slot: SlotRow, shared: SharedSetupReader): JobSetup {
  const plan = start.attempts.scenarios[slot.scenario_index];
  if (!plan) throw new Error(`the run has no attempt plan for scenario ${slot.scenario_index}`);
  return {
    attempt_id: slot.attempt_id,
    simulation_id: plan.simulation_id,
    tenant_id: start.tenant_id,
    token_hash: slot.token_hash,
    // Spread, so the run's attempts' alarms do not all fire in one instant.
    expires_at: attemptLeaseEnd(start.attempts.expires_at, slot.seq),
    shared: shared(plan),
  };
}

/** JobSetup.shared for a plan's operations and tools (parsed parts), checked examples left out. */
export function sharedSetupOf(operations: unknown, tools: unknown): string {
  // SAFETY: the parts are written only by storage.create, from the JSON text of these lists (start-run.ts).
  return sharedSetupText(operationsWithoutCheckedExamples(operations as PinnedOperation[]), tools as PinnedTool[]);
}
