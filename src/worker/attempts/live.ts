/**
 * The attempt as its object holds it in memory between calls (storage stays the source of truth),
 * built once from storage, and what it shows of itself: the snapshot and the tool listing.
 */
import { indexTargets, type TargetIndex } from "../../core/simulation/target.js";
import type { AttemptSetup } from "../../core/simulation/setup.js";
import { isAttemptStatus, type AttemptStatus } from "../../core/simulation/status.js";
import type { Env } from "../platform/env.js";
import type { AttemptSnapshot, ToolListing } from "./replies.js";
import { sharedOperation } from "./shared-operations.js";
import type { AttemptStorage, StoredAttempt } from "./storage.js";
import { storedCompletion } from "./stored-values.js";
import { ToolStates } from "./tool-states.js";

export interface Live {
  setup: AttemptSetup;
  index: TargetIndex;
  /** Some operation is real: only then can a call be out at a real handler (the forwards table). */
  hasReal: boolean;
  tools: ToolStates;
  status: AttemptStatus;
  expiresAt: number;
  leaseEnded: boolean;
  completed: boolean;
  nextSeq: number;
}

/** The attempt as storage holds it; its operations share one copy per isolate (shared-operations.ts). */
export function liveOf(stored: StoredAttempt, storage: AttemptStorage, env: Pick<Env, "DATASETS">): Live {
  const setup = stored.setup;
  setup.operations = setup.operations.map(sharedOperation);
  return {
    setup,
    index: indexTargets(setup.operations, setup.tools),
    hasReal: setup.operations.some((op) => op.real),
    tools: new ToolStates(setup.tools, setup.tenant_id, storage, env),
    status: isAttemptStatus(stored.status) ? stored.status : "harness_failed",
    expiresAt: stored.expiresAt,
    leaseEnded: stored.leaseEnded,
    completed: stored.completed,
    nextSeq: stored.maxSeq + 1,
  };
}

/** Status, state and counts as they are now (the caller has noticed a lease end first). */
export function snapshotOf(live: Live, storage: AttemptStorage): AttemptSnapshot {
  const counts = storage.counts();
  const completion = storage.readCompletion();
  return {
    id: live.setup.attempt_id,
    simulation_id: live.setup.simulation_id,
    status: live.status,
    state: live.tools.all(),
    calls: counts.calls,
    tool_input_errors: counts.tool_input_errors,
    harness_errors: counts.harness_errors,
    ...(live.hasReal ? storage.realCounts() : {}),
    expires_at: new Date(live.expiresAt).toISOString(),
    lease_ended: live.leaseEnded,
    completion: completion === null ? null : storedCompletion(completion),
  };
}

/** The pinned tools as MCP tools/list shows them. */
export function toolListing(setup: AttemptSetup): ToolListing[] {
  return setup.operations.map((op) => ({
    function_name: op.function_name,
    tool_name: op.tool_name,
    operation_id: op.operation_id,
    description: op.description,
    input_schema: op.input_schema,
    output_schema: op.output_schema,
    annotations: op.annotations,
  }));
}
