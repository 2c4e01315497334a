/**
 * A run's repetition gets its attempt when a delivery first claims it, not when the run starts:
 * then only the repetitions being worked on have an attempt object, however large the run
 * (workerd's memory is the high-water mark of what was alive at once, so a run that set up its
 * 1,000 attempts at the start kept the memory of 1,000 objects).
 *
 * The object first, D1's attempt row after, as the run's start does for the simulation rows: an
 * object whose row was never written is reachable by no one and retires itself after its lease.
 * Both steps are idempotent (the object's setup answers ok for the attempt it already holds, the
 * row is inserted only if absent), so a delivery that died between them is simply repeated.
 *
 * One case must not be set up again: an attempt whose object lost its storage after an earlier
 * delivery set it up. A fresh object would hide the lost calls, so the repetition runs into the
 * missing attempt as before (a harness failure, retried, then a dead letter). The first claim needs
 * no check; a later one sets up only when D1 holds no row yet, i.e. no delivery got that far.
 */
import { databaseOf } from "../../../adapters/d1/database.js";
import { findAttempt, insertAttemptIfAbsent } from "../../../adapters/d1/simulations.js";
import { attemptStub } from "../../attempts/access.js";
import type { Env } from "../../platform/env.js";
import { ownFields } from "../../attempts/shared-setups.js";
import type { RunJob } from "../coordinator/replies.js";

/** Makes sure the job's attempt exists before anything runs on it; throws what a retry may fix. */
export async function ensureAttempt(env: Env, job: Pick<RunJob, "claim" | "setup">): Promise<void> {
  // The coordinator hands the setup out without checked examples (coordinator/records.ts).
  const { setup } = job;
  const db = databaseOf(env.DB);
  if (job.claim > 1 && (await findAttempt(db, setup.attempt_id))) return;
  // The shared part as text, passed on unparsed (coordinator/job-setup.ts).
  const reply = await attemptStub(env, setup.attempt_id).setupShared(ownFields(setup), setup.shared);
  if (reply.kind === "conflict") throw new Error(`attempt object refused its setup: ${reply.message}`);
  await insertAttemptIfAbsent(db, {
    id: setup.attempt_id,
    simulationId: setup.simulation_id,
    tenantId: setup.tenant_id,
    token_hash: setup.token_hash,
    expires_at: new Date(setup.expires_at).toISOString(),
  });
}
