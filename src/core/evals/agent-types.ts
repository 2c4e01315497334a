/**
 * What the built-in agent runner (agent-loop.ts) and the judge call (judge-call.ts) take and give.
 * Both are pure: the model is reached through the ModelClient port, tools through `ToolDispatcher`
 * (the queue consumer answers it from the attempt's Durable Object, with the same validation and
 * evidence as a remote agent's call).
 */
import type { JsonValue } from "../json.js";
import type { ApprovalMode } from "../policy/types.js";
import type { ChatMessage, ChatTool, ChatUsage, ModelClient, ModelFailure, SchemaValidator } from "../ports.js";
import type { ApprovalRequest, ExecutedCall, RefusedCall, RepetitionCall } from "../scoring/calls.js";
import type { JudgeOutcome, RepetitionVerdict } from "../scoring/repetition-verdict.js";
import type { SelectionResult } from "../scoring/selection.js";
import type { ModelParameters, Scenario } from "./suite-types.js";
import type { EndStateResult } from "../scoring/end-state.js";
import type { OutputsResult } from "../scoring/outputs.js";
import type { ConversationRecord, UserModelInputs } from "./conversation-types.js";

/** What one tool call through the attempt answered, as the model is to be told. */
export type ToolAnswer =
  | { kind: "result"; result: JsonValue }
  /** The agent's mistake (bad arguments, unknown operation), recorded as a call: told to the model, which may recover. */
  | { kind: "tool_input_error"; message: string; details: JsonValue }
  /**
   * The agent's mistake, refused before any call was recorded (arguments no call can use, an
   * invalid call id): told to the model as a tool input error, and recorded by the runner instead.
   */
  | { kind: "refused"; message: string; details: JsonValue }
  /**
   * The fixture or the harness broke: the repetition is an error, the loop stops. `recorded`: the
   * attempt holds the call in its evidence (otherwise the runner records it).
   */
  | { kind: "harness_error"; message: string; recorded: boolean };

export interface ToolDispatcher {
  /** One call of `function_name` with parsed JSON object arguments, under the model's call id. */
  call(function_name: string, args: Record<string, JsonValue>, call_id: string): Promise<ToolAnswer>;
}

/** One model turn in the transcript, with what it cost. */
export interface TranscriptTurn {
  messages_sent: number;
  answer: Extract<ChatMessage, { role: "assistant" }>;
  latency_ms: number;
  usage: ChatUsage | null;
  finish_reason: string | null;
}

export type AgentStopReason =
  /** The model answered without tool calls. */
  | "final_answer"
  /** The model called an `always_require` tool: recorded, not executed, and the run stops there. */
  | "approval_request"
  | "max_iterations"
  | "max_function_calls"
  /** A tool call came back as a harness error. */
  | "harness_error"
  /** The model endpoint failed (after the client's retries). */
  | "model_error"
  /** An external agent reported its attempt complete (it stopped for its own reasons). */
  | "external_completion"
  /** An external agent never completed its attempt before its deadline. */
  | "timed_out";

export interface AgentRunInputs {
  client: ModelClient;
  /** The connection's name, to name it in errors. */
  connection: string;
  instructions: string;
  query: string;
  tools: ChatTool[];
  /** Per function name; a function without an entry runs without approval. */
  approval: Readonly<Record<string, ApprovalMode>>;
  parameters: ModelParameters;
  max_iterations: number;
  max_function_calls: number;
  dispatcher: ToolDispatcher;
  /**
   * A later turn of a conversation (conversation-loop.ts): the messages so far, system prompt
   * first; `query` is then the user's new message. `max_iterations` and `max_function_calls` count
   * per turn.
   */
  history?: readonly ChatMessage[];
  /** The call ids earlier turns of the same conversation used: a call id stays unique in the attempt. */
  used_call_ids?: Set<string>;
}

