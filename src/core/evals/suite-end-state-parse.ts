/**
 * A scenario's outcome fields (issue 22), read beside the rest of the scenario by suite-parse.ts:
 * `end_state` (gold calls, assertions, or both) and `outputs`. Shape only, every problem at its
 * field; whether each gold call names one of the agent's functions and each assertion one of its
 * tools needs the pinned plan, and is checked when the suite is saved (endStateProblems below,
 * called from suite-resolve.ts).
 */
import { closestName } from "../field-names.js";
import type { JsonObject, JsonValue, Problem } from "../json.js";
import {
  at,
  describeValue,
  isJsonValue,
  isRecord,
  type ProblemList,
  readObject,
  readString,
  refuseUnknownKeys,
} from "../policy/fields.js";
import { FUNCTION_NAME } from "../simulation/tool-names.js";
import type { EndStateSpec, GoldCall, ScenarioGrading, StateAssertion } from "./end-state-types.js";

/** The scenario fields this module reads (suite-parse.ts accepts them beside its own). */
export const END_STATE_SCENARIO_FIELDS = ["end_state", "outputs"] as const;

const END_STATE_FIELDS = ["gold_calls", "assert"] as const;
const GOLD_CALL_FIELDS = ["function", "arguments"] as const;
const ASSERT_FIELDS = ["path", "equals"] as const;

/** As many gold calls as one repetition may make (max_function_calls' ceiling). */
const MAX_GOLD_CALLS = 200;
const MAX_ASSERTIONS = 200;
const MAX_OUTPUTS = 50;
const MAX_OUTPUT_LENGTH = 2000;
const MAX_PATH_LENGTH = 2000;

/**
 * The outcome fields of one scenario object; `ok: false` when any is wrong (each reported). Absent
 * fields are left out of `grading`.
 */
export function readScenarioGrading(
  scenario: Record<string, unknown>,
  path: string,
  problems: ProblemList,
): { ok: true; grading: ScenarioGrading } | { ok: false } {
  const before = problems.items.length;
  const endState =
    scenario.end_state === undefined ? undefined : readEndState(scenario.end_state, at(path, "end_state"), problems);
  const outputs =
    scenario.outputs === undefined ? undefined : readOutputs(scenario.outputs, at(path, "outputs"), problems);
  if (problems.items.length > before) return { ok: false };
  return {
    ok: true,
    grading: {
      ...(endState === undefined ? {} : { end_state: endState }),
      ...(outputs === undefined || outputs.length === 0 ? {} : { outputs }),
    },
  };
}

function readEndState(value: unknown, path: string, problems: ProblemList): EndStateSpec | undefined {
  const object = readObject(value, path, problems, 'the expected end state ({"gold_calls": [...], "assert": [...]})');
  if (!object) return undefined;
  refuseUnknownKeys(object, END_STATE_FIELDS, path, problems);
  const gold =
    object.gold_calls === undefined ? undefined : readGoldCalls(object.gold_calls, at(path, "gold_calls"), problems);
  const assertions =
    object.assert === undefined ? undefined : readAssertions(object.assert, at(path, "assert"), problems);
  if (object.gold_calls === undefined && object.assert === undefined) {
    problems.add(
      path,
      'expected "gold_calls" (the calls whose end state is the expected one), "assert" (values at paths of the state), or both',
    );
    return undefined;
  }
  if (!gold && object.gold_calls !== undefined) return undefined;
  if (!assertions && object.assert !== undefined) return undefined;
  return { ...(gold ? { gold_calls: gold } : {}), ...(assertions ? { assert: assertions } : {}) };
}

function readGoldCalls(value: unknown, path: string, problems: ProblemList): GoldCall[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_GOLD_CALLS) {
    problems.add(
      path,
      `expected an array of at most ${MAX_GOLD_CALLS} calls ({"function": "<name>", "arguments": {...}}), got ${Array.isArray(value) ? `${value.length} calls` : describeValue(value)}`,
    );
    return undefined;
  }
  const calls: GoldCall[] = [];
  value.forEach((item, index) => {
    const where = at(path, index);
    const call = readObject(item, where, problems, 'a gold call ({"function": "<name>", "arguments": {...}})');
    if (!call) return;
    refuseUnknownKeys(call, GOLD_CALL_FIELDS, where, problems);
    const name = call.function;
    const nameOk = typeof name === "string" && FUNCTION_NAME.test(name);
    if (!nameOk)
      problems.add(
        at(where, "function"),
        `expected a function name as the model sees it (\`<tool>__<operation_id>\` for a tool with several operations), got ${describeValue(name)}`,
      );
    const args = call.arguments === undefined ? {} : call.arguments;
    const argsOk = isRecord(args) && isJsonValue(args);
    if (!argsOk)
      problems.add(
        at(where, "arguments"),
        `expected the call's arguments as a JSON object, got ${describeValue(args)}`,
      );
    // SAFETY: nameOk and argsOk checked both.
    if (nameOk && argsOk) calls.push({ function: name as string, arguments: args as JsonObject });
  });
  return calls.length === value.length ? calls : undefined;
}

