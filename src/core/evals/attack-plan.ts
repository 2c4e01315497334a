/**
 * The attacked copies of a run's scenarios: for each attack of the suite and each scenario it
 * covers (suite-attacks.ts), the scenario once more under the id `<scenario>@<attack>`, with the
 * attack's function answering from its injection variant and the call the payload asks for added
 * to `forbid`. They are ordinary scenarios to the rest of the run (attempts, queue, verdicts); the
 * `attack` they carry is what scoring/attacks.ts groups them by.
 */
import type { ResolvedDatasetPin } from "../datasets/pin.js";
import type { Problem } from "../json.js";
import type { ScenarioAttack } from "../scoring/attacks.js";
import type { SimulationPlan } from "../simulation/plan.js";
import { coveredScenarios } from "./suite-attacks.js";
import { gradingOf, type ScenarioGrading } from "./end-state-types.js";
import { scenarioPlan } from "./scenario-plan.js";
import type { Scenario, SuiteAttack } from "./suite-types.js";

interface AttackedScenario {
  scenario: Pick<Scenario, "id" | "query" | "expect" | "forbid"> & ScenarioGrading & { attack: ScenarioAttack };
  simulation: SimulationPlan;
}

function attackedScenarioId(scenario: string, attack: string): string {
  return `${scenario}@${attack}`;
}

export function attackedScenarios(
  base: SimulationPlan,
  scenarios: readonly Scenario[],
  attacks: readonly SuiteAttack[],
  /** The scenarios' dataset pins, resolved (scenario-plan.ts). */
  resolved: ReadonlyMap<string, ResolvedDatasetPin> = new Map(),
): { ok: true; scenarios: AttackedScenario[] } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const planned: AttackedScenario[] = [];
  attacks.forEach((attack, index) => {
    for (const scenario of coveredScenarios(attack, scenarios)) {
      const applied = scenarioPlan(
        base,
        {
          ...scenario,
          variants: { ...scenario.variants, [attack.function]: attack.variant },
        },
        resolved,
      );
      if (!applied.ok) {
        for (const problem of applied.problems)
          problems.push({
            path: `/attacks/${index}${problem.path.startsWith("/variants") ? "/variant" : problem.path}`,
            message: problem.message,
          });
        continue;
      }
      planned.push({
        scenario: {
          id: attackedScenarioId(scenario.id, attack.id),
          query: scenario.query,
          ...(scenario.user === undefined ? {} : { user: scenario.user }),
          expect: scenario.expect,
          forbid: [...new Set([...scenario.forbid, attack.target.function])],
          // Utility under attack is judged as without it: the same end state and outputs.
          ...gradingOf(scenario),
          attack: {
            id: attack.id,
            scenario: scenario.id,
            function: attack.function,
            variant: attack.variant,
            target: attack.target,
          },
        },
        simulation: applied.plan,
      });
    }
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, scenarios: planned };
}
