/**
 * Reads a suite document (already parsed from JSON or YAML) into a SuiteDraft: every field checked,
 * every default filled in, and every problem reported at once with the JSON Pointer of its field.
 * Unknown fields are refused (with a "did you mean"): a misspelt `forbid` would otherwise let the
 * very call it was written to catch pass.
 *
 * What can be decided from the document alone is decided here; what needs the tenant's library or
 * a stored policy (function names, variants, the policy's approval modes) is suite-resolve.ts.
 *
 * Hand-read like policies (core/policy/parse-policy.ts, whose field readers this shares) rather
 * than with zod in the worker: one pass reports shape and meaning problems together, and the same
 * reader serves any offline caller (a CLI, a test of examples/evals/*.yaml) without the worker.
 */
import { readDatasetPin, type DatasetPin } from "../datasets/pin.js";
import type { JsonObject, JsonValue, Problem } from "../json.js";
import { RESOURCE_NAME, RESOURCE_NAME_RULE } from "../names.js";
import { readApprovalMode } from "../policy/approval.js";
import {
  at,
  describeValue,
  isJsonValue,
  isRecord,
  ProblemList,
  readNameList,
  readObject,
  readString,
  refuseUnknownKeys,
} from "../policy/fields.js";
import type { ApprovalMode } from "../policy/types.js";
import type { CalibrationRequirement } from "../scoring/calibration.js";
import type { InlineTool } from "../simulation/plan.js";
import { FUNCTION_NAME } from "../simulation/tool-names.js";
import { MAX_RUNS_PER_SCENARIO, repetitionLimitProblem } from "./run-limits.js";
import { readAttacks, runScenarioCount } from "./suite-attacks.js";
import { END_STATE_SCENARIO_FIELDS, readScenarioGrading } from "./suite-end-state-parse.js";
import { conversationProblems, readScenarioOpening, readUserModel } from "./suite-conversation-parse.js";
import {
  DEFAULT_CALIBRATION,
  DEFAULT_JUDGE_THRESHOLD,
  DEFAULT_MAX_FUNCTION_CALLS,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_RUNS_PER_SCENARIO,
  type BuiltInAgent,
  DEFAULT_EXTERNAL_TIMEOUT_SECONDS,
  type ExternalAgent,
  type JudgeSpec,
  type ModelParameters,
  type Scenario,
  type Suite,
  type SuiteTool,
} from "./suite-types.js";

const DEFAULT_PASS_RATE = 0.9;
const DEFAULT_MISFIRE_RATE = 0.1;
/** The judge scores calls, not prose: sampled the same way every time unless the suite says otherwise. */
export const DEFAULT_JUDGE_TEMPERATURE = 0;

/** τ-bench's retail tasks import as one suite per split (train has 500, the three splits 635): room for them all. */
export const MAX_SCENARIOS = 1000;
/** As many tool entries as a simulation takes. */
const MAX_SUITE_TOOLS = 50;
const MAX_ITERATIONS_LIMIT = 50;
const MAX_FUNCTION_CALLS_LIMIT = 200;
const MAX_QUERY_LENGTH = 20_000;
const MAX_INSTRUCTIONS_LENGTH = 100_000;
const MAX_DESCRIPTION_LENGTH = 4000;
const MAX_ID_LENGTH = 200;

const SCENARIO_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const VARIANT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A library tool named by its name instead of its id: resolved to the id when the suite is saved. */
interface LibraryToolByName {
  tool: string;
  operation_id?: string;
  variant?: string;
  approval_mode?: ApprovalMode;
  mode?: "mock" | "real";
}

export type DraftSuiteTool = SuiteTool | LibraryToolByName;

/** A Suite whose library tools may still be named by name (suite-resolve.ts turns them into ids). */
export type SuiteDraft = Omit<Suite, "agent"> & {
  agent:
    | (Omit<BuiltInAgent, "tools"> & { tools: DraftSuiteTool[] })
    | (Omit<ExternalAgent, "tools"> & { tools: DraftSuiteTool[] });
};

type SuiteParse = { ok: true; suite: SuiteDraft } | { ok: false; problems: Problem[] };

