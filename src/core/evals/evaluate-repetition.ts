/**
 * One repetition from start to record: the agent runs against its attempt, the attempt's evidence,
 * the agent's approval requests (checked against their functions' input schemas) and the calls the
 * runner refused become the repetition's calls, selection is scored in code, a scenario with
 * `end_state` or `outputs` is graded by its outcome (end-state-grade.ts) in the judge's place, the
 * judge grades only what selection let through, and scoring's repetitionVerdict decides. Every
 * rule lives in src/core/scoring; this file only puts the steps in order and keeps what each
 * produced, so the stored record explains its own verdict.
 *
 * A port that throws (the attempt object unreachable, the evidence unreadable) is not caught here:
 * the queue consumer lets the message be retried, and a message that keeps failing becomes a dead
 * letter recorded with `deadLetterRecord`. A model endpoint that fails is not thrown: it arrives as
 * a ModelFailure and makes the repetition an infrastructure error naming the connection.
 */
import { harnessErrorAmong, repetitionCalls } from "../scoring/calls.js";
import { checkedProposals } from "../scoring/proposals.js";
import { judgeMessages, JUDGE_PROMPT_VERSION } from "../scoring/judge-prompt.js";
import { needsJudge, repetitionVerdict } from "../scoring/repetition-verdict.js";
import { type SelectionResult, scoreSelection } from "../scoring/selection.js";
import { runAgent } from "./agent-loop.js";
import { runConversation } from "./conversation-loop.js";
import type { ConversationRecord } from "./conversation-types.js";
import { callJudge } from "./judge-call.js";
import type { AgentRun, JudgeCall, RepetitionInputsForRun, RepetitionRecord } from "./agent-types.js";
import type { ChatMessage, ChatTool } from "../ports.js";
import type { ApprovalRequest } from "../scoring/calls.js";
import { DEFAULT_JUDGE_THRESHOLD } from "./suite-types.js";
import { type EndStateInputs, gradeScenarioEndState, scenarioOutputs } from "./end-state-grade.js";
import { gradedByOutcome } from "./end-state-types.js";
import type { EndStateResult } from "../scoring/end-state.js";
import type { ExternalConversationOutcome } from "./external-conversation.js";

export async function evaluateRepetition(inputs: RepetitionInputsForRun & EndStateInputs): Promise<RepetitionRecord> {
  const { agent } = inputs;
  const started_at = isoTime(inputs.now());
  const run = await agentOrConversation(inputs);
  return scoreRepetition({ ...inputs, tools: agent.tools, agent_connection: agent.connection, started_at }, run);
}

/**
 * A conversation scenario runs as a conversation with the suite's user model (conversation-loop.ts);
 * any other as one query. A conversation without its user model is a wiring fault of the caller,
 * reported as the user model's failure: an infrastructure error, never the agent's.
 */
async function agentOrConversation(inputs: RepetitionInputsForRun): Promise<RunOutcome> {
  const { scenario, agent, dispatcher } = inputs;
  if (scenario.user === undefined) return runAgent({ ...agent, query: scenario.query ?? "", dispatcher });
  const userModel = inputs.user_model;
  if (userModel === undefined)
    return {
      stop_reason: null,
      final_answer: null,
      approval_requests: [],
      refused_calls: [],
      messages: [],
      turns: [],
      user_model_error: "the scenario is a conversation, but the run was given no user model",
    };
  const run = await runConversation({
    agent: { ...agent, dispatcher },
    user: {
      ...userModel,
      instruction: scenario.user.instruction,
      max_turns: scenario.user.max_turns ?? userModel.max_turns,
    },
  });
  const { conversation } = run;
  return {
    ...run,
    conversation,
    ...(conversation.user_model_error === undefined ? {} : { user_model_error: conversation.user_model_error }),
  };
}

/** What an external agent reported (POST /api/attempts/:id/complete), or that it never did. */
export type ExternalOutcome =
  | {
      kind: "completed";
      final_answer: string | null;
      approval_requests: ApprovalRequest[];
      messages: ChatMessage[] | null;
    }
  | { kind: "timed_out"; reason: string }
  /**
   * A conversation that ended with no completion from the agent: before its job was sent (the user
   * stopped at once, or the user model failed on its opening), or by the user model's failure.
   */
  | { kind: "no_completion" };

interface ExternalRepetitionInputs extends Omit<RepetitionInputsForRun, "agent" | "dispatcher">, EndStateInputs {
  /** The tools the agent was given, as the judge reads their definitions. */
  tools: ChatTool[];
  outcome: ExternalOutcome;
  /** Epoch milliseconds the job was sent. */
  started_at: number;
  /** A conversation scenario's turns, as toolproof relayed them (external-conversation.ts). */
  conversation?: ExternalConversationOutcome;
}

