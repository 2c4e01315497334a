/**
 * One scenario's attempts: the run's plan (pinned once for the whole run) with the scenario's
 * `variants` and `initial_state` applied, so "the finance system has lost the invoice" is the same
 * pinned revisions under another variant, not another pinning. The suite was checked when saved
 * (suite-resolve.ts): every variant exists and every state key is a tool of the agent; should a
 * plan no longer have them, that is reported here rather than applied silently.
 */
import { pinKey, unknownPinMessage, type ResolvedDatasetPin } from "../datasets/pin.js";
import type { Problem } from "../json.js";
import { pointer } from "../json.js";
import type { SimulationPlan } from "../simulation/plan.js";
import type { Scenario } from "./suite-types.js";

type ScenarioPlan = { ok: true; plan: SimulationPlan } | { ok: false; problems: Problem[] };

/**
 * `initial_state` replaces the named top-level fields of the tool's pinned starting state and
 * keeps the others (so overriding `invoices` leaves any other field of the state as pinned).
 * `datasets` replaces a tool's starting state with a stored dataset version, resolved beforehand
 * (`resolved`, keyed by pinKey: the caller reads every scenario's pins in one go).
 */
export function scenarioPlan(
  plan: SimulationPlan,
  scenario: Pick<Scenario, "id" | "variants" | "initial_state" | "datasets">,
  resolved: ReadonlyMap<string, ResolvedDatasetPin> = new Map(),
): ScenarioPlan {
  const problems: Problem[] = [];
  const variants = scenario.variants ?? {};
  const states = scenario.initial_state ?? {};
  for (const [name, variant] of Object.entries(variants)) {
    const op = plan.operations.find((candidate) => candidate.function_name === name);
    if (!op)
      problems.push({
        path: pointer("variants", name),
        message: `scenario "${scenario.id}": the plan pins no function "${name}"`,
      });
    else if (!Object.hasOwn(op.definition.variants, variant))
      problems.push({
        path: pointer("variants", name),
        message: `scenario "${scenario.id}": ${name} has no variant "${variant}"`,
      });
  }
  for (const tool of Object.keys(states)) {
    const pinned = plan.tools.find((candidate) => candidate.tool_name === tool);
    if (!pinned)
      problems.push({
        path: pointer("initial_state", tool),
        message: `scenario "${scenario.id}": the plan has no tool "${tool}"`,
      });
    else if (pinned.dataset)
      // Fields merged over a dataset would be silently lost: its records are read from the base.
      problems.push({
        path: pointer("initial_state", tool),
        message: `scenario "${scenario.id}": tool "${tool}" starts from dataset "${pinned.dataset.name}" version ${pinned.dataset.version}; pin another version with datasets instead`,
      });
  }
  const pins = new Map<string, ResolvedDatasetPin>();
  for (const [tool, pin] of Object.entries(scenario.datasets ?? {})) {
    const path = pointer("datasets", tool);
    const found = resolved.get(pinKey(pin));
    if (!plan.tools.some((candidate) => candidate.tool_name === tool))
      problems.push({ path, message: `scenario "${scenario.id}": the plan has no tool "${tool}"` });
    else if (!found) problems.push({ path, message: `scenario "${scenario.id}": ${unknownPinMessage(pin)}` });
    else pins.set(tool, found);
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    plan: {
      operations: plan.operations.map((op) =>
        Object.hasOwn(variants, op.function_name) ? { ...op, variant: variants[op.function_name] ?? op.variant } : op,
      ),
      tools: plan.tools.map((tool) => {
        const dataset = pins.get(tool.tool_name);
        if (dataset) return { ...tool, initial_state: {}, dataset };
        return Object.hasOwn(states, tool.tool_name)
          ? { ...tool, initial_state: { ...tool.initial_state, ...states[tool.tool_name] } }
          : tool;
      }),
    },
  };
}