const SUITE_FIELDS = [
  "$schema",
  "description",
  "agent",
  "scenarios",
  "runs_per_scenario",
  "pass_rate",
  "scenario_pass_rate",
  "misfire_rate",
  "judge",
  "attacks",
  "user_model",
] as const;
const AGENT_FIELDS = [
  "kind",
  "connection",
  "parameters",
  "instructions",
  "tools",
  "policy",
  "max_iterations",
  "max_function_calls",
] as const;
const EXTERNAL_AGENT_FIELDS = ["kind", "endpoint", "secret", "tools", "policy", "timeout_seconds"] as const;
/** An external agent's job deadline in seconds: at most the default run timeout (2 hours). */
const MAX_EXTERNAL_TIMEOUT_SECONDS = 7200;
const MIN_EXTERNAL_TIMEOUT_SECONDS = 1;
const MAX_ENDPOINT_LENGTH = 2048;
const PARAMETER_FIELDS = ["temperature", "seed", "max_tokens"] as const;
const LIBRARY_TOOL_FIELDS = ["tool_id", "tool", "operation_id", "variant", "approval_mode", "mode"] as const;
const INLINE_ENTRY_FIELDS = ["inline", "variant", "approval_mode"] as const;
const INLINE_TOOL_FIELDS = [
  "name",
  "operation_id",
  "description",
  "input_schema",
  "output_schema",
  "annotations",
  "testing",
] as const;
const SCENARIO_FIELDS = [
  "id",
  "query",
  "expect",
  "forbid",
  "variants",
  "initial_state",
  "datasets",
  "user",
  ...END_STATE_SCENARIO_FIELDS,
];
const JUDGE_FIELDS = ["connection", "threshold", "parameters", "require_calibration"] as const;
const CALIBRATION_FIELDS = ["min_labels", "min_kappa"] as const;

export function parseSuite(document: unknown): SuiteParse {
  const problems = new ProblemList();
  const root = readObject(document, "", problems, "a suite document");
  if (!root) return { ok: false, problems: problems.items };
  refuseUnknownKeys(root, SUITE_FIELDS, "", problems);
  if (root.$schema !== undefined) readString(root.$schema, "/$schema", problems);
  const description =
    root.description === undefined
      ? undefined
      : readString(root.description, "/description", problems, { maxLength: MAX_DESCRIPTION_LENGTH });

  const agent = readAgent(root.agent, problems);
  const scenarios = readScenarios(root.scenarios, problems);
  const runs = optional(root.runs_per_scenario, DEFAULT_RUNS_PER_SCENARIO, () =>
    readInteger(root.runs_per_scenario, "/runs_per_scenario", 1, MAX_RUNS_PER_SCENARIO, problems),
  );
  const passRate = optional(root.pass_rate, DEFAULT_PASS_RATE, () => readRate(root.pass_rate, "/pass_rate", problems));
  const scenarioPassRate =
    root.scenario_pass_rate === undefined
      ? undefined
      : readRate(root.scenario_pass_rate, "/scenario_pass_rate", problems);
  const misfireRate = optional(root.misfire_rate, DEFAULT_MISFIRE_RATE, () =>
    readMisfireRate(root.misfire_rate, problems),
  );
  const judge = root.judge === undefined ? undefined : readJudge(root.judge, problems);
  const attacks = root.attacks === undefined ? undefined : readAttacks(root.attacks, scenarios, problems);
  const userModel =
    root.user_model === undefined ? undefined : readUserModel(root.user_model, problems, readParameters);
  conversationProblems(root, problems);

  // A suite no run could carry is refused now, as its first run would be (run-limits.ts).
  if (scenarios && runs !== undefined) {
    const tooMany = repetitionLimitProblem(runScenarioCount({ scenarios, attacks }), scenarios.length, runs);
    if (tooMany) problems.add(tooMany.path, tooMany.message);
  }

  // Selection alone decides a scenario that expects no call; every other passing repetition needs a score.
  const needing = root.judge === undefined ? scenariosExpectingCalls(root.scenarios) : [];
  if (needing.length > 0) {
    problems.add(
      "/judge",
      `required: scenarios ${needing.join(", ")} expect calls, and the judge scores the calls that selection lets through ({"connection": "<name>"})`,
    );
  }

  if (
    !problems.isEmpty ||
    !agent ||
    !scenarios ||
    runs === undefined ||
    passRate === undefined ||
    misfireRate === undefined
  )
    return { ok: false, problems: problems.items };
  return {
    ok: true,
    suite: {
      ...(description === undefined ? {} : { description }),
      agent,
      scenarios,
      runs_per_scenario: runs,
      pass_rate: passRate,
      ...(scenarioPassRate === undefined ? {} : { scenario_pass_rate: scenarioPassRate }),
      misfire_rate: misfireRate,
      ...(judge === undefined ? {} : { judge }),
      ...(attacks === undefined || attacks.length === 0 ? {} : { attacks }),
      ...(userModel === undefined ? {} : { user_model: userModel }),
    },
  };
}

function optional<T>(value: unknown, fallback: T, read: () => T | undefined): T | undefined {
  return value === undefined ? fallback : read();
}

// ---------------------------------------------------------------------------------------------
// The agent

