/**
 * A repetition's attempt setup as the coordinator hands it to a delivery: the five fields that
 * are the attempt's own, and everything else (its operations and tools, without checked examples)
 * as one piece of JSON text that every repetition of the scenario shares.
 *
 * Why text: the operations are most of a setup (τ-bench retail's 16 are ~50 KB of JSON), and as
 * an object graph the setup was cloned at every RPC it crossed (the claim's reply, the attempt's
 * setup, the gold calls' attempt): 2 to 4 ms of the one thread per crossing. A string crosses as
 * bytes; the coordinator writes the shared text once per scenario plan, the attempt object parses
 * it once, and a delivery parses it only when it needs the object (grading an end state).
 */
import type { AttemptSetup } from "../../../core/simulation/setup.js";

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

/** The whole setup's JSON text, as AttemptObject.setupText takes it. */
export function jobSetupText(setup: JobSetup): string {
  const own = JSON.stringify({
    attempt_id: setup.attempt_id,
    simulation_id: setup.simulation_id,
    tenant_id: setup.tenant_id,
    token_hash: setup.token_hash,
    expires_at: setup.expires_at,
  });
  return `${own.slice(0, -1)},${setup.shared}}`;
}

/** The whole setup as an object (parsed: a caller that only passes it on should use jobSetupText). */
export function parseJobSetup(setup: JobSetup): AttemptSetup {
  // SAFETY: the text is built by jobSetupText from an AttemptSetup's members.
  return JSON.parse(jobSetupText(setup)) as AttemptSetup;
}
