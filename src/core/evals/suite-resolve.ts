/**
 * A parsed suite against the tenant's library and policies, when it is saved: the agent's tools are
 * planned exactly as a simulation plans them (so a suite that saves is one a run can pin, and a
 * refusal carries the simulation's error code, its paths under /agent/tools), and every name the
 * scenarios use is checked against what planning found: `expect`, `forbid` and `variants` keys are
 * the agent's function names, each variant exists in the pinned definition, and `initial_state`
 * keys are the agent's tool names. A named policy must exist and list every function.
 *
 * Pure: the library through the ToolLibrary port, policies through PolicySource.
 */
import { pinKey, unknownPinMessage, type DatasetCatalog } from "../datasets/pin.js";
import { scenarioDatasetPins } from "./scenario-datasets.js";
import { closestName } from "../field-names.js";
import { pointer, type Problem } from "../json.js";
import type { SchemaValidator } from "../ports.js";
import type { ApprovalMode, Policy } from "../policy/types.js";
import type { ToolLibrary } from "../simulation/library.js";
import { planSimulation, type PlanRefusal, type SimulationPlan } from "../simulation/plan.js";
import { checkAttacks } from "./suite-attacks.js";
import { endStateProblems } from "./suite-end-state-parse.js";
import type { RealToolContext } from "../simulation/real-tools.js";
import { suiteApprovals } from "./suite-approvals.js";
import { toolEntry } from "./suite-tools.js";
import type { DraftSuiteTool, SuiteDraft } from "./suite-parse.js";
import type { Suite, SuiteTool } from "./suite-types.js";

/** Reads one of the tenant's stored policies, latest version, parsed. */
export interface PolicySource {
  latest(name: string): Promise<{ version: number; policy: Policy } | undefined>;
}

interface ResolveInputs {
  library: ToolLibrary;
  validator: SchemaValidator;
  policies: PolicySource;
  /** Upstreams and allowlist for tools in real mode (docs/real-tools.md); without it, real mode is refused. */
  real?: RealToolContext | undefined;
  /** The tenant's stored dataset versions; without it, any dataset pin is refused as not found. */
  datasets?: DatasetCatalog | undefined;
}

type SuiteResolution =
  | {
      ok: true;
      /** The suite as stored: library tools by id. */
      suite: Suite;
      /** What a run started now would pin (before any scenario's variants). */
      plan: SimulationPlan;
      /** The policy version whose approval modes were checked, or null without a policy. */
      policy: { name: string; version: number } | null;
      /** Each function's approval mode under that policy (or the entries' modes without one). */
      approval: Record<string, ApprovalMode>;
    }
  | { ok: false; refusal: PlanRefusal };

const TOOLS_PATH = "/agent/tools";

export async function resolveSuite(draft: SuiteDraft, inputs: ResolveInputs): Promise<SuiteResolution> {
  const refuse = (refusal: PlanRefusal): SuiteResolution => ({ ok: false, refusal });

  const named = await toolIdsOfNames(draft.agent.tools, inputs.library);
  if (!named.ok) return refuse({ kind: "not_found", problems: named.problems });
  const tools = named.tools;

  const [planned, policy] = await Promise.all([
    planSimulation(
      tools.map(toolEntry),
      { library: inputs.library, validator: inputs.validator, real: inputs.real, datasets: inputs.datasets },
      TOOLS_PATH,
    ),
    draft.agent.policy === undefined ? Promise.resolve(null) : inputs.policies.latest(draft.agent.policy),
  ]);
  if (!planned.ok) return refuse(planned.refusal);
  if (policy === undefined) {
    const name = draft.agent.policy ?? "";
    return refuse({
      kind: "not_found",
      problems: [{ path: "/agent/policy", message: `no policy named "${name}" (PUT /api/policies/${name} first)` }],
    });
  }

  const suite: Suite = { ...draft, agent: { ...draft.agent, tools } };
  const plan = planned.plan;
  const unknownPins = await unknownScenarioPins(suite, inputs.datasets);
  if (unknownPins.length > 0) return refuse({ kind: "not_found", problems: unknownPins });
  const problems = scenarioProblems(suite, plan);
  const approvals = suiteApprovals(suite, plan.operations, policy?.policy ?? null);
  if (!approvals.ok) problems.push(...approvals.problems);
  if (problems.length > 0 || !approvals.ok) return refuse({ kind: "invalid_request", problems });

  const pinnedPolicy =
    policy === null || draft.agent.policy === undefined ? null : { name: draft.agent.policy, version: policy.version };
  return { ok: true, suite, plan, policy: pinnedPolicy, approval: approvals.approval };
}