function readAgent(value: unknown, problems: ProblemList): SuiteDraft["agent"] | undefined {
  if (value === undefined) {
    problems.add("/agent", 'required: the agent under test ({"connection", "instructions", "tools": [...]})');
    return undefined;
  }
  const agent = readObject(value, "/agent", problems, "the agent under test");
  if (!agent) return undefined;
  if (agent.kind === "external") return readExternalAgent(agent, problems);
  refuseModelFieldsOutsideParameters(agent, AGENT_FIELDS, "/agent", problems);
  if (agent.kind !== undefined && agent.kind !== "builtin")
    problems.add(
      "/agent/kind",
      `expected "builtin" (the built-in runner) or "external" (your agent, sent a job per repetition), got ${describeValue(agent.kind)}`,
    );
  const connection = readReference(
    agent.connection,
    "/agent/connection",
    "the model connection the agent runs on (PUT /api/connections/:name)",
    problems,
  );
  const parameters =
    agent.parameters === undefined ? {} : readParameters(agent.parameters, "/agent/parameters", problems);
  const instructions =
    agent.instructions === undefined
      ? missing("/agent/instructions", "the agent's system prompt", problems)
      : readString(agent.instructions, "/agent/instructions", problems, {
          nonEmpty: true,
          maxLength: MAX_INSTRUCTIONS_LENGTH,
        });
  const policy =
    agent.policy === undefined
      ? undefined
      : readReference(agent.policy, "/agent/policy", "a stored policy (PUT /api/policies/:name)", problems);
  const tools = readTools(agent.tools, agent.policy !== undefined ? (policy ?? "") : undefined, problems);
  const maxIterations = optional(agent.max_iterations, DEFAULT_MAX_ITERATIONS, () =>
    readInteger(agent.max_iterations, "/agent/max_iterations", 1, MAX_ITERATIONS_LIMIT, problems),
  );
  const maxCalls = optional(agent.max_function_calls, DEFAULT_MAX_FUNCTION_CALLS, () =>
    readInteger(agent.max_function_calls, "/agent/max_function_calls", 1, MAX_FUNCTION_CALLS_LIMIT, problems),
  );
  if (
    connection === undefined ||
    !parameters ||
    instructions === undefined ||
    !tools ||
    maxIterations === undefined ||
    maxCalls === undefined
  )
    return undefined;
  if (agent.policy !== undefined && policy === undefined) return undefined;
  return {
    kind: "builtin",
    connection,
    parameters,
    instructions,
    tools,
    ...(policy === undefined ? {} : { policy }),
    max_iterations: maxIterations,
    max_function_calls: maxCalls,
  };
}

/**
 * The team's own agent: where its jobs go and which stored secret signs them. The endpoint's URL
 * rules (scheme, no credentials) are the worker's httpUrlProblems, checked when the suite is saved.
 */
function readExternalAgent(agent: Record<string, unknown>, problems: ProblemList): SuiteDraft["agent"] | undefined {
  refuseUnknownKeys(agent, EXTERNAL_AGENT_FIELDS, "/agent", problems);
  const endpoint =
    agent.endpoint === undefined
      ? missing("/agent/endpoint", "the URL your agent takes jobs at (http or https)", problems)
      : readString(agent.endpoint, "/agent/endpoint", problems, { nonEmpty: true, maxLength: MAX_ENDPOINT_LENGTH });
  const secret = readReference(
    agent.secret,
    "/agent/secret",
    "the stored agent secret that signs the jobs (PUT /api/agent-secrets/:name)",
    problems,
  );
  const policy =
    agent.policy === undefined
      ? undefined
      : readReference(agent.policy, "/agent/policy", "a stored policy (PUT /api/policies/:name)", problems);
  const tools = readTools(agent.tools, agent.policy !== undefined ? (policy ?? "") : undefined, problems);
  const timeout = optional(agent.timeout_seconds, DEFAULT_EXTERNAL_TIMEOUT_SECONDS, () =>
    readInteger(
      agent.timeout_seconds,
      "/agent/timeout_seconds",
      MIN_EXTERNAL_TIMEOUT_SECONDS,
      MAX_EXTERNAL_TIMEOUT_SECONDS,
      problems,
    ),
  );
  if (endpoint === undefined || secret === undefined || !tools || timeout === undefined) return undefined;
  if (agent.policy !== undefined && policy === undefined) return undefined;
  return {
    kind: "external",
    endpoint,
    secret,
    tools,
    ...(policy === undefined ? {} : { policy }),
    timeout_seconds: timeout,
  };
}

