/**
 * The attempts behind a scenario's end state (core/evals/end-state-grade.ts), over the attempt
 * Durable Object, so the expectation is computed by the same engine that answered the agent:
 *
 * - The repetition's own attempt: its state now (the object's snapshot), and the state it started
 *   from (the pinned starting state of each tool, the scenario's initial_state applied).
 * - A fresh attempt for the gold calls, set up exactly as the repetition's (same pins, variants and
 *   starting state) under a new id and token, in the same simulation: its D1 row is written like
 *   any attempt's, so its evidence is flushed, readable (GET /api/attempts/:id/evidence with an
 *   API key), kept and deleted with the run's other attempts. The repetitions of a scenario that
 *   this isolate grades share one (core/evals/gold-replays.ts, keyed by goldSetupKey), so a run
 *   sets up one per scenario rather than one per repetition. Only the replay that set an attempt
 *   up ever calls it: other repetitions, and a redelivery, wait for the state it reaches, or set up
 *   a fresh attempt of their own when that replay failed or is no longer held, so no gold call is
 *   ever replayed onto a state an earlier replay left.
 *
 * A delivery that runs a repetition again runs it on the same attempt: when an earlier delivery's
 * calls changed the state, the end state is not this delivery's alone, and it is not graded (a
 * harness error), rather than graded on a state the agent did not leave.
 *
 * A tool that starts from a stored dataset is graded on its data, not on what the attempt's
 * snapshot shows of it (the pin and the list of changed records, in the order the calls first
 * touched them): its starting state is the dataset itself, and its state now is the dataset with
 * the attempt's record changes applied. So a mismatch or a change is named by its path in the data
 * (`/retail/orders/#W1/address/address2`), and two attempts that changed the same records in a
 * different order are the same state. Both share every untouched record with the isolate's one
 * frozen copy of the dataset, so nothing is copied but the collections a call wrote.
 */
import { databaseOf } from "../../../adapters/d1/database.js";
import { insertAttemptIfAbsent } from "../../../adapters/d1/simulations.js";
import { newId, sha256Hex } from "../../../adapters/crypto.js";
import type { EndStatePort, GoldAttempt } from "../../../core/evals/end-state-grade.js";
import { GoldReplays } from "../../../core/evals/gold-replays.js";
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from "../../../core/json.js";
import { setOwn } from "../../../core/contract/values.js";
import type { ResolvedDatasetPin } from "../../../core/datasets/pin.js";
import { parsePointer } from "../../../core/datasets/pointer.js";
import { applyChanges, type RecordChange } from "../../../core/datasets/records.js";
import { datasetBase } from "../../datasets/base.js";
import type { AttemptSetup } from "../../../core/simulation/setup.js";
import { attemptStub, newAttemptToken } from "../../attempts/access.js";
import { ownFields, sharedSetupOf } from "../../attempts/shared-setups.js";
import { settleForward } from "../../attempts/real/forward.js";
import type { Env } from "../../platform/env.js";
import { type JobSetup, parseJobSetup } from "../coordinator/job-setup.js";
import type { RunJob } from "../coordinator/replies.js";
import { releaseAttempt, toolAnswerOf } from "./attempt-ports.js";

const EVIDENCE_PAGE = 200;
/**
 * Gold replays an isolate holds. A run's repetitions are handed out scenario by scenario, so those
 * of one scenario are graded close together and a few dozen held cover every run in flight; each
 * holds one state, which for a dataset tool shares every untouched record with the isolate's copy
 * of the dataset (only the collections the gold calls wrote are copied).
 */
const GOLD_REPLAYS_HELD = 64;
/** This isolate's, for as long as it lives; the simulation in each key keeps one run's replays from serving another. */
const goldReplays = new GoldReplays(GOLD_REPLAYS_HELD);

/** The port for a job whose scenario has an end state; `afterSeq` is where this delivery's calls start. */
export function endStatePort(env: Env, job: Pick<RunJob, "attempt_id" | "setup">, afterSeq: number): EndStatePort {
  // Parsed here, once: only grading needs the setup as an object (coordinator/job-setup.ts).
  const setup = parseJobSetup(job.setup);
  return {
    async states() {
      const earlier = await earlierStateChanges(env, job.attempt_id, afterSeq);
      if (earlier > 0)
        return {
          ok: false,
          message: `an earlier delivery of this repetition changed its attempt's state (${earlier} of calls 1 to ${afterSeq}), so the end state is not this delivery's alone and is not graded`,
        };
      const [initial, final] = await Promise.all([startingStates(env, setup), stateOf(env, setup, job.attempt_id)]);
      return { ok: true, initial, final };
    },
    async goldAttempt() {
      return freshAttempt(env, job.setup, setup);
    },
    sharing: { setup: goldSetupKey(job.setup), replays: goldReplays },
  };
}