async function toolIdsOfNames(
  tools: readonly DraftSuiteTool[],
  library: ToolLibrary,
): Promise<{ ok: true; tools: SuiteTool[] } | { ok: false; problems: Problem[] }> {
  const names = [...new Set(tools.flatMap((tool) => ("tool" in tool ? [tool.tool] : [])))];
  const ids = names.length > 0 ? await library.toolIdsByName(names) : new Map<string, string>();
  const problems: Problem[] = [];
  const resolved: SuiteTool[] = tools.map((tool, index) => {
    if (!("tool" in tool)) return tool;
    const { tool: name, ...rest } = tool;
    const id = ids.get(name);
    if (id === undefined)
      problems.push({
        path: `${TOOLS_PATH}/${index}/tool`,
        message: `no tool named "${name}" (GET /api/tools lists the tenant's tools)`,
      });
    return { tool_id: id ?? "", ...rest };
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, tools: resolved };
}

/** The scenarios' dataset pins that name no stored version, each at /scenarios/<i>/datasets/<tool>. */
async function unknownScenarioPins(suite: Suite, catalog: DatasetCatalog | undefined): Promise<Problem[]> {
  const pins = scenarioDatasetPins(suite.scenarios);
  if (pins.length === 0) return [];
  const found = catalog ? await catalog.resolve(pins) : new Map();
  const problems: Problem[] = [];
  suite.scenarios.forEach((scenario, index) => {
    for (const [tool, pin] of Object.entries(scenario.datasets ?? {}))
      if (!found.has(pinKey(pin)))
        problems.push({ path: `/scenarios/${index}${pointer("datasets", tool)}`, message: unknownPinMessage(pin) });
  });
  return problems;
}

function scenarioProblems(suite: Suite, plan: SimulationPlan): Problem[] {
  const byFunction = new Map(plan.operations.map((op) => [op.function_name, op]));
  const functions = [...byFunction.keys()];
  const toolNames = plan.tools.map((tool) => tool.tool_name);
  const problems: Problem[] = [];
  const unknownFunction = (path: string, name: string): void => {
    const near = closestName(name, functions);
    const hint = near !== undefined ? `did you mean "${near}"?` : `the agent's functions are ${functions.join(", ")}`;
    problems.push({ path, message: `the agent has no function "${name}"; ${hint}` });
  };

  suite.scenarios.forEach((scenario, index) => {
    const path = `/scenarios/${index}`;
    if (typeof scenario.expect === "string") {
      if (!byFunction.has(scenario.expect)) unknownFunction(`${path}/expect`, scenario.expect);
    } else if (scenario.expect !== null) {
      scenario.expect.forEach((name, i) => {
        if (!byFunction.has(name)) unknownFunction(`${path}/expect/${i}`, name);
      });
    }
    scenario.forbid.forEach((name, i) => {
      if (!byFunction.has(name)) unknownFunction(`${path}/forbid/${i}`, name);
    });
    for (const [name, variant] of Object.entries(scenario.variants ?? {})) {
      const at = `${path}${pointer("variants", name)}`;
      const op = byFunction.get(name);
      if (!op) {
        unknownFunction(at, name);
        continue;
      }
      if (!Object.hasOwn(op.definition.variants, variant)) {
        const where = op.revision === null ? "the inline definition" : `revision ${op.revision}`;
        problems.push({
          path: at,
          message: `unknown variant "${variant}": ${where} of ${name} defines ${Object.keys(op.definition.variants).join(", ")}`,
        });
      }
    }
    const stateTools = [
      ...Object.keys(scenario.initial_state ?? {}).map((tool) => ({ field: "initial_state", tool })),
      ...Object.keys(scenario.datasets ?? {}).map((tool) => ({ field: "datasets", tool })),
    ];
    for (const { field, tool } of stateTools) {
      if (toolNames.includes(tool)) continue;
      const near = closestName(tool, toolNames);
      problems.push({
        path: `${path}${pointer(field, tool)}`,
        message: `the agent has no tool "${tool}" (state is kept per tool name, not function name); ${near !== undefined ? `did you mean "${near}"?` : `its tools are ${toolNames.join(", ")}`}`,
      });
    }
    problems.push(...endStateProblems(scenario, path, functions, toolNames));
  });
  checkAttacks(suite.attacks ?? [], plan.operations, problems, unknownFunction);
  return problems;
}