/**
 * An external agent's repetition, scored exactly as the built-in runner's: its calls are the
 * attempt's evidence plus the approval requests it reported, then selection, the judge and the
 * verdict as in evaluateRepetition. A timed-out agent is scored on what it did before its
 * deadline (a forbidden call still fails the run), and fails with `timed_out` otherwise.
 */
export function evaluateExternalRepetition(inputs: ExternalRepetitionInputs): Promise<RepetitionRecord> {
  const { outcome, conversation } = inputs;
  const run: RunOutcome =
    outcome.kind === "completed"
      ? {
          stop_reason: "external_completion",
          // A conversation's agent may end without an output: its last reply to the user is its answer.
          final_answer: outcome.final_answer ?? conversation?.last_reply ?? null,
          approval_requests: outcome.approval_requests,
          refused_calls: [],
          messages: outcome.messages ?? [],
          turns: [],
        }
      : {
          stop_reason: outcome.kind === "timed_out" ? "timed_out" : null,
          final_answer: outcome.kind === "timed_out" ? null : (conversation?.last_reply ?? null),
          approval_requests: [],
          refused_calls: [],
          messages: [],
          turns: [],
          ...(outcome.kind === "timed_out" ? { timed_out: outcome.reason } : {}),
        };
  if (conversation) {
    // The transcript of a conversation is what toolproof relayed, both sides, whatever the agent reported.
    run.messages = conversation.messages;
    run.conversation = conversation.record;
    if (conversation.record.user_model_error !== undefined) run.user_model_error = conversation.record.user_model_error;
  }
  return scoreRepetition({ ...inputs, agent_connection: null, started_at: isoTime(inputs.started_at) }, run);
}

/** What scoring needs of a run, whichever agent made it. */
type RunOutcome = Pick<
  AgentRun,
  "final_answer" | "approval_requests" | "refused_calls" | "messages" | "turns" | "model_failure" | "harness_error"
> & {
  stop_reason: RepetitionRecord["stop_reason"];
  timed_out?: string;
  conversation?: ConversationRecord;
  /** The user model of a conversation failed: what happened, without the connection's name. */
  user_model_error?: string;
};

type ScoringInputs = Pick<
  RepetitionInputsForRun,
  "scenario" | "repetition" | "attempt_id" | "executedCalls" | "validator" | "judge" | "now" | "user_model"
> &
  EndStateInputs & {
    tools: ChatTool[];
    /** The built-in agent's connection, to name it when it failed; null for an external agent. */
    agent_connection: string | null;
    started_at: string;
  };

async function scoreRepetition(inputs: ScoringInputs, run: RunOutcome): Promise<RepetitionRecord> {
  const { scenario, started_at } = inputs;
  const approval_requests = checkedProposals(run.approval_requests, inputs.tools, inputs.validator);
  const calls = repetitionCalls(await inputs.executedCalls(), approval_requests, run.refused_calls);
  const selection = scoreSelection(
    scenario,
    calls,
    inputs.tools.map((tool) => tool.name),
  );

  // The evidence names the harness error with its kind; the runner's own message covers a failure
  // the attempt reported without recording a call.
  let harness_error = harnessErrorAmong(calls) ?? run.harness_error ?? null;
  let infrastructure_error = run.model_failure
    ? connectionFailed("agent", inputs.agent_connection ?? "", run.model_failure.message)
    : null;
  // The user model is the harness's, not the agent's: its failure breaks the repetition, whatever the agent did.
  if (run.user_model_error !== undefined)
    infrastructure_error ??= connectionFailed(
      "user model",
      run.conversation?.user_model.connection ?? inputs.user_model?.connection ?? "",
      run.user_model_error,
    );

  // The outcome is graded whenever the run got to an end (even past a selection failure, so the
  // report names the differing paths too); a broken or timed-out run has no outcome to grade.
  const finished = harness_error === null && infrastructure_error === null && run.timed_out === undefined;
  let end_state: EndStateResult | null = null;
  if (finished && scenario.end_state) {
    const graded = inputs.endState
      ? await gradeScenarioEndState(scenario.end_state, inputs.endState)
      : {
          ok: false as const,
          harness_error: "the scenario has an end state, but this runner cannot read attempts' state",
        };
    if (graded.ok) end_state = graded.result;
    else harness_error = graded.harness_error;
  }
  const outputs = finished ? scenarioOutputs(scenario, run.messages, run.final_answer) : null;

  let judge: JudgeCall | null = null;
  // A broken repetition is an error whatever the judge would say (a forbidden call already failed
  // it), so the judge is only asked about repetitions it can decide.
  if (
    inputs.judge &&
    harness_error === null &&
    infrastructure_error === null &&
    run.timed_out === undefined &&
    needsJudge(selection, calls.length, gradedByOutcome(scenario))
  ) {
    judge = await callJudgeFor(inputs.judge, inputs, calls, run.final_answer);
    if (judge.model_failure)
      infrastructure_error = connectionFailed("judge", inputs.judge.connection, judge.model_failure.message);
  }

  const verdict = repetitionVerdict({
    selection,
    calls: calls.length,
    threshold: inputs.judge?.threshold ?? DEFAULT_JUDGE_THRESHOLD,
    ...(judge && !judge.model_failure ? { judge: judge.outcome } : {}),
    harness_error,
    infrastructure_error,
    timed_out: run.timed_out ?? null,
    end_state,
    outputs,
  });
  return {
    scenario_id: scenario.id,
    repetition: inputs.repetition,
    attempt_id: inputs.attempt_id,
    calls,
    approval_requests,
    final_answer: run.final_answer,
    stop_reason: run.stop_reason,
    selection,
    judge:
      judge && inputs.judge
        ? {
            ...judge,
            prompt_version: JUDGE_PROMPT_VERSION,
            connection: inputs.judge.connection,
            model: inputs.judge.model,
          }
        : null,
    verdict,
    ...(scenario.end_state ? { end_state } : {}),
    ...(scenario.outputs ? { outputs } : {}),
    transcript: { messages: run.messages, turns: run.turns },
    ...(run.conversation === undefined ? {} : { conversation: run.conversation }),
    started_at,
    finished_at: isoTime(inputs.now()),
  };
}