/**
 * What the gold calls' fresh attempt starts from, as a hash: the setup without the three fields
 * that differ per repetition and decide nothing about state (the attempt's id, its token's hash
 * and its lease end). The rest is exactly what the engine's answers and writes depend on: each
 * operation's definition, variant, schemas and real binding, each tool's starting state (its
 * initial_state with the scenario's applied, or a dataset pin that names its content by hash).
 * The simulation is kept in too, though the state does not depend on it: the shared gold attempt
 * must be one of this scenario's own (listed with its simulation, deleted with its run), so no
 * replay is ever shared between two runs, or between two scenarios of a run, each having its own.
 */
function goldSetupKey(setup: JobSetup): string {
  // The shared text by its hash, computed once per isolate with its parse (attempts/shared-setups.ts).
  return sha256Hex(JSON.stringify([setup.simulation_id, setup.tenant_id, sharedSetupOf(setup.shared).hash]));
}

/** Every tool's starting state, `{"<tool>": state}`: its initial_state, or the dataset it starts from. */
async function startingStates(env: Env, setup: Pick<AttemptSetup, "tools" | "tenant_id">): Promise<JsonObject> {
  const state: JsonObject = {};
  for (const tool of setup.tools) {
    // A copy: the setup's initial states are the isolate's, shared by every repetition (shared-setups.ts).
    const start = tool.dataset ? await datasetOf(env, setup.tenant_id, tool.dataset) : cloneJson(tool.initial_state);
    // setOwn: a tool may be called "__proto__" (as the attempt's own snapshot allows).
    setOwn(state, tool.tool_name, start);
  }
  return state;
}

/** The attempt's state now, `{"<tool>": state}`, a dataset tool's as its data (the comment at the top). */
async function stateOf(
  env: Env,
  setup: Pick<AttemptSetup, "tools" | "tenant_id">,
  attemptId: string,
): Promise<JsonObject> {
  const reply = await attemptStub(env, attemptId).snapshot();
  if (reply.kind !== "ok") throw new Error(`attempt ${attemptId} holds no attempt`);
  const state = reply.snapshot.state;
  for (const tool of setup.tools) {
    if (!tool.dataset) continue;
    const shown = Object.hasOwn(state, tool.tool_name) ? state[tool.tool_name] : undefined;
    const base = await datasetOf(env, setup.tenant_id, tool.dataset);
    setOwn(state, tool.tool_name, applyChanges(base, recordChanges(tool.tool_name, shown)));
  }
  return state;
}

async function datasetOf(env: Env, tenantId: string, pin: ResolvedDatasetPin): Promise<JsonObject> {
  return (await datasetBase(env, tenantId, pin)).value;
}

/**
 * The record changes a dataset tool's snapshot lists (`{dataset, changes: [{pointer, value} |
 * {pointer, removed: true}]}`, attempts/dataset-state.ts); anything else is a broken attempt, thrown
 * so the repetition is retried rather than graded on a state that was misread.
 */
function recordChanges(tool: string, shown: JsonValue | undefined): RecordChange[] {
  const changes = isJsonObject(shown) ? shown.changes : undefined;
  if (!Array.isArray(changes)) throw new Error(`the attempt showed no record changes for dataset tool "${tool}"`);
  return changes.map((change) => {
    const parsed = isJsonObject(change) && typeof change.pointer === "string" ? parsePointer(change.pointer) : null;
    const [collection, record, ...deeper] = parsed?.ok ? parsed.tokens : [];
    if (!isJsonObject(change) || collection === undefined || deeper.length > 0)
      throw new Error(`dataset tool "${tool}" showed a record change that is not one: ${JSON.stringify(change)}`);
    return change.removed === true || change.value === undefined
      ? { collection, record: record ?? null }
      : { collection, record: record ?? null, value: change.value };
  });
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

/**
 * An attempt set up like `shared` under a new id and token (`setup` is the same setup, parsed);
 * what throws here is retried with the message.
 */
async function freshAttempt(env: Env, shared: JobSetup, setup: AttemptSetup): Promise<GoldAttempt> {
  const attempt_id = newId("att");
  const token_hash = sha256Hex(newAttemptToken());
  const reply = await attemptStub(env, attempt_id).setupShared(
    ownFields({ ...shared, attempt_id, token_hash }),
    shared.shared,
  );
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
      const state = await stateOf(env, setup, attempt_id);
      // Done with it: its evidence goes to D1 now and the object leaves memory.
      await releaseAttempt(env, job);
      return state;
    },
  };
}