/** `policy` is the named policy (or "" when it is named but malformed), undefined without one. */
function readTools(value: unknown, policy: string | undefined, problems: ProblemList): DraftSuiteTool[] | undefined {
  if (value === undefined)
    return missing(
      "/agent/tools",
      'the agent\'s tools ([{"tool": "<name>"}, {"tool_id": "tool_…"}, {"inline": {...}}])',
      problems,
    );
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SUITE_TOOLS) {
    problems.add(
      "/agent/tools",
      `expected an array of 1 to ${MAX_SUITE_TOOLS} tool entries, got ${Array.isArray(value) ? `${value.length} entries` : describeValue(value)}`,
    );
    return undefined;
  }
  const tools: DraftSuiteTool[] = [];
  value.forEach((entry, index) => {
    const tool = readToolEntry(entry, `/agent/tools/${index}`, policy, problems);
    if (tool) tools.push(tool);
  });
  return tools.length === value.length ? tools : undefined;
}

function readToolEntry(
  value: unknown,
  path: string,
  policy: string | undefined,
  problems: ProblemList,
): DraftSuiteTool | undefined {
  const entry = readObject(
    value,
    path,
    problems,
    'a tool entry ({"tool": "<name>"}, {"tool_id": "tool_…"} or {"inline": {...}})',
  );
  if (!entry) return undefined;
  const isInline = entry.inline !== undefined;
  refuseUnknownKeys(entry, isInline ? INLINE_ENTRY_FIELDS : LIBRARY_TOOL_FIELDS, path, problems);
  const variant =
    entry.variant === undefined
      ? undefined
      : readPattern(
          entry.variant,
          at(path, "variant"),
          VARIANT_NAME,
          "expected a variant name (1 to 64 letters, digits, '_', '.' or '-')",
          problems,
        );
  let approval: ApprovalMode | undefined;
  if (entry.approval_mode !== undefined) {
    if (policy !== undefined) {
      // One source of truth: a mode here could only agree with the policy (redundant) or contradict it.
      problems.add(
        at(path, "approval_mode"),
        `the agent names policy "${policy}", whose approval modes are the agent's; remove approval_mode here (or drop agent.policy)`,
      );
    } else approval = readApprovalMode(entry.approval_mode, at(path, "approval_mode"), problems);
  }
  const extras = {
    ...(variant === undefined ? {} : { variant }),
    ...(approval === undefined ? {} : { approval_mode: approval }),
  };
  const failed =
    (entry.variant !== undefined && variant === undefined) ||
    (entry.approval_mode !== undefined && approval === undefined);

  if (isInline) {
    const inline = readInlineTool(entry.inline, at(path, "inline"), problems);
    return inline && !failed ? { inline, ...extras } : undefined;
  }
  if (entry.tool_id !== undefined && entry.tool !== undefined) {
    problems.add(at(path, "tool"), "give either tool (the tool's name) or tool_id (its id), not both");
    return undefined;
  }
  if (entry.tool_id === undefined && entry.tool === undefined) {
    problems.add(
      path,
      'expected "tool" (a library tool\'s name), "tool_id" (its id) or "inline" (an agent-local tool)',
    );
    return undefined;
  }
  const operationId =
    entry.operation_id === undefined
      ? undefined
      : readString(entry.operation_id, at(path, "operation_id"), problems, {
          nonEmpty: true,
          maxLength: MAX_ID_LENGTH,
        });
  const operation: { operation_id?: string; mode?: "mock" | "real" } =
    operationId === undefined ? {} : { operation_id: operationId };
  if (entry.operation_id !== undefined && operationId === undefined) return undefined;
  if (entry.mode !== undefined) {
    if (entry.mode !== "mock" && entry.mode !== "real") {
      problems.add(at(path, "mode"), 'expected "mock" (the default) or "real" (calls go to the tool\'s real handler)');
      return undefined;
    }
    operation.mode = entry.mode;
  }
  if (entry.tool_id !== undefined) {
    const toolId = readString(entry.tool_id, at(path, "tool_id"), problems, {
      nonEmpty: true,
      maxLength: MAX_ID_LENGTH,
    });
    return toolId === undefined || failed ? undefined : { tool_id: toolId, ...operation, ...extras };
  }
  const name = readPattern(
    entry.tool,
    at(path, "tool"),
    FUNCTION_NAME,
    "expected a library tool's name (1 to 64 letters, digits, '_' or '-')",
    problems,
  );
  return name === undefined || failed ? undefined : { tool: name, ...operation, ...extras };
}

