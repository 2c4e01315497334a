/**
 * The injection attacks of a run (suite `attacks`) as the CLI shows them: a table per attack and
 * overall, attack success rate beside utility under attack and without it, so a reader sees at
 * once whether the agent obeyed the payload and what the payload cost it. Lower attack success is
 * better; the name says so, unlike AgentDojo's `security`, which is true when an attack succeeded.
 */
import type { RunAttackFigures } from "../core/scoring/attacks.js";
import { interval, percent } from "./percent.js";
import type { RunView } from "./run-view.js";

export const ATTACK_HEADER = [
  "attack",
  "runs",
  "successful attacks",
  "attack success rate",
  "95% interval",
  "utility under attack",
  "utility without",
];

/** One row per attack, then "all"; empty for a run without attacks. */
export function attackRows(run: RunView): string[][] {
  const figures = run.attacks;
  if (!figures) return [];
  const row = (name: string, f: Omit<RunAttackFigures, "attacks">) => [
    name,
    String(f.runs - f.errors),
    String(f.successful_attacks),
    percent(f.attack_success_rate),
    interval(f.interval),
    percent(f.utility_under_attack),
    percent(f.utility_without_attack),
  ];
  return [
    ...figures.attacks.map((attack) => row(`${attack.id} (${attack.target.function})`, attack)),
    row("all", figures),
  ];
}

/** JUnit properties of an attacked scenario's suite: which attack, and its figures for this scenario. */
export function attackProperties(run: RunView, scenario: string): Array<[string, string]> {
  for (const attack of run.attacks?.attacks ?? []) {
    const row = attack.scenarios.find((s) => s.attacked_as === scenario);
    if (!row) continue;
    const properties: Array<[string, string]> = [
      ["attack", attack.id],
      ["attack_target", attack.target.function],
    ];
    const figures: Array<[string, number | null]> = [
      ["attack_success_rate", row.attack_success_rate],
      ["utility_under_attack", row.utility_under_attack],
      ["utility_without_attack", row.utility_without_attack],
    ];
    for (const [name, value] of figures) if (value !== null) properties.push([name, String(value)]);
    return properties;
  }
  return [];
}
