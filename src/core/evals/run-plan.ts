/**
 * Planning a run of a suite: which revision of which operation every repetition pins, under which
 * variant, from which starting state, and what the model is shown. Pure: the library is read
 * through the ToolLibrary port, as simulation planning reads it.
 *
 * Pins are taken once per run, by one planSimulation of the agent's tools: every scenario and every
 * repetition uses the same revisions. A scenario's `variants` and `initial_state` then change only
 * its copy of the plan (which variant answers, which state the tool starts from), never what is
 * pinned, so a scenario can ask how the agent behaves when the finance system has lost the invoice
 * without running against another fixture revision. Each repetition gets its own attempt (the
 * caller sets one up per repetition from its scenario's plan), so no repetition sees another's state.
 *
 * Refusals are planSimulation's (same kinds, same API error codes as POST /api/simulations), with
 * paths into the suite document: /agent/tools/<i>/... for the tools, /scenarios/<i>/... for a
 * scenario's variants or initial_state the pinned plan cannot honour.
 */
import { setOwn } from "../contract/values.js";
import { cloneJson, pointer, type JsonObject, type Problem } from "../json.js";
import type { ChatTool } from "../ports.js";
import { pinnedRecord, planSimulation, type PlanInputs, type PlanRefusal, type SimulationPlan, type ToolEntry } from "../simulation/plan.js";
import type { PinnedRecord } from "../simulation/setup.js";
import type { Scenario, Suite, SuiteTool } from "./suite-types.js";

/** Where the agent's tools sit in a suite document: every tool refusal's path starts here. */
export const SUITE_TOOLS_PATH = "/agent/tools";

export interface ScenarioPlan {
  scenario: Pick<Scenario, "id" | "query" | "expect" | "forbid">;
  /** The run's pins with this scenario's variants and starting state: what each of its attempts is set up with. */
  simulation: SimulationPlan;
  /** What the run record keeps of this scenario's pins (pointers to revisions; inline tools whole). */
  pinned: PinnedRecord[];
}

export interface RunPlan {
  scenarios: ScenarioPlan[];
  /** The functions the model is offered: name, the operation's description, its input schema. The same for every scenario. */
  tools: ChatTool[];
}

export type RunPlanResult = { ok: true; plan: RunPlan } | { ok: false; refusal: PlanRefusal };

/** The suite's agent tools as simulation entries (the suite's fields are already checked by parseSuite). */
export function suiteToolEntries(tools: readonly SuiteTool[]): ToolEntry[] {
  return tools.map((tool): ToolEntry => {
    if ("inline" in tool) return { inline: tool.inline, variant: tool.variant };
    return { tool_id: tool.tool_id, operation_id: tool.operation_id, variant: tool.variant };
  });
}

export async function planRun(suite: Suite, inputs: PlanInputs): Promise<RunPlanResult> {
  const planned = await planSimulation(suiteToolEntries(suite.agent.tools), inputs, SUITE_TOOLS_PATH);
  if (!planned.ok) return planned;
  const base = planned.plan;

  const problems: Problem[] = [];
  const scenarios = suite.scenarios.map((scenario, index) => {
    const simulation = scenarioSimulation(base, scenario, `/scenarios/${index}`, problems);
    return {
      scenario: { id: scenario.id, query: scenario.query, expect: scenario.expect, forbid: scenario.forbid },
      simulation,
      pinned: simulation.operations.map(pinnedRecord),
    };
  });
  if (problems.length > 0) return { ok: false, refusal: { kind: "invalid_request", problems } };
  return { ok: true, plan: { scenarios, tools: chatTools(base) } };
}

/** The functions of a plan as the model sees them. */
export function chatTools(plan: SimulationPlan): ChatTool[] {
  return plan.operations.map((op) => ({ name: op.function_name, description: op.description, parameters: op.input_schema }));
}

/**
 * The base plan with one scenario's variants and starting-state overrides applied; anything the
 * pinned plan cannot honour (a function it does not pin, a variant its definition lacks, a tool it
 * does not have) is added to `problems`.
 */
function scenarioSimulation(base: SimulationPlan, scenario: Scenario, at: string, problems: Problem[]): SimulationPlan {
  const variants = scenario.variants ?? {};
  const functionNames = base.operations.map((op) => op.function_name);
  for (const name of Object.keys(variants)) {
    if (!functionNames.includes(name)) problems.push({ path: `${at}${pointer("variants", name)}`, message: `no pinned function "${name}" (the agent has ${functionNames.join(", ")})` });
  }
  const operations = base.operations.map((op) => {
    const variant = Object.hasOwn(variants, op.function_name) ? variants[op.function_name] : undefined;
    if (variant === undefined) return op;
    if (!Object.hasOwn(op.definition.variants, variant)) {
      const where = op.revision === null ? "the inline definition" : `revision ${op.revision}`;
      problems.push({
        path: `${at}${pointer("variants", op.function_name)}`,
        message: `unknown variant "${variant}": ${where} of ${op.function_name} defines ${Object.keys(op.definition.variants).join(", ")}`,
      });
      return op;
    }
    return { ...op, variant };
  });

  const overrides = scenario.initial_state ?? {};
  const toolNames = base.tools.map((tool) => tool.tool_name);
  for (const name of Object.keys(overrides)) {
    if (!toolNames.includes(name)) problems.push({ path: `${at}${pointer("initial_state", name)}`, message: `no pinned tool "${name}" (the agent has ${toolNames.join(", ")})` });
  }
  const tools = base.tools.map((tool) => {
    const override = Object.hasOwn(overrides, tool.tool_name) ? overrides[tool.tool_name] : undefined;
    return override === undefined ? tool : { ...tool, initial_state: withFields(tool.initial_state, override) };
  });
  return { operations, tools };
}

/** The pinned state with the override's top-level fields replacing its own (a new object; neither input changes). */
function withFields(state: JsonObject, override: JsonObject): JsonObject {
  const merged = cloneJson(state);
  for (const [key, value] of Object.entries(override)) setOwn(merged, key, cloneJson(value));
  return merged;
}
