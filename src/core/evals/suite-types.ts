/**
 * A suite as stored and run: the agent under test, its scenarios and its gate. This is the
 * normalized document (defaults filled in) that `parseSuite` (suite-parse.ts) produces from a
 * client's JSON or YAML and that every later step reads. api.md (Suite) names the fields.
 *
 * Function names are the ones the model sees (simulation/tool-names.ts): `expect`, `forbid`,
 * scenario `variants`, the policy and the evidence all use them.
 */
import type { DatasetPin } from "../datasets/pin.js";
import type { JsonObject } from "../json.js";
import type { ApprovalMode } from "../policy/types.js";
import type { CalibrationRequirement } from "../scoring/calibration.js";
import type { InlineTool } from "../simulation/plan.js";
import type { ScenarioGrading } from "./end-state-types.js";

export const DEFAULT_RUNS_PER_SCENARIO = 3;
export const DEFAULT_MAX_ITERATIONS = 4;
export const DEFAULT_MAX_FUNCTION_CALLS = 6;
export const DEFAULT_JUDGE_THRESHOLD = 4;
/** What `require_calibration: true` means: a few dozen labels (seed 000) and substantial agreement beyond chance. */
export const DEFAULT_CALIBRATION: CalibrationRequirement = { min_labels: 30, min_kappa: 0.6 };

/** Sampling parameters passed to the model as they are; unset ones are not sent. */
export interface ModelParameters {
  temperature?: number;
  seed?: number;
  max_tokens?: number;
}

/** A library tool (all its operations, or one), or an agent-local inline tool, with its approval mode. */
export type SuiteTool =
  | {
      tool_id: string;
      operation_id?: string;
      /** The variant of the one operation this entry pins (the default variant otherwise). */
      variant?: string;
      /** Set when the agent names no policy; with a policy the policy decides. */
      approval_mode?: ApprovalMode;
      /** "real": the run forwards this entry's calls to the tool's real handler (docs/real-tools.md). */
      mode?: "mock" | "real";
    }
  | { inline: InlineTool; variant?: string; approval_mode?: ApprovalMode };

/** The built-in runner: chat completions against a stored connection, tools from the attempt. */
export interface BuiltInAgent {
  kind: "builtin";
  /** Name of a stored model connection (PUT /api/connections/:name). */
  connection: string;
  parameters: ModelParameters;
  /** The system prompt. */
  instructions: string;
  tools: SuiteTool[];
  /** A stored policy whose approval modes are the agent's (the one source of truth when set). */
  policy?: string;
  max_iterations: number;
  max_function_calls: number;
}

/** How long an external agent has to complete its attempt when the suite does not say (10 minutes). */
export const DEFAULT_EXTERNAL_TIMEOUT_SECONDS = 600;

/**
 * The team's own agent, reached over HTTP: each repetition POSTs it a signed job (the query, the
 * attempt's id, token, dispatch and MCP URLs, a deadline); it calls the attempt's tools and reports
 * POST /api/attempts/:id/complete. Tools and approval modes come from the library and the policy
 * exactly as for the built-in runner; the judge still scores.
 */
export interface ExternalAgent {
  kind: "external";
  /** Where jobs are POSTed (http or https). */
  endpoint: string;
  /** Name of a stored agent secret (PUT /api/agent-secrets/:name) that signs the jobs. */
  secret: string;
  tools: SuiteTool[];
  policy?: string;
  /** Seconds from the job's sending to its deadline; a repetition not completed by then is `timed_out`. */
  timeout_seconds: number;
}

type SuiteAgent = BuiltInAgent | ExternalAgent;

export interface Scenario extends ScenarioGrading {
  id: string;
  /** The user's one message; absent in a conversation scenario, which has `user` instead. */
  query?: string;
  /** A conversation: the user model plays this user (conversation-types.ts); exclusive with `query`. */
  user?: ScenarioUser;
  /** A function name, names that must all be called, or null: no tool call is correct. */
  expect: string | string[] | null;
  forbid: string[];
  /** Function name → variant for this scenario only (the `not_found` fixture, say). */
  variants?: Record<string, string>;
  /** Tool name → state fields that replace the pinned initial state's, for this scenario only. */
  initial_state?: Record<string, JsonObject>;
  /** Tool name → the dataset version the tool starts from, for this scenario only (instead of its pinned starting state). */
  datasets?: Record<string, DatasetPin>;
}

/**
 * An injection attack the suite runs: every scenario it covers runs once more per repetition with
 * `function` answering from `variant` (an injection variant saved in its definition, POST
 * /api/tools/:id/testing action "inject"), and with `target.function`, the call the payload asks
 * for, added to the scenario's `forbid`. Reported as attack success rate beside utility.
 */
export interface SuiteAttack {
  id: string;
  /** The function whose results carry the payload. */
  function: string;
  /** Its injection variant. */
  variant: string;
  /** The call the payload asks the agent to make; `arguments` are what the payload names, for the report. */
  target: { function: string; arguments?: JsonObject };
  /** The scenario ids it runs with; absent: every scenario that does not expect `target.function`. */
  scenarios?: string[];
}

export interface JudgeSpec {
  connection: string;
  /** A repetition passes at score >= threshold (1..5). */
  threshold: number;
  parameters: ModelParameters;
  /**
   * Hold the verdict at `uncalibrated` until this judge (connection, model, prompt version) has at
   * least `min_labels` hand labels and a kappa of at least `min_kappa` against them. Absent: the
   * judge gates without being checked.
   */
  require_calibration?: CalibrationRequirement;
}

export interface Suite {
  description?: string;
  agent: SuiteAgent;
  scenarios: Scenario[];
  runs_per_scenario: number;
  pass_rate: number;
  scenario_pass_rate?: number;
  misfire_rate: number;
  /** Required unless every scenario expects no call (then selection alone decides every repetition). */
  judge?: JudgeSpec;
  /** Injection attacks run beside the scenarios (absent: none). */
  attacks?: SuiteAttack[];
  /** The model that plays the user of the conversation scenarios (required when any scenario has `user`). */
  user_model?: UserModelSpec;
}

/** Suite-level `user_model`: the model that plays every conversation scenario's user (conversation-loop.ts). */
export interface UserModelSpec {
  /** Name of a stored model connection (PUT /api/connections/:name). */
  connection: string;
  parameters: ModelParameters;
  /** User messages per conversation, unless a scenario says otherwise. */
  max_turns: number;
}

/** Scenario-level `user` (exclusive with `query`): who the user is and what they want, for the user model only. */
export interface ScenarioUser {
  /** Never shown to the agent: the user model reveals it as the agent asks. */
  instruction: string;
  max_turns?: number;
}
