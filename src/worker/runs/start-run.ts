/**
 * Starting a run of a stored suite version, in the order that leaves nothing half-made behind:
 *
 * 1. Plan (core/evals/run-plan.ts): pins once for the whole run, each scenario's copy with its
 *    variants and starting state; approval modes from the suite or its policy. Refusals are thrown
 *    as API errors before anything is written.
 * 2. D1 records, in one batch: one simulation per scenario (its attempts' evidence is flushed and
 *    read like any attempt's) and the run's row. No attempt exists yet: each repetition's attempt
 *    is set up, with its D1 row, by the delivery that first claims it (evals/attempt-setup.ts),
 *    from the per-scenario plans the coordinator keeps. So the attempts alive at once are bounded
 *    by the consumer's concurrency, not by the run's size, and a run starts in one D1 batch of
 *    1 + scenarios statements whatever its repetitions.
 * 3. The run's coordinator, which arms its watchdog.
 * 4. One queue message per repetition. A send that fails is logged, not fatal: the watchdog
 *    resends every repetition that has gone quiet.
 */
import { datasetCatalog } from "../../adapters/d1/dataset-pins.js";
import { sha256Hex } from "../../adapters/crypto.js";
import type { Database } from "../../adapters/d1/database.js";
import { runInsert, runPinnedColumn } from "../../adapters/d1/runs.js";
import { simulationPinnedText, simulationStatements, toolLibrary } from "../../adapters/d1/simulations.js";
import { planRun } from "../../core/evals/run-plan.js";
import { suiteApprovals } from "../../core/evals/suite-approvals.js";
import type { Clock, Ids } from "../../core/ports.js";
import type { pinnedRecord } from "../../core/simulation/plan.js";
import { newAttemptToken } from "../attempts/access.js";
import type { Env } from "../platform/env.js";
import { sendRepetitions } from "./consumer/messages.js";
import { invalidRequest } from "../http/errors.js";
import { calibrationGate } from "./judge-calibration.js";
import { planRefusalError } from "../http/plan-refusal.js";
import { schemaValidator } from "../platform/services.js";
import { runRealTools } from "./real-tools.js";
import { ATTEMPT_LEASE_MARGIN_MS, DEFAULT_RUN_TIMEOUT_MS, durationSetting } from "./coordinator/lifetimes.js";
import type { RunRepetitionSlot, RunStart } from "./coordinator/replies.js";
import { requirePlansFit, sharedAttemptPlans } from "./coordinator/run-start.js";
import { runStub } from "./coordinator/access.js";
import { externalAttemptToken } from "./external/attempt-token.js";
import { requireExternalAgentReady } from "./external/readiness.js";
import type { StartRunRequest } from "./start-run-request.js";

interface StartRunDeps {
  env: Env;
  db: Database;
  ids: Ids;
  clock: Clock;
  /** Sends the repetitions' messages (the queue; tests can lose them to exercise the watchdog). */
  send?: (runId: string, seqs: readonly number[]) => Promise<void>;
}

export interface StartedRun {
  start: RunStart;
  pinned: Array<{ scenario: string; pinned: ReturnType<typeof pinnedRecord>[] }>;
}