export interface AgentRun {
  stop_reason: AgentStopReason;
  /** The last assistant text, or null when the run ended without one. */
  final_answer: string | null;
  approval_requests: ApprovalRequest[];
  /** The calls the model asked for that no tool saw (calls.ts, RefusedCall), in the order it asked. */
  refused_calls: RefusedCall[];
  /** Every message in order (system, user, assistant, tool), exactly as sent and received. */
  messages: ChatMessage[];
  turns: TranscriptTurn[];
  /** Set with stop_reason "model_error". */
  model_failure?: ModelFailure;
  /** Set with stop_reason "harness_error": which call broke and how. */
  harness_error?: string;
}

export interface JudgeCallInputs {
  client: ModelClient;
  connection: string;
  /** judgeMessages(...) from scoring/judge-prompt.ts. */
  messages: ChatMessage[];
  parameters: ModelParameters;
  /** Answers tried before an unparseable answer becomes a judge error (default 2). */
  attempts?: number;
  /** Ask for structured output (JUDGE_RESPONSE_FORMAT) when the endpoint supports it. */
  structured_output: boolean;
}

export interface JudgeCall {
  outcome: JudgeOutcome;
  /** Every raw answer text in order (null when the endpoint answered none), for the repetition's record. */
  raw_answers: Array<string | null>;
  latency_ms: number;
  usage: ChatUsage | null;
  /** The endpoint failed outright (not an unparseable answer): an infrastructure error for the repetition. */
  model_failure?: ModelFailure;
}

/** Everything one repetition produced and how it was scored: stored under its repetition id. */
export interface RepetitionRecord {
  scenario_id: string;
  /** 1..runs_per_scenario within the scenario. */
  repetition: number;
  attempt_id: string;
  /** Every call the model asked for: executed (evidence), proposed and refused, as selection and the judge saw them. */
  calls: RepetitionCall[];
  /** The proposals, with the problems of those that break their function's input schema. */
  approval_requests: ApprovalRequest[];
  final_answer: string | null;
  stop_reason: AgentStopReason | null;
  selection: SelectionResult;
  /**
   * Null when the judge was not needed (or the repetition broke before it). `connection` and
   * `model` name the judge that answered, so calibration is counted per judge (records written
   * before they were stored lack them).
   */
  judge: (JudgeCall & { prompt_version: string; connection?: string; model?: string }) | null;
  verdict: RepetitionVerdict;
  /** The end state's grade, for a scenario with `end_state` that got as far as grading it (records before issue 22 lack it). */
  end_state?: EndStateResult | null;
  /** The required outputs' grade, for a scenario with `outputs`. */
  outputs?: OutputsResult | null;
  /** The runner's messages and per-turn latency and usage; null for repetitions that never ran (dead letters). */
  transcript: { messages: ChatMessage[]; turns: TranscriptTurn[] } | null;
  /** A conversation scenario's: how it ended, the user model's turns, and each side's model calls. */
  conversation?: ConversationRecord;
  started_at: string;
  finished_at: string;
}

/** What evaluateRepetition (evaluate-repetition.ts) needs for one repetition of one scenario. */
export interface RepetitionInputsForRun {
  scenario: Pick<Scenario, "id" | "query" | "expect" | "forbid" | "end_state" | "outputs" | "user">;
  repetition: number;
  attempt_id: string;
  agent: Omit<AgentRunInputs, "query" | "dispatcher">;
  dispatcher: ToolDispatcher;
  /** The attempt's executed calls after the agent finished, read from its evidence (with function names). */
  executedCalls(): Promise<ExecutedCall[]>;
  /** Checks proposals against their function's input schema (proposals.ts). */
  validator: SchemaValidator;
  /** Null when the suite has no judge (every scenario expects no call). */
  judge: {
    client: ModelClient;
    connection: string /** The connection's model, recorded with the score. */;
    model: string;
    threshold: number;
    parameters: ModelParameters;
    structured_output: boolean;
  } | null;
  /** Epoch milliseconds, for started_at / finished_at. */
  now(): number;
  /** The suite's user model, for a conversation scenario; its instruction and turn limit come from the scenario. */
  user_model?: Omit<UserModelInputs, "instruction">;
}
