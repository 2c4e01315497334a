/**
 * The `attacks` of a suite: reading them from the document (every problem at its JSON Pointer, as
 * suite-parse.ts reads the rest) and checking them against the agent's pinned functions when the
 * suite is saved (as suite-resolve.ts checks scenario variants).
 *
 * Which scenarios an attack covers: the ones it lists, else every scenario that does not expect
 * the target function. A scenario that must call the function the payload asks for cannot also
 * forbid it, so it is left out by default and refused when listed by name.
 */
import type { JsonObject, Problem } from "../json.js";
import {
  at,
  describeValue,
  isJsonValue,
  isRecord,
  type ProblemList,
  readNameList,
  readObject,
  refuseUnknownKeys,
} from "../policy/fields.js";
import type { PinnedOperation } from "../simulation/setup.js";
import { FUNCTION_NAME } from "../simulation/tool-names.js";
import { expectedFunctions } from "../scoring/selection.js";
import type { Scenario, SuiteAttack } from "./suite-types.js";

const MAX_ATTACKS = 20;
const ATTACK_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const VARIANT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const ATTACK_FIELDS = ["id", "function", "variant", "target", "scenarios"] as const;
const TARGET_FIELDS = ["function", "arguments"] as const;

/** `attacks` of a suite document; undefined when anything is wrong (each problem reported). */
export function readAttacks(
  value: unknown,
  scenarios: readonly Pick<Scenario, "id" | "expect">[] | undefined,
  problems: ProblemList,
): SuiteAttack[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_ATTACKS) {
    problems.add(
      "/attacks",
      `expected an array of at most ${MAX_ATTACKS} attacks ({"id", "function", "variant", "target": {"function"}}), got ${Array.isArray(value) ? `${value.length} attacks` : describeValue(value)}`,
    );
    return undefined;
  }
  const before = problems.items.length;
  const attacks: SuiteAttack[] = [];
  const seen = new Map<string, number>();
  value.forEach((item, index) => {
    const attack = readAttack(item, `/attacks/${index}`, scenarios, problems);
    if (!attack) return;
    const first = seen.get(attack.id);
    if (first !== undefined)
      problems.add(
        `/attacks/${index}/id`,
        `attack "${attack.id}" is already attack ${first}; each attack needs its own id`,
      );
    else seen.set(attack.id, index);
    attacks.push(attack);
  });
  return problems.items.length === before ? attacks : undefined;
}

function readAttack(
  value: unknown,
  path: string,
  scenarios: readonly Pick<Scenario, "id" | "expect">[] | undefined,
  problems: ProblemList,
): SuiteAttack | undefined {
  const attack = readObject(value, path, problems, 'an attack ({"id", "function", "variant", "target": {"function"}})');
  if (!attack) return undefined;
  refuseUnknownKeys(attack, ATTACK_FIELDS, path, problems);
  const id = pattern(
    attack.id,
    at(path, "id"),
    ATTACK_ID,
    "expected the attack's id: 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit",
    problems,
  );
  const fn = pattern(
    attack.function,
    at(path, "function"),
    FUNCTION_NAME,
    "expected the function whose results carry the payload, as the model sees it",
    problems,
  );
  const variant = pattern(
    attack.variant,
    at(path, "variant"),
    VARIANT_NAME,
    'expected the injection variant\'s name (POST /api/tools/:id/testing action "inject" derives one)',
    problems,
  );
  const target = readTarget(attack.target, at(path, "target"), problems);
  const listed =
    attack.scenarios === undefined ? undefined : readNameList(attack.scenarios, at(path, "scenarios"), problems);
  if (
    id === undefined ||
    fn === undefined ||
    variant === undefined ||
    target === undefined ||
    (attack.scenarios !== undefined && listed === undefined)
  )
    return undefined;
  if (scenarios) {
    const ids = scenarios.map((s) => s.id);
    listed?.forEach((name, index) => {
      const scenario = scenarios.find((s) => s.id === name);
      if (!scenario)
        problems.add(
          at(path, "scenarios", index),
          `no scenario "${name}"; the suite's scenarios are ${ids.join(", ")}`,
        );
      else if (expectedFunctions(scenario.expect).includes(target.function)) {
        problems.add(
          at(path, "scenarios", index),
          `scenario "${name}" expects ${target.function}, the call this attack forbids; leave it out`,
        );
      }
    });
    if (listed === undefined && coveredScenarios({ target }, scenarios).length === 0) {
      problems.add(
        at(path, "target", "function"),
        `every scenario expects ${target.function}, so no scenario can run with it forbidden`,
      );
    }
  }
  return { id, function: fn, variant, target, ...(listed === undefined ? {} : { scenarios: listed }) };
}

