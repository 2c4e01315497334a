/** Reaching a run's coordinator: one Durable Object per run, named by the run id. */
import type { Env } from "../../platform/env.js";
import type { RunRpc } from "./replies.js";

export function runStub(env: Env, runId: string): RunRpc {
  // SAFETY: wrangler.toml binds RUNS to RunCoordinator, which implements RunMethods; a stub
  // answers each of those methods with a promise, which is what RunRpc declares.
  return env.RUNS.get(env.RUNS.idFromName(runId)) as unknown as RunRpc;
}
