/**
 * A repetition's attempt setup as the coordinator hands it to a delivery: the five fields that
 * are the attempt's own, and everything else (its operations and tools, without checked examples)
 * as one piece of JSON text that every repetition of the scenario shares.
 *
 * Why text: the operations are most of a setup (τ-bench retail's 16 are ~50 KB of JSON), and as
 * an object graph the setup was cloned at every RPC it crossed (the claim's reply, the attempt's
 * setup, the gold calls' attempt): 2 to 4 ms of the one thread per crossing. A string crosses as
 * bytes; the coordinator writes the shared text once per scenario plan, and the attempt objects and
 * the deliveries that grade an end state parse each distinct text once per isolate
 * (attempts/shared-setups.ts).
 */
import type { AttemptSetup } from "../../../core/simulation/setup.js";
import { setupOf, sharedSetupOf } from "../../attempts/shared-setups.js";

export interface JobSetup {
  attempt_id: string;
  simulation_id: string;
  tenant_id: string;
  token_hash: string;
  /** Epoch milliseconds. */
  expires_at: number;
  /** `"operations":[...],"tools":[...]`: the setup's other members, as JSON text without the braces. */
  shared: string;
}

/** The setup's members other than the attempt's own, as JobSetup.shared holds them. */
export function sharedSetupText(operations: unknown, tools: unknown): string {
  return `"operations":${JSON.stringify(operations)},"tools":${JSON.stringify(tools)}`;
}

/** The whole setup as an object, its shared part parsed once per isolate (attempts/shared-setups.ts); only read, never changed. */
export function parseJobSetup(setup: JobSetup): AttemptSetup {
  return setupOf(setup, sharedSetupOf(setup.shared));
}