/** The shape only: the schemas and the mock definition are checked by planning, as for a simulation. */
function readInlineTool(value: unknown, path: string, problems: ProblemList): InlineTool | undefined {
  const inline = readObject(
    value,
    path,
    problems,
    "an inline tool ({name, description, input_schema, output_schema, testing})",
  );
  if (!inline) return undefined;
  refuseUnknownKeys(inline, INLINE_TOOL_FIELDS, path, problems);
  const nameRule = "expected 1 to 64 letters, digits, '_' or '-'";
  const name =
    inline.name === undefined
      ? missing(at(path, "name"), "the tool's name", problems)
      : readPattern(inline.name, at(path, "name"), FUNCTION_NAME, nameRule, problems);
  const operationId =
    inline.operation_id === undefined
      ? undefined
      : readPattern(inline.operation_id, at(path, "operation_id"), FUNCTION_NAME, nameRule, problems);
  const description =
    inline.description === undefined
      ? missing(at(path, "description"), "what the tool does, as the model reads it", problems)
      : readString(inline.description, at(path, "description"), problems, { maxLength: MAX_DESCRIPTION_LENGTH });
  const input = readSchema(inline.input_schema, at(path, "input_schema"), problems);
  const output = readSchema(inline.output_schema, at(path, "output_schema"), problems);
  const annotations =
    inline.annotations === undefined
      ? undefined
      : readJsonObject(inline.annotations, at(path, "annotations"), problems);
  if (inline.testing === undefined) problems.add(at(path, "testing"), "required: the tool's mock definition");
  if (
    name === undefined ||
    description === undefined ||
    input === undefined ||
    output === undefined ||
    inline.testing === undefined
  )
    return undefined;
  if (
    (inline.operation_id !== undefined && operationId === undefined) ||
    (inline.annotations !== undefined && annotations === undefined)
  )
    return undefined;
  return {
    name,
    ...(operationId === undefined ? {} : { operation_id: operationId }),
    description,
    input_schema: input,
    output_schema: output,
    ...(annotations === undefined ? {} : { annotations }),
    testing: inline.testing,
  };
}

function readSchema(value: unknown, path: string, problems: ProblemList): JsonObject | boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === undefined) return missing(path, "a JSON Schema", problems);
  return readJsonObject(value, path, problems, "a JSON Schema (an object or a boolean)");
}

// ---------------------------------------------------------------------------------------------
// Scenarios

function readScenarios(value: unknown, problems: ProblemList): Scenario[] | undefined {
  if (value === undefined)
    return missing("/scenarios", 'the scenarios ([{"id", "query", "expect", "forbid"}])', problems);
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SCENARIOS) {
    problems.add(
      "/scenarios",
      `expected an array of 1 to ${MAX_SCENARIOS} scenarios, got ${Array.isArray(value) ? `${value.length} scenarios` : describeValue(value)}`,
    );
    return undefined;
  }
  const scenarios: Scenario[] = [];
  const firstIndex = new Map<string, number>();
  value.forEach((item, index) => {
    const path = `/scenarios/${index}`;
    const scenario = readScenario(item, path, problems);
    // Duplicates are looked for even in scenarios with other problems, so one pass shows them all.
    const id = isRecord(item) && typeof item.id === "string" && SCENARIO_ID.test(item.id) ? item.id : undefined;
    const earlier = id === undefined ? undefined : firstIndex.get(id);
    if (id !== undefined && earlier !== undefined) {
      problems.add(
        at(path, "id"),
        `duplicate scenario id "${id}" (already at /scenarios/${earlier}/id): results are reported by id`,
      );
      return;
    }
    if (id !== undefined) firstIndex.set(id, index);
    if (scenario) scenarios.push(scenario);
  });
  return scenarios.length === value.length ? scenarios : undefined;
}

/**
 * The ids of the scenarios that expect calls (expect given and not null), read from the document as
 * sent, except those graded by their outcome (end_state or outputs), which code decides in the judge's place.
 */
function scenariosExpectingCalls(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const ids = value.flatMap((item, index) =>
    isRecord(item) && item.expect !== undefined && item.expect !== null && !gradedInCode(item)
      ? [typeof item.id === "string" ? `"${item.id}"` : `#${index}`]
      : [],
  );
  return [...new Set(ids)];
}

function gradedInCode(scenario: Record<string, unknown>): boolean {
  return scenario.end_state !== undefined || (Array.isArray(scenario.outputs) && scenario.outputs.length > 0);
}

