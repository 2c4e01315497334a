/**
 * Planning a run of a suite: which revision of which operation every repetition pins, under which
 * variant, from which starting state, and what the model is shown. Pure: the library is read
 * through the ToolLibrary port, as simulation planning reads it.
 *
 * Pins are taken once per run, by one planSimulation of the agent's tools: every scenario and every
 * repetition uses the same revisions. A scenario's `variants` and `initial_state` then change only
 * its copy of the plan (scenario-plan.ts), never what is pinned. Each repetition gets its own
 * attempt (the caller sets one up per repetition from its scenario's plan), so no repetition sees
 * another's state.
 *
 * Refusals are planSimulation's (same kinds, same API error codes as POST /api/simulations), with
 * paths into the suite document: /agent/tools/<i>/... for the tools, /scenarios/<i>/... for a
 * scenario's variants or initial_state the pinned plan no longer has (the suite was checked when
 * saved, but a tool can change after).
 */
import type { Problem } from "../json.js";
import type { ChatTool } from "../ports.js";
import { scenarioDatasetPins } from "./scenario-datasets.js";
import {
  pinnedRecords,
  planSimulation,
  type PlanInputs,
  type PlanRefusal,
  type SimulationPlan,
} from "../simulation/plan.js";
import type { PinnedOperation, PinnedRecord } from "../simulation/setup.js";
import type { ScenarioAttack } from "../scoring/attacks.js";
import { attackedScenarios } from "./attack-plan.js";
import { gradingOf, type ScenarioGrading } from "./end-state-types.js";
import { scenarioPlan } from "./scenario-plan.js";
import { suiteToolEntries } from "./suite-tools.js";
import type { Scenario, Suite } from "./suite-types.js";

/** Where the agent's tools sit in a suite document: every tool refusal's path starts here. */
const SUITE_TOOLS_PATH = "/agent/tools";

interface ScenarioRunPlan {
  /** `attack` is set on the attacked copy of a scenario (attack-plan.ts). */
  scenario: Pick<Scenario, "id" | "query" | "expect" | "forbid" | "user"> &
    ScenarioGrading & { attack?: ScenarioAttack };
  /** The run's pins with this scenario's variants and starting state: what each of its attempts is set up with. */
  simulation: SimulationPlan;
  /** What the run record keeps of this scenario's pins (pointers to revisions; inline tools whole). */
  pinned: PinnedRecord[];
}

interface RunPlan {
  /** The pinned operations before any scenario's variants (for approval modes: the same functions in every scenario). */
  operations: PinnedOperation[];
  scenarios: ScenarioRunPlan[];
  /** The functions the model is offered, the same for every scenario; the judge is shown the same definitions. */
  tools: ChatTool[];
}

type RunPlanResult = { ok: true; plan: RunPlan } | { ok: false; refusal: PlanRefusal };

export async function planRun(
  suite: Pick<Suite, "agent" | "scenarios" | "attacks">,
  inputs: PlanInputs,
): Promise<RunPlanResult> {
  const planned = await planSimulation(suiteToolEntries(suite), inputs, SUITE_TOOLS_PATH);
  if (!planned.ok) return planned;
  const base = planned.plan;
  const pins = scenarioDatasetPins(suite.scenarios);
  const resolved = pins.length > 0 && inputs.datasets ? await inputs.datasets.resolve(pins) : new Map();

  const problems: Problem[] = [];
  const scenarios: ScenarioRunPlan[] = [];
  suite.scenarios.forEach((scenario, index) => {
    const applied = scenarioPlan(base, scenario, resolved);
    if (!applied.ok) {
      for (const problem of applied.problems)
        problems.push({ path: `/scenarios/${index}${problem.path}`, message: problem.message });
      return;
    }
    scenarios.push({
      scenario: {
        id: scenario.id,
        query: scenario.query,
        expect: scenario.expect,
        forbid: scenario.forbid,
        ...gradingOf(scenario),
        ...(scenario.user === undefined ? {} : { user: scenario.user }),
      },
      simulation: applied.plan,
      pinned: pinnedRecords(applied.plan),
    });
  });
  const attacked = attackedScenarios(base, suite.scenarios, suite.attacks ?? [], resolved);
  if (!attacked.ok) problems.push(...attacked.problems);
  else for (const copy of attacked.scenarios) scenarios.push({ ...copy, pinned: pinnedRecords(copy.simulation) });
  if (problems.length > 0) return { ok: false, refusal: { kind: "invalid_request", problems } };
  return { ok: true, plan: { operations: base.operations, scenarios, tools: chatTools(base) } };
}

/** The functions of a plan as the model sees them: function name, the operation's description, its input schema. */
function chatTools(plan: SimulationPlan): ChatTool[] {
  return plan.operations.map((op) => ({
    name: op.function_name,
    description: op.description,
    parameters: op.input_schema,
  }));
}
