/**
 * τ-bench's retail tasks as a toolproof suite (pure: the reference files in, the suite document
 * out; import-retail.ts reads and writes the files). Each task becomes one conversation scenario:
 *
 * - `user.instruction`: the task's instruction, which only the user model sees.
 * - `end_state.gold_calls`: the task's gold calls in order, named as the model sees them for the
 *   one tool `retail` (`retail__<operation>`), with their arguments as τ-bench wrote them. The
 *   state they reach on a fresh attempt is the expected end state, as τ-bench's reward compares
 *   the data the agent left with the data the gold actions leave.
 * - `outputs`: the facts the agent must state, as τ-bench lists them.
 * - `datasets`: the retail dataset pin (`{"retail": {"name": "retail", "version": N}}`).
 * - `expect`: the functions of the gold calls that act for the user (the writes and the transfer to
 *   a human), each once in the order of its first call; for a task with none of those, the functions
 *   it reads with; for a task with no gold call at all, null. `expect` is required of every scenario,
 *   and the end state grades the rest.
 *
 * The task's `user_id` has no field of its own: the instruction names the user, and the scenario's
 * id (`<split>-<index>`) leads back to the task.
 */

/** One task as examples/environments/tau-retail/reference/<split>.json holds it (the fields read here). */
export interface ReferenceTask {
  index: number;
  user_id: string;
  instruction: string;
  outputs: string[];
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

export interface ReferenceSplit {
  upstream_commit: string;
  split: string;
  tasks: ReferenceTask[];
}

export const SPLITS = ["test", "train", "dev"] as const;
export type Split = (typeof SPLITS)[number];

/** The library tool the environment is saved as (examples/environments/tau-retail/tool.json). */
export const RETAIL_TOOL = "retail";

/** τ-bench's retail tools that act for the user: everything but the reads, `calculate` and `think`. */
export const ACTING_OPERATIONS: ReadonlySet<string> = new Set([
  "cancel_pending_order",
  "exchange_delivered_order_items",
  "modify_pending_order_address",
  "modify_pending_order_items",
  "modify_pending_order_payment",
  "modify_user_address",
  "return_delivered_order_items",
  "transfer_to_human_agents",
]);

/**
 * The agent's system prompt when the importer is given none: the retail desk's rules as τ-bench's
 * tasks assume them, in short. τ-bench's own policy document is not bundled; pass it (or the team's
 * own prompt) with --instructions.
 */
export const DEFAULT_INSTRUCTIONS = [
  "You are a customer service agent for an online retail store. You help one user per conversation with their orders, returns, exchanges, cancellations and account details, using your tools.",
  "Before anything else, find the user's id from their email, or from their first name, last name and zip code, even when they give you their user id.",
  "Only act on that user's own orders and payment methods. Look up the details you need instead of assuming them.",
  "Before any change (cancel, modify, return, exchange, address), tell the user exactly what will be done and make it only after they confirm with a clear yes.",
  "A pending order can be cancelled or modified; a delivered order can be returned or exchanged. Items can be exchanged or modified only for another variant of the same product.",
  "If a request is outside what your tools and these rules allow, say so; transfer the user to a human agent only when they ask for one or nothing else can help.",
].join("\n");

export interface ImportOptions {
  /** The retail dataset version the scenarios pin. */
  dataset_version: number;
  /** The stored connection the agent under test runs on. */
  agent_connection: string;
  /** The stored connection the user model runs on. */
  user_model: string;
  instructions: string;
  runs_per_scenario: number;
}

export const DEFAULT_IMPORT_OPTIONS: ImportOptions = {
  dataset_version: 1,
  agent_connection: "agent",
  user_model: "user-model",
  instructions: DEFAULT_INSTRUCTIONS,
  runs_per_scenario: 3,
};

/**
 * Per user message: τ-bench lets an episode run 30 steps, and a retail task's agent reads several
 * records (user, orders, products) before it answers.
 */
const AGENT_MAX_ITERATIONS = 10;
const AGENT_MAX_FUNCTION_CALLS = 20;
/** τ-bench's conversations end well within this many user messages. */
const USER_MAX_TURNS = 30;

export function functionName(operation: string): string {
  return `${RETAIL_TOOL}__${operation}`;
}

/** The scenario one task becomes. */
export function taskScenario(split: string, task: ReferenceTask, datasetVersion: number): Record<string, unknown> {
  const operations = [...new Set(task.calls.map((call) => call.name))];
  const acting = operations.filter((name) => ACTING_OPERATIONS.has(name));
  const expected = acting.length > 0 ? acting : operations;
  return {
    id: `${split}-${task.index}`,
    user: { instruction: task.instruction },
    expect: expected.length > 0 ? expected.map(functionName) : null,
    end_state: {
      gold_calls: task.calls.map((call) => ({ function: functionName(call.name), arguments: call.arguments })),
    },
    outputs: task.outputs,
    datasets: { [RETAIL_TOOL]: { name: RETAIL_TOOL, version: datasetVersion } },
  };
}

/** The suite of one or more splits, in the order given, each split's tasks in their order. */
export function retailSuite(splits: readonly ReferenceSplit[], options: ImportOptions): Record<string, unknown> {
  const names = splits.map((split) => `${split.split} (${split.tasks.length} tasks)`).join(", ");
  const commits = [...new Set(splits.map((split) => split.upstream_commit))].join(", ");
  return {
    description: `τ-bench retail: ${names}, imported from sierra-research/tau-bench at ${commits} (examples/environments/tau-retail).`,
    agent: {
      connection: options.agent_connection,
      instructions: options.instructions,
      tools: [{ tool: RETAIL_TOOL }],
      max_iterations: AGENT_MAX_ITERATIONS,
      max_function_calls: AGENT_MAX_FUNCTION_CALLS,
    },
    user_model: { connection: options.user_model, parameters: { temperature: 0 }, max_turns: USER_MAX_TURNS },
    scenarios: splits.flatMap((split) =>
      split.tasks.map((task) => taskScenario(split.split, task, options.dataset_version)),
    ),
    runs_per_scenario: options.runs_per_scenario,
  };
}