function readScenario(value: unknown, path: string, problems: ProblemList): Scenario | undefined {
  const scenario = readObject(value, path, problems, "a scenario");
  if (!scenario) return undefined;
  refuseUnknownKeys(scenario, SCENARIO_FIELDS, path, problems);
  const id =
    scenario.id === undefined
      ? missing(at(path, "id"), "the scenario's id, which its results are reported under", problems)
      : readPattern(
          scenario.id,
          at(path, "id"),
          SCENARIO_ID,
          "expected 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit",
          problems,
        );
  const opening = readScenarioOpening(scenario, path, problems, (query) =>
    readString(query, at(path, "query"), problems, { nonEmpty: true, maxLength: MAX_QUERY_LENGTH }),
  );
  const expected = readExpect(scenario.expect, at(path, "expect"), problems);
  const forbid = scenario.forbid === undefined ? [] : readFunctionNames(scenario.forbid, at(path, "forbid"), problems);
  const variants =
    scenario.variants === undefined ? undefined : readVariants(scenario.variants, at(path, "variants"), problems);
  const initialState =
    scenario.initial_state === undefined
      ? undefined
      : readInitialState(scenario.initial_state, at(path, "initial_state"), problems);
  const datasets =
    scenario.datasets === undefined ? undefined : readDatasets(scenario.datasets, at(path, "datasets"), problems);
  // A dataset is the tool's whole starting state: there are no pinned fields left to override.
  for (const tool of Object.keys(datasets ?? {}))
    if (initialState && Object.hasOwn(initialState, tool))
      problems.add(
        at(path, "initial_state", tool),
        `tool "${tool}" starts from the dataset this scenario pins (datasets/${tool}); give either initial_state or datasets for it, not both`,
      );

  if (forbid && expected !== undefined && expected !== null) {
    const wanted = typeof expected === "string" ? [expected] : expected;
    forbid.forEach((name, index) => {
      if (wanted.includes(name))
        problems.add(at(path, "forbid", index), `"${name}" is expected in this scenario and cannot also be forbidden`);
    });
  }
  const graded = readScenarioGrading(scenario, path, problems);
  if (id === undefined || opening === undefined || expected === undefined || !forbid) return undefined;
  if ((scenario.variants !== undefined && !variants) || (scenario.initial_state !== undefined && !initialState))
    return undefined;
  if (scenario.datasets !== undefined && !datasets) return undefined;
  if (!graded.ok) return undefined;
  return {
    id,
    ...opening,
    expect: expected,
    forbid,
    ...(variants ? { variants } : {}),
    ...(initialState ? { initial_state: initialState } : {}),
    ...(datasets ? { datasets } : {}),
    ...graded.grading,
  };
}

/** undefined when the field is wrong (reported); null is the explicit "no tool call is correct". */
function readExpect(value: unknown, path: string, problems: ProblemList): string | string[] | null | undefined {
  if (value === undefined) {
    problems.add(
      path,
      "required: the function that must be called, a list of functions that must all be called, or null when no tool call is correct",
    );
    return undefined;
  }
  if (value === null) return null;
  if (typeof value === "string") return readPattern(value, path, FUNCTION_NAME, functionNameRule, problems);
  if (Array.isArray(value) && value.length === 0) {
    problems.add(path, "expected at least one function name; use null when no tool call is correct");
    return undefined;
  }
  if (Array.isArray(value)) return readFunctionNames(value, path, problems);
  problems.add(path, `expected a function name, a list of function names, or null, got ${describeValue(value)}`);
  return undefined;
}

const functionNameRule =
  "expected a function name as the model sees it (1 to 64 letters, digits, '_' or '-'; `<tool>__<operation_id>` for a tool with several operations)";

function readFunctionNames(value: unknown, path: string, problems: ProblemList): string[] | undefined {
  const names = readNameList(value, path, problems);
  if (!names) return undefined;
  let ok = true;
  names.forEach((name, index) => {
    if (!FUNCTION_NAME.test(name)) {
      problems.add(at(path, index), functionNameRule);
      ok = false;
    }
  });
  return ok ? names : undefined;
}

function readVariants(value: unknown, path: string, problems: ProblemList): Record<string, string> | undefined {
  return readKeyed(
    value,
    path,
    'variants by function name ({"<function>": "<variant>"})',
    problems,
    (name, variant, where) => {
      const nameOk = FUNCTION_NAME.test(name);
      if (!nameOk) problems.add(where, functionNameRule);
      const checked = readPattern(
        variant,
        where,
        VARIANT_NAME,
        "expected a variant name (1 to 64 letters, digits, '_', '.' or '-')",
        problems,
      );
      return nameOk ? checked : undefined;
    },
  );
}

function readInitialState(value: unknown, path: string, problems: ProblemList): Record<string, JsonObject> | undefined {
  return readKeyed(
    value,
    path,
    'state overrides by tool name ({"<tool>": {"<field>": ...}})',
    problems,
    (_tool, state, where) =>
      readJsonObject(state, where, problems, "the state fields that replace the tool's initial state's"),
  );
}