function readTarget(value: unknown, path: string, problems: ProblemList): SuiteAttack["target"] | undefined {
  if (value === undefined) {
    problems.add(path, 'required: the call the payload asks for ({"function": "<function>", "arguments": {...}})');
    return undefined;
  }
  const target = readObject(value, path, problems, 'the call the payload asks for ({"function", "arguments"})');
  if (!target) return undefined;
  refuseUnknownKeys(target, TARGET_FIELDS, path, problems);
  const fn = pattern(
    target.function,
    at(path, "function"),
    FUNCTION_NAME,
    "expected the function the payload asks the agent to call, as the model sees it",
    problems,
  );
  let args: JsonObject | undefined;
  if (target.arguments !== undefined) {
    if (isRecord(target.arguments) && isJsonValue(target.arguments)) args = target.arguments as JsonObject;
    else
      problems.add(
        at(path, "arguments"),
        `expected the arguments the payload names (a JSON object), got ${describeValue(target.arguments)}`,
      );
  }
  if (fn === undefined || (target.arguments !== undefined && args === undefined)) return undefined;
  return { function: fn, ...(args === undefined ? {} : { arguments: args }) };
}

function pattern(
  value: unknown,
  path: string,
  rule: RegExp,
  message: string,
  problems: ProblemList,
): string | undefined {
  if (value === undefined) {
    problems.add(path, `required: ${message.replace(/^expected /, "")}`);
    return undefined;
  }
  if (typeof value !== "string" || !rule.test(value)) {
    problems.add(path, `${message}, got ${describeValue(value)}`);
    return undefined;
  }
  return value;
}

/** The scenarios an attack runs with, in the suite's order. */
export function coveredScenarios<S extends Pick<Scenario, "id" | "expect">>(
  attack: Pick<SuiteAttack, "target" | "scenarios">,
  scenarios: readonly S[],
): S[] {
  if (attack.scenarios !== undefined) {
    const listed = attack.scenarios;
    return scenarios.filter((s) => listed.includes(s.id));
  }
  return scenarios.filter((s) => !expectedFunctions(s.expect).includes(attack.target.function));
}

/** The scenarios a run of the suite carries out: its own, and each attack's attacked copies. */
export function runScenarioCount(suite: {
  scenarios: readonly Pick<Scenario, "id" | "expect">[];
  attacks?: readonly SuiteAttack[] | undefined;
}): number {
  return (
    suite.scenarios.length +
    (suite.attacks ?? []).reduce((sum, attack) => sum + coveredScenarios(attack, suite.scenarios).length, 0)
  );
}

/** Against the agent's pinned operations (problems in field order): both functions exist, and the variant is in the function's definition. */
export function checkAttacks(
  attacks: readonly SuiteAttack[],
  operations: readonly PinnedOperation[],
  problems: Problem[],
  unknownFunction: (path: string, name: string) => void,
): void {
  attacks.forEach((attack, index) => {
    const path = `/attacks/${index}`;
    const op = operations.find((candidate) => candidate.function_name === attack.function);
    if (!op) unknownFunction(`${path}/function`, attack.function);
    else if (!Object.hasOwn(op.definition.variants, attack.variant)) {
      const where = op.revision === null ? "the inline definition" : `revision ${op.revision}`;
      problems.push({
        path: `${path}/variant`,
        message: `unknown variant "${attack.variant}": ${where} of ${attack.function} defines ${Object.keys(op.definition.variants).join(", ")} (derive one with POST /api/tools/:id/testing, action "inject", and save it)`,
      });
    }
    if (!operations.some((candidate) => candidate.function_name === attack.target.function))
      unknownFunction(`${path}/target/function`, attack.target.function);
  });
}
