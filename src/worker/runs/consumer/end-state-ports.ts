/**
 * The attempts behind a scenario's end state (core/evals/end-state-grade.ts), over the attempt
 * Durable Object, so the expectation is computed by the same engine that answered the agent:
 *
 * - The repetition's own attempt: its state now (the object's snapshot), and the state it started
 *   from (the pinned starting state of each tool, the scenario's initial_state applied).
 * - A fresh attempt for the gold calls, set up exactly as the repetition's (same pins, variants and
 *   starting state) under a new id and token, in the same simulation: its D1 row is written like
 *   any attempt's, so its evidence is flushed, readable (GET /api/attempts/:id/evidence with an
 *   API key), kept and deleted with the run's other attempts. Each delivery sets up its own, so a
 *   redelivery never replays onto a state an earlier one left.
 *
 * A delivery that runs a repetition again runs it on the same attempt: when an earlier delivery's
 * calls changed the state, the end state is not this delivery's alone, and it is not graded (a
 * harness error), rather than graded on a state the agent did not leave.
 */
import { databaseOf } from "../../../adapters/d1/database.js";
import { insertAttemptIfAbsent } from "../../../adapters/d1/simulations.js";
import { newId, sha256Hex } from "../../../adapters/crypto.js";
import type { EndStatePort, GoldAttempt } from "../../../core/evals/end-state-grade.js";
import type { JsonObject } from "../../../core/json.js";
import { setOwn } from "../../../core/contract/values.js";
import type { AttemptSetup } from "../../../core/simulation/setup.js";
import { attemptStub, newAttemptToken } from "../../attempts/access.js";
import { settleForward } from "../../attempts/real/forward.js";
import type { Env } from "../../platform/env.js";
import type { RunJob } from "../coordinator/replies.js";
import { releaseAttempt, toolAnswerOf } from "./attempt-ports.js";

const EVIDENCE_PAGE = 200;

/** The port for a job whose scenario has an end state; `afterSeq` is where this delivery's calls start. */
export function endStatePort(env: Env, job: Pick<RunJob, "attempt_id" | "setup">, afterSeq: number): EndStatePort {
  const setup = job.setup;
  return {
    async states() {
      const earlier = await earlierStateChanges(env, job.attempt_id, afterSeq);
      if (earlier > 0)
        return {
          ok: false,
          message: `an earlier delivery of this repetition changed its attempt's state (${earlier} of calls 1 to ${afterSeq}), so the end state is not this delivery's alone and is not graded`,
        };
      return { ok: true, initial: startingState(setup), final: await stateOf(env, job.attempt_id) };
    },
    async goldAttempt() {
      return freshAttempt(env, setup);
    },
  };
}

/** Every tool's starting state, `{"<tool>": state}`: the shape the attempt's snapshot has. */
export function startingState(setup: Pick<AttemptSetup, "tools">): JsonObject {
  const state: JsonObject = {};
  // setOwn: a tool may be called "__proto__" (as the attempt's own snapshot allows).
  for (const tool of setup.tools) setOwn(state, tool.tool_name, tool.initial_state);
  return state;
}

async function stateOf(env: Env, attemptId: string): Promise<JsonObject> {
  const reply = await attemptStub(env, attemptId).snapshot();
  if (reply.kind !== "ok") throw new Error(`attempt ${attemptId} holds no attempt`);
  return reply.snapshot.state;
}

/** How many of the first `upTo` calls changed the attempt's state. */
async function earlierStateChanges(env: Env, attemptId: string, upTo: number): Promise<number> {
  const stub = attemptStub(env, attemptId);
  let changed = 0;
  let after = 0;
  while (after < upTo) {
    const reply = await stub.calls(after, Math.min(EVIDENCE_PAGE, upTo - after));
    if (reply.kind !== "ok") throw new Error(`attempt ${attemptId} holds no attempt`);
    for (const row of reply.calls) if (row.state_change !== null) changed++;
    const last = reply.calls[reply.calls.length - 1];
    if (!last) break;
    after = last.seq;
  }
  return changed;
}

/** An attempt set up like `setup` under a new id and token; what throws here is retried with the message. */
async function freshAttempt(env: Env, setup: AttemptSetup): Promise<GoldAttempt> {
  const attempt_id = newId("att");
  const token_hash = sha256Hex(newAttemptToken());
  const reply = await attemptStub(env, attempt_id).setup({ ...setup, attempt_id, token_hash });
  if (reply.kind === "conflict") throw new Error(`the gold calls' attempt refused its setup: ${reply.message}`);
  await insertAttemptIfAbsent(databaseOf(env.DB), {
    id: attempt_id,
    simulationId: setup.simulation_id,
    tenantId: setup.tenant_id,
    token_hash,
    expires_at: new Date(setup.expires_at).toISOString(),
  });
  const job = { attempt_id, token_hash };
  const stub = attemptStub(env, attempt_id);
  return {
    attempt_id,
    // Not the agent's dispatcher: no simulated delay is waited out (nobody is being tested on
    // latency here), and a real operation is never called (its effects are not the attempt's state).
    dispatcher: {
      async call(function_name, args, call_id) {
        if (setup.operations.some((op) => op.function_name === function_name && op.real))
          return {
            kind: "harness_error",
            message: `${function_name} runs in real mode: gold calls are replayed on mocks only`,
            recorded: false,
          };
        const request = { tool: function_name, arguments: args, call_id };
        return toolAnswerOf(await settleForward(env, token_hash, await stub.dispatchRequest(token_hash, request)));
      },
    },
    async state() {
      const state = await stateOf(env, attempt_id);
      // Done with it: its evidence goes to D1 now and the object leaves memory.
      await releaseAttempt(env, job);
      return state;
    },
  };
}