function readDatasets(value: unknown, path: string, problems: ProblemList): Record<string, DatasetPin> | undefined {
  return readKeyed(
    value,
    path,
    'dataset pins by tool name ({"<tool>": {"name": "<dataset>", "version": <number>}})',
    problems,
    (_tool, pin, where) => {
      // SAFETY: the suite document came from JSON.parse, so every value in it is a JSON value.
      const read = readDatasetPin(pin as JsonValue, where);
      if ("pin" in read) return read.pin;
      for (const problem of read.problems) problems.add(problem.path, problem.message);
      return undefined;
    },
  );
}

/** An object read key by key; undefined when any entry is wrong (each reported by `read`). */
function readKeyed<T>(
  value: unknown,
  path: string,
  what: string,
  problems: ProblemList,
  read: (key: string, item: unknown, where: string) => T | undefined,
): Record<string, T> | undefined {
  const object = readObject(value, path, problems, what);
  if (!object) return undefined;
  const result: Record<string, T> = {};
  let ok = true;
  for (const [key, item] of Object.entries(object)) {
    const checked = read(key, item, at(path, key));
    if (checked === undefined) ok = false;
    // defineProperty: a function or tool called "__proto__" must be stored as a key, not set a prototype.
    else Object.defineProperty(result, key, { value: checked, enumerable: true, writable: true, configurable: true });
  }
  return ok ? result : undefined;
}

// ---------------------------------------------------------------------------------------------
// The judge and model parameters

function readJudge(value: unknown, problems: ProblemList): JudgeSpec | undefined {
  const judge = readObject(value, "/judge", problems, 'the judge ({"connection": "<name>", "threshold": 4})');
  if (!judge) return undefined;
  refuseModelFieldsOutsideParameters(judge, JUDGE_FIELDS, "/judge", problems);
  const connection = readReference(
    judge.connection,
    "/judge/connection",
    "the model connection the judge runs on (PUT /api/connections/:name)",
    problems,
  );
  const threshold = optional(judge.threshold, DEFAULT_JUDGE_THRESHOLD, () =>
    readInteger(judge.threshold, "/judge/threshold", 1, 5, problems),
  );
  const parameters =
    judge.parameters === undefined ? {} : readParameters(judge.parameters, "/judge/parameters", problems);
  const calibration = readCalibration(judge.require_calibration, problems);
  if (connection === undefined || threshold === undefined || !parameters || calibration === "invalid") return undefined;
  return {
    connection,
    threshold,
    parameters: { temperature: DEFAULT_JUDGE_TEMPERATURE, ...parameters },
    ...(calibration === undefined ? {} : { require_calibration: calibration }),
  };
}

/** At most this many labels can be required: more than a team will hand-label for one judge. */
const MAX_MIN_LABELS = 10_000;

/**
 * `{min_labels, min_kappa}` (either may be left out for its default), `true` for both defaults,
 * `false` or absent for none. A kappa of 0 is chance agreement, so a floor at or below it would
 * let a judge that agrees with no one gate; the floor must be above 0.
 */
function readCalibration(value: unknown, problems: ProblemList): CalibrationRequirement | undefined | "invalid" {
  const path = "/judge/require_calibration";
  if (value === undefined || value === false) return undefined;
  if (value === true) return { ...DEFAULT_CALIBRATION };
  if (!isRecord(value)) {
    problems.add(
      path,
      `expected true, false, or {"min_labels": ${DEFAULT_CALIBRATION.min_labels}, "min_kappa": ${DEFAULT_CALIBRATION.min_kappa}}, got ${describeValue(value)}`,
    );
    return "invalid";
  }
  const object = value;
  refuseUnknownKeys(object, CALIBRATION_FIELDS, path, problems);
  const minLabels = optional(object.min_labels, DEFAULT_CALIBRATION.min_labels, () =>
    readInteger(object.min_labels, at(path, "min_labels"), 1, MAX_MIN_LABELS, problems),
  );
  let minKappa: number | undefined = DEFAULT_CALIBRATION.min_kappa;
  if (object.min_kappa !== undefined) {
    const k = object.min_kappa;
    if (typeof k === "number" && Number.isFinite(k) && k > 0 && k <= 1) minKappa = k;
    else {
      problems.add(
        at(path, "min_kappa"),
        `expected a kappa above 0 and at most 1 (0 is chance agreement, 1 perfect; 0.6 is substantial), got ${describeValue(k)}`,
      );
      minKappa = undefined;
    }
  }
  if (
    minLabels === undefined ||
    minKappa === undefined ||
    Object.keys(object).some((key) => !(CALIBRATION_FIELDS as readonly string[]).includes(key))
  )
    return "invalid";
  return { min_labels: minLabels, min_kappa: minKappa };
}