export async function startRun(request: StartRunRequest, deps: StartRunDeps): Promise<StartedRun> {
  const { env, db, ids, clock } = deps;
  const suite = request.suite.document;
  const real = await runRealTools(env, db, request);
  const planned = await planRun(suite, {
    library: toolLibrary(db, request.tenantId),
    validator: schemaValidator(),
    real,
    datasets: datasetCatalog(db, request.tenantId),
  });
  if (!planned.ok) throw planRefusalError(planned.refusal);
  const plan = planned.plan;
  const approvals = suiteApprovals(suite, plan.operations, request.policy);
  if (!approvals.ok) throw invalidRequest(approvals.problems);
  // An external agent's tokens are derived from the deployment secret, so its job can carry one (external/attempt-token.ts).
  const external =
    suite.agent.kind === "external" ? await requireExternalAgentReady(env, db, request.tenantId, suite.agent) : null;
  const calibration = await calibrationGate(db, request.tenantId, request.suite.name, suite.judge);

  const runId = ids.id("run");
  const now = clock.now();
  const deadline = now + durationSetting(env.EVAL_RUN_TIMEOUT_MS, DEFAULT_RUN_TIMEOUT_MS);
  const expiresAt = deadline + ATTEMPT_LEASE_MARGIN_MS;
  const runsPerScenario = request.runsPerScenario ?? suite.runs_per_scenario;

  const slots: Array<RunRepetitionSlot & { simulation_id: string }> = [];
  const simulations = plan.scenarios.map((scenario, scenario_index) => {
    const simulationId = ids.id("sim");
    for (let repetition = 1; repetition <= runsPerScenario; repetition++) {
      slots.push({
        seq: slots.length + 1,
        scenario_index,
        repetition,
        attempt_id: ids.id("att"),
        token_hash: "",
        simulation_id: simulationId,
      });
    }
    return { id: simulationId, scenario };
  });
  for (const slot of slots)
    slot.token_hash = sha256Hex(
      external === null ? newAttemptToken() : await externalAttemptToken(external, slot.attempt_id),
    );

  const pinned = plan.scenarios.map((scenario) => ({ scenario: scenario.scenario.id, pinned: scenario.pinned }));
  const statements = [
    ...simulations.flatMap(({ id, scenario }) =>
      simulationStatements(db, {
        id,
        tenantId: request.tenantId,
        createdBy: request.keyId,
        leaseSeconds: Math.ceil((expiresAt - now) / 1000),
        pinned: simulationPinnedText(scenario.pinned),
        attempts: [],
      }),
    ),
  ];
  const row = runInsert(db, {
    id: runId,
    tenant_id: request.tenantId,
    suite_name: request.suite.name,
    suite_version: request.suite.version,
    label: request.label ?? null,
    status: "queued",
    runs_per_scenario: runsPerScenario,
    total_repetitions: slots.length,
    trigger: JSON.stringify(request.trigger),
    pinned: runPinnedColumn(pinned),
    created_by: request.keyId,
  });
  // Each distinct operations and tools list once (see RunAttemptPlans for why); refused whole,
  // before anything is written, when a stored row could not hold it.
  const lists = simulations.map(({ id, scenario }) => ({
    simulation_id: id,
    operations: scenario.simulation.operations,
    tools: scenario.simulation.tools,
  }));
  const attemptPlans = sharedAttemptPlans(expiresAt, lists);
  requirePlansFit(attemptPlans, lists);
  await db.batch([row, ...statements]);

  const start: RunStart = {
    run_id: runId,
    tenant_id: request.tenantId,
    suite_name: request.suite.name,
    suite_version: request.suite.version,
    label: request.label ?? null,
    runs_per_scenario: runsPerScenario,
    gate: {
      pass_rate: suite.pass_rate,
      misfire_rate: suite.misfire_rate,
      ...(suite.scenario_pass_rate === undefined ? {} : { scenario_pass_rate: suite.scenario_pass_rate }),
    },
    agent:
      suite.agent.kind === "external"
        ? {
            kind: "external",
            endpoint: suite.agent.endpoint,
            secret_name: suite.agent.secret,
            timeout_seconds: suite.agent.timeout_seconds,
            tools: plan.tools,
            approval: approvals.approval,
          }
        : {
            kind: "builtin",
            connection: suite.agent.connection,
            instructions: suite.agent.instructions,
            parameters: suite.agent.parameters,
            max_iterations: suite.agent.max_iterations,
            max_function_calls: suite.agent.max_function_calls,
            tools: plan.tools,
            approval: approvals.approval,
          },
    judge: suite.judge
      ? { connection: suite.judge.connection, threshold: suite.judge.threshold, parameters: suite.judge.parameters }
      : null,
    ...(calibration ? { calibration } : {}),
    ...(suite.user_model ? { user_model: suite.user_model } : {}),
    scenarios: plan.scenarios.map((scenario) => scenario.scenario),
    repetitions: slots.map(({ seq, scenario_index, repetition, attempt_id, token_hash }) => ({
      seq,
      scenario_index,
      repetition,
      attempt_id,
      token_hash,
    })),
    attempts: attemptPlans,
    created_at: now,
    deadline_at: deadline,
  };
  const started = await runStub(env, runId).start(start);
  if (started.kind === "conflict") throw new Error(`run coordinator refused its start: ${started.message}`);

  const send = deps.send ?? ((id: string, seqs: readonly number[]) => sendRepetitions(env.EVAL_QUEUE, id, seqs));
  try {
    await send(
      runId,
      start.repetitions.map((slot) => slot.seq),
    );
  } catch (error) {
    console.error(`sending the repetitions of run ${runId} failed; the watchdog resends them`, error);
  }
  return { start, pinned };
}