function readAssertions(value: unknown, path: string, problems: ProblemList): StateAssertion[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_ASSERTIONS) {
    problems.add(
      path,
      `expected an array of at most ${MAX_ASSERTIONS} assertions ({"path": "/<tool>/...", "equals": <json>}), got ${Array.isArray(value) ? `${value.length} assertions` : describeValue(value)}`,
    );
    return undefined;
  }
  const assertions: StateAssertion[] = [];
  value.forEach((item, index) => {
    const where = at(path, index);
    const assertion = readObject(item, where, problems, 'an assertion ({"path": "/<tool>/...", "equals": <json>})');
    if (!assertion) return;
    refuseUnknownKeys(assertion, ASSERT_FIELDS, where, problems);
    const pointer = readString(assertion.path, at(where, "path"), problems, { maxLength: MAX_PATH_LENGTH });
    const pointerOk = pointer !== undefined && isToolPointer(pointer);
    if (pointer !== undefined && !pointerOk)
      problems.add(
        at(where, "path"),
        `expected a JSON Pointer into the state that starts with the tool's name ("/<tool>/<field>/..."), got ${describeValue(pointer)}`,
      );
    const hasEquals = Object.hasOwn(assertion, "equals");
    if (!hasEquals)
      problems.add(
        at(where, "equals"),
        "required: the value the state must hold at the path (any JSON, null included)",
      );
    else if (!isJsonValue(assertion.equals))
      problems.add(at(where, "equals"), `expected a JSON value, got ${describeValue(assertion.equals)}`);
    if (pointerOk && hasEquals && isJsonValue(assertion.equals))
      assertions.push({ path: pointer, equals: assertion.equals as JsonValue });
  });
  return assertions.length === value.length ? assertions : undefined;
}

/** "/<tool>" or deeper, every "~" an escape (RFC 6901), the tool's name not empty. */
function isToolPointer(pointer: string): boolean {
  return /^\/[^/]+(\/.*)?$/.test(pointer) && !/~[^01]|~$/.test(pointer);
}

function readOutputs(value: unknown, path: string, problems: ProblemList): string[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_OUTPUTS) {
    problems.add(
      path,
      `expected an array of at most ${MAX_OUTPUTS} facts the agent's answers must state, got ${Array.isArray(value) ? `${value.length} facts` : describeValue(value)}`,
    );
    return undefined;
  }
  const outputs: string[] = [];
  value.forEach((item, index) => {
    const fact = readString(item, at(path, index), problems, { nonEmpty: true, maxLength: MAX_OUTPUT_LENGTH });
    if (fact !== undefined) outputs.push(fact);
  });
  return outputs.length === value.length ? outputs : undefined;
}

/** The tool name an assertion's path starts with (its first reference token, unescaped). */
function assertionTool(path: string): string {
  const first = path.slice(1).split("/")[0] ?? "";
  return first.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * Against the pinned plan, when the suite is saved: every gold call names one of the agent's
 * functions, and every assertion's path starts with one of its tools.
 */
export function endStateProblems(
  scenario: ScenarioGrading,
  path: string,
  functions: readonly string[],
  tools: readonly string[],
): Problem[] {
  const problems: Problem[] = [];
  (scenario.end_state?.gold_calls ?? []).forEach((call, index) => {
    if (functions.includes(call.function)) return;
    const near = closestName(call.function, functions);
    problems.push({
      path: at(path, "end_state", "gold_calls", index, "function"),
      message: `the agent has no function "${call.function}"; ${near !== undefined ? `did you mean "${near}"?` : `the agent's functions are ${functions.join(", ")}`}`,
    });
  });
  (scenario.end_state?.assert ?? []).forEach((assertion, index) => {
    const tool = assertionTool(assertion.path);
    if (tools.includes(tool)) return;
    const near = closestName(tool, tools);
    problems.push({
      path: at(path, "end_state", "assert", index, "path"),
      message: `the state has no tool "${tool}" (a path starts with the tool's name, not a function's); ${near !== undefined ? `did you mean "${near}"?` : `its tools are ${tools.join(", ")}`}`,
    });
  });
  return problems;
}