function readParameters(value: unknown, path: string, problems: ProblemList): ModelParameters | undefined {
  const object = readObject(value, path, problems, 'model parameters ({"temperature", "seed", "max_tokens"})');
  if (!object) return undefined;
  refuseUnknownKeys(object, PARAMETER_FIELDS, path, problems);
  const parameters: ModelParameters = {};
  let ok = true;
  if (object.temperature !== undefined) {
    const t = object.temperature;
    if (typeof t === "number" && Number.isFinite(t) && t >= 0 && t <= 2) parameters.temperature = t;
    else {
      problems.add(at(path, "temperature"), `expected a number from 0 to 2, got ${describeValue(t)}`);
      ok = false;
    }
  }
  if (object.seed !== undefined) {
    const seed = readInteger(object.seed, at(path, "seed"), Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, problems);
    if (seed === undefined) ok = false;
    else parameters.seed = seed;
  }
  if (object.max_tokens !== undefined) {
    const max = readInteger(object.max_tokens, at(path, "max_tokens"), 1, 1_000_000, problems);
    if (max === undefined) ok = false;
    else parameters.max_tokens = max;
  }
  return ok ? parameters : undefined;
}

/** Unknown keys refused, and a model parameter written beside `parameters` pointed there. */
function refuseModelFieldsOutsideParameters(
  object: Record<string, unknown>,
  known: readonly string[],
  path: string,
  problems: ProblemList,
): void {
  const misplaced = Object.keys(object).filter((key) => (PARAMETER_FIELDS as readonly string[]).includes(key));
  for (const key of misplaced)
    problems.add(at(path, key), `model parameters go under ${path}/parameters: {"${key}": ...}`);
  const rest = Object.fromEntries(Object.entries(object).filter(([key]) => !misplaced.includes(key)));
  refuseUnknownKeys(rest, known, path, problems);
}

// ---------------------------------------------------------------------------------------------
// Small readers

function missing(path: string, what: string, problems: ProblemList): undefined {
  problems.add(path, `required: ${what}`);
  return undefined;
}

/** A name of another stored document (a connection, a policy). */
function readReference(value: unknown, path: string, what: string, problems: ProblemList): string | undefined {
  if (value === undefined) return missing(path, what, problems);
  return readPattern(value, path, RESOURCE_NAME, RESOURCE_NAME_RULE, problems);
}

function readPattern(
  value: unknown,
  path: string,
  pattern: RegExp,
  rule: string,
  problems: ProblemList,
): string | undefined {
  if (typeof value === "string" && pattern.test(value)) return value;
  problems.add(
    path,
    typeof value === "string"
      ? `${rule}, got ${describeValue(value)}`
      : `${rule.replace(/^expected /, "expected a string: ")}, got ${describeValue(value)}`,
  );
  return undefined;
}

function readInteger(
  value: unknown,
  path: string,
  min: number,
  max: number,
  problems: ProblemList,
): number | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return value;
  const range = min === Number.MIN_SAFE_INTEGER ? "a whole number" : `a whole number from ${min} to ${max}`;
  problems.add(path, `expected ${range}, got ${describeValue(value)}`);
  return undefined;
}

function readRate(value: unknown, path: string, problems: ProblemList): number | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1) return value;
  problems.add(path, `expected a rate from 0 to 1 (0.9 is 90%), got ${describeValue(value)}`);
  return undefined;
}

/** The misfire rate the run's detection power is stated for: 0 and 1 would make it meaningless. */
function readMisfireRate(value: unknown, problems: ProblemList): number | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value > 0 && value < 1) return value;
  problems.add(
    "/misfire_rate",
    `expected a rate strictly between 0 and 1 (0.1 is a 1-in-10 misfire), got ${describeValue(value)}`,
  );
  return undefined;
}

function readJsonObject(
  value: unknown,
  path: string,
  problems: ProblemList,
  what = "a JSON object",
): JsonObject | undefined {
  if (isRecord(value) && isJsonValue(value)) return value;
  problems.add(path, `expected ${what}, got ${describeValue(value)}`);
  return undefined;
}

/**
 * A stored suite version read back with its type: it passed parseSuite and resolution when saved
 * (library tools by id), so a failure means the rules grew stricter since and is reported as such.
 */
export function readStoredSuite(document: unknown): { ok: true; suite: Suite } | { ok: false; problems: Problem[] } {
  const parsed = parseSuite(document);
  if (!parsed.ok) return parsed;
  const tools: SuiteTool[] = [];
  const problems: Problem[] = [];
  parsed.suite.agent.tools.forEach((tool, index) => {
    if ("tool" in tool)
      problems.push({ path: `/agent/tools/${index}/tool`, message: "a stored suite names library tools by id" });
    else tools.push(tool);
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, suite: { ...parsed.suite, agent: { ...parsed.suite.agent, tools } } };
}
