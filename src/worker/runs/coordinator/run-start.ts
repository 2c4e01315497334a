/**
 * What a run is started with: its scenarios, agent, judge and repetition slots, as the coordinator
 * stores them (RunStart) and the attempts' plans. Its own module so that the progress and reply
 * types can both read it without importing each other.
 */
import type { JudgeSpec, ModelParameters, Scenario, UserModelSpec } from "../../../core/evals/suite-types.js";
import { DistinctJson } from "../../../core/distinct-json.js";
import type { ApprovalMode } from "../../../core/policy/types.js";
import type { ChatTool } from "../../../core/ports.js";
import type { PinnedOperation, PinnedTool } from "../../../core/simulation/setup.js";
import { requireListsFit } from "../../attempts/setup-size.js";
import type { ScenarioAttack } from "../../../core/scoring/attacks.js";
import type { CalibrationGate, Gate } from "../../../core/scoring/run-verdict.js";

/** `attack` marks the attacked copy of a scenario (core/evals/attack-plan.ts). */
export type RunScenario = Pick<Scenario, "id" | "query" | "expect" | "forbid" | "end_state" | "outputs" | "user"> & {
  attack?: ScenarioAttack;
};

/** The built-in agent as every repetition of the run runs it. */
export interface RunAgent {
  kind: "builtin";
  connection: string;
  instructions: string;
  parameters: ModelParameters;
  max_iterations: number;
  max_function_calls: number;
  tools: ChatTool[];
  /** Per function name, resolved once when the run started (the suite's modes or its policy's). */
  approval: Record<string, ApprovalMode>;
}

/** An external agent: each repetition POSTs it a signed job (external/job.ts) and waits for its completion. */
export interface RunExternalAgent {
  kind: "external";
  endpoint: string;
  /** The name of the stored agent secret that signs the jobs (the suite's `agent.secret`), looked up per job. */
  secret_name: string;
  timeout_seconds: number;
  /** As the built-in agent's: the judge reads the definitions, the job lists the approval modes. */
  tools: ChatTool[];
  approval: Record<string, ApprovalMode>;
}

export type RunJudge = Pick<JudgeSpec, "connection" | "threshold" | "parameters">;

/** The suite's user model, for its conversation scenarios (core/evals/conversation-loop.ts). */
export type RunUserModel = UserModelSpec;

/** One repetition of the run: which scenario, which attempt. `seq` is its id within the run (1..total). */
export interface RunRepetitionSlot {
  seq: number;
  scenario_index: number;
  repetition: number;
  attempt_id: string;
  /** The attempt's capability token hash: the consumer's calls go through the attempt object with it. */
  token_hash: string;
}

/** Everything the coordinator is created with; it reads nothing else. */
export interface RunStart {
  run_id: string;
  tenant_id: string;
  suite_name: string;
  suite_version: number;
  label: string | null;
  runs_per_scenario: number;
  gate: Required<Pick<Gate, "pass_rate" | "misfire_rate">> & Pick<Gate, "scenario_pass_rate">;
  agent: RunAgent | RunExternalAgent;
  judge: RunJudge | null;
  /** Set when the suite has conversation scenarios: the model that plays their user. */
  user_model?: RunUserModel;
  /** Set when the suite requires a calibrated judge: the requirement as it stood when the run started. */
  calibration?: CalibrationGate;
  scenarios: RunScenario[];
  repetitions: RunRepetitionSlot[];
  /**
   * What each repetition's attempt is set up from, when a delivery first claims it (not at the
   * start: a run's attempts then never all exist at once).
   */
  attempts: RunAttemptPlans;
  /** Epoch milliseconds. */
  created_at: number;
  /** Past this, the run ends with every repetition still missing recorded as an infrastructure error. */
  deadline_at: number;
}

/**
 * The attempts' setup, per scenario (by scenario_index): one simulation each, shared by its repetitions.
 *
 * Why the lists are shared parts: every scenario of a suite usually pins the same operations (with
 * their definitions) and the same tools, and definitions are large (τ-bench's retail environment's
 * are ~700 KB). Inlined per scenario, its 115 tasks made one ~84 MB start: over an RPC's 32 MiB and
 * a Durable Object SQLite value's ~2 MB. So each distinct list is carried once, as its JSON text in
 * `shared`, and a scenario names its lists by index; the coordinator stores each part as a row of
 * its own (storage.ts) and parses it once per instance.
 */
export interface RunAttemptPlans {
  /** Every attempt's lease end, epoch milliseconds: past the run's deadline. */
  expires_at: number;
  /** Each distinct operations list (PinnedOperation[]) and tools list (PinnedTool[]), as JSON text. */
  shared: string[];
  scenarios: RunScenarioPlan[];
}

/** One scenario's simulation, and its operations and tools as indexes into RunAttemptPlans.shared. */
interface RunScenarioPlan {
  simulation_id: string;
  operations: number;
  tools: number;
}

/** The plans as the coordinator keeps them in its run row: the parts are rows of their own. */
export type StoredAttemptPlans = Omit<RunAttemptPlans, "shared">;

/** Builds the plans with each distinct list's JSON text once (a scenario naming it by index). */
export function sharedAttemptPlans(
  expiresAt: number,
  scenarios: ReadonlyArray<{ simulation_id: string; operations: PinnedOperation[]; tools: PinnedTool[] }>,
): RunAttemptPlans {
  const shared = new DistinctJson();
  return {
    expires_at: expiresAt,
    shared: shared.texts,
    scenarios: scenarios.map((scenario) => ({
      simulation_id: scenario.simulation_id,
      operations: shared.indexOf(scenario.operations),
      tools: shared.indexOf(scenario.tools),
    })),
  };
}

/**
 * Refuses (RowTooLarge) a run whose pins one stored row could not hold (requireListsFit), each
 * distinct pair of lists once. `lists` are the scenarios' operations and tools, in the order of
 * `plans.scenarios`.
 */
export function requirePlansFit(
  plans: RunAttemptPlans,
  lists: ReadonlyArray<{ operations: readonly PinnedOperation[]; tools: readonly PinnedTool[] }>,
): void {
  const checked = new Set<string>();
  plans.scenarios.forEach((scenario, i) => {
    const key = `${scenario.operations} ${scenario.tools}`;
    const list = lists[i];
    if (checked.has(key) || !list) return;
    checked.add(key);
    requireListsFit(list.operations, list.tools, {
      operations: plans.shared[scenario.operations] ?? "",
      tools: plans.shared[scenario.tools] ?? "",
    });
  });
}