function callJudgeFor(
  judge: NonNullable<RepetitionInputsForRun["judge"]>,
  inputs: ScoringInputs,
  calls: RepetitionRecord["calls"],
  final_answer: string | null,
): Promise<JudgeCall> {
  return callJudge({
    client: judge.client,
    connection: judge.connection,
    // A conversation's judge reads the user's instruction as the request: what the user came for.
    messages: judgeMessages({
      query: inputs.scenario.query ?? inputs.scenario.user?.instruction ?? "",
      tool_definitions: inputs.tools,
      calls,
      final_answer,
    }),
    parameters: judge.parameters,
    structured_output: judge.structured_output,
  });
}

function connectionFailed(role: "agent" | "judge" | "user model", connection: string, message: string): string {
  return `the ${role}'s model connection "${connection}" failed: ${message}`;
}

/** Where a repetition that never ran stands: nothing was selected, so nothing passed or failed. */
const NOT_RUN_SELECTION: SelectionResult = {
  pass: false,
  reason: "Selection was not scored: the repetition never ran.",
  forbidden_calls: [],
  missing: [],
  unexpected: [],
  unknown_functions: [],
  invalid_proposals: [],
};

interface NotRunInputs {
  scenario_id: string;
  repetition: number;
  attempt_id: string;
  /** Why it never ran, as the infrastructure error the repetition reports. */
  infrastructure_error: string;
  /** Epoch milliseconds. */
  at: number;
}

/**
 * The record of a repetition that produced no result (a dead letter, a run past its deadline): an
 * infrastructure error through the same verdict function as every other repetition, with no calls,
 * no judge and no transcript. The queue consumer and the run's coordinator both build it here, so a
 * repetition that never ran reads the same wherever it was given up on.
 */
export function notRunRecord(inputs: NotRunInputs): RepetitionRecord {
  const at = isoTime(inputs.at);
  return {
    scenario_id: inputs.scenario_id,
    repetition: inputs.repetition,
    attempt_id: inputs.attempt_id,
    calls: [],
    approval_requests: [],
    final_answer: null,
    stop_reason: null,
    selection: NOT_RUN_SELECTION,
    judge: null,
    verdict: repetitionVerdict({
      selection: NOT_RUN_SELECTION,
      calls: 0,
      threshold: DEFAULT_JUDGE_THRESHOLD,
      infrastructure_error: inputs.infrastructure_error,
    }),
    transcript: null,
    started_at: at,
    finished_at: at,
  };
}

/** A dead-lettered message's repetition: the queue gave up after its retries, with this last error. */
export function deadLetterRecord(
  inputs: Omit<NotRunInputs, "infrastructure_error"> & { last_error: string },
): RepetitionRecord {
  const { last_error, ...rest } = inputs;
  return notRunRecord({
    ...rest,
    infrastructure_error: `the queue gave up on this repetition after its retries (dead letter); the last error: ${last_error}`,
  });
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
