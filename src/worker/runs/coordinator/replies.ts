/**
 * What the run coordinator is started with, hands out and answers over RPC. RPC drops custom error
 * fields, so every method returns one of these tagged results instead of throwing (as the attempt
 * object does, attempt/replies.ts).
 */
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import type { ExternalConversation, TurnAnswer } from "../../../core/evals/external-conversation.js";
import type { UserStep } from "../../../core/evals/user-turn.js";
import type { JobSetup } from "./job-setup.js";
import type { RunProgress } from "./progress.js";
import type { RunAgent, RunExternalAgent, RunJudge, RunScenario, RunStart, RunUserModel } from "./run-start.js";

export type {
  RunScenario,
  RunAgent,
  RunExternalAgent,
  RunJudge,
  RunRepetitionSlot,
  RunStart,
  RunAttemptPlans,
} from "./run-start.js";

/** What the queue consumer needs to carry out one repetition. */
export interface RunJob {
  run_id: string;
  tenant_id: string;
  seq: number;
  scenario: RunScenario;
  repetition: number;
  attempt_id: string;
  token_hash: string;
  /** 1 for the first delivery that claimed this repetition, then 2, 3, ... (see the consumer's call ids). */
  claim: number;
  agent: RunAgent | RunExternalAgent;
  judge: RunJudge | null;
  /** The suite's user model, for a conversation scenario's repetition. */
  user_model?: RunUserModel;
  /** Set for an external agent's repetition: what this delivery is to do (coordinator's external phases). */
  external?: ExternalPhase;
  /** The attempt's setup, which the delivery makes sure of before anything runs on it (consumer/attempt-setup.ts). */
  setup: JobSetup;
  /** An external agent's conversation so far, once its opening is stored (external/conversation.ts). */
  conversation?: ExternalConversation;
}

/**
 * Where an external agent's repetition stands when a delivery claims it: its job is to be sent;
 * the agent completed and the completion is to be scored; or the deadline passed without one.
 */
export type ExternalPhase =
  | { phase: "send"; deadline_at: number }
  | { phase: "score"; deadline_at: number }
  | { phase: "timed_out"; deadline_at: number };

type MissingReply = { kind: "missing" };

export type StartReply = { kind: "ok" } | { kind: "conflict"; message: string };

/** A claimed repetition's job (or a slot the run does not have). */
export type JobReply = MissingReply | { kind: "job"; job: RunJob };

export type ClaimReply =
  | JobReply
  /** The repetition has its record already: a redelivery, to be acknowledged and dropped. */
  | { kind: "done" }
  /** The run has ended (cancelled, or past its deadline): nothing more is run. */
  | { kind: "ended"; status: string }
  /** Another delivery holds the repetition right now; the watchdog resends it if that one never reports. */
  | { kind: "busy" };

/** claimNext's answer: a job as claim's, or none left that no delivery has claimed. */
export type NextClaimReply = JobReply | { kind: "ended"; status: string } | { kind: "none" };

export type RecordReply =
  | MissingReply
  | { kind: "recorded"; finished: boolean }
  /** The repetition already had a record: nothing changed. */
  | { kind: "duplicate" }
  | { kind: "ended"; status: string };

export type CompleteReply =
  | MissingReply
  | { kind: "ok" }
  /** The repetition has its record (scored, timed out, or given up on). */
  | { kind: "recorded"; record: RepetitionRecord }
  /** Completed already; its scoring is under way. */
  | { kind: "already_completed" }
  | { kind: "timed_out"; deadline_at: number }
  /** No job was sent for this repetition (yet). */
  | { kind: "not_sent" }
  | { kind: "ended"; status: string };

export type ReleaseReply = MissingReply | { kind: "ok" };

/**
 * The conversation as stored: the one this delivery opened, or the one an earlier delivery did.
 * `score`: the opening ended it (the user stopped at once, or the user model failed), so no job is
 * sent and the repetition's message is to be sent again for scoring.
 */
export type OpenConversationReply = MissingReply | { kind: "ok"; conversation: ExternalConversation; score: boolean };

/** An external agent's reply to a user message (POST /api/attempts/:id/turns), as the coordinator takes it. */
export type TurnReply =
  | MissingReply
  | { kind: "unauthorized" }
  /** The repetition holds no conversation with an external agent (or its job has not been sent). */
  | { kind: "not_conversation"; reason: string }
  /** The repetition takes no more turns: completed, recorded, out of time, or its run ended. */
  | { kind: "closed"; code: "conversation_ended" | "repetition_timed_out"; reason: string }
  /** The reply is refused: `path` names the field at fault. */
  | { kind: "refused"; code: "turn_out_of_order" | "conversation_ended"; path: "/turn" | "/message"; reason: string }
  /** The user model is answering this reply (for another request): try again shortly. */
  | { kind: "in_progress"; turn: number }
  | { kind: "answer"; answer: TurnAnswer }
  /** Taken: the caller asks the user model, then reports with answerTurn(seq, turn, asked_at, ...). */
  | {
      kind: "ask";
      asked_at: number;
      conversation: ExternalConversation;
      job: Pick<RunJob, "tenant_id" | "scenario" | "user_model">;
    };

export type AnswerTurnReply =
  | MissingReply
  /** `score`: the user model failed, so the repetition is over and its message is to be sent for scoring. */
  | { kind: "ok"; answer: TurnAnswer; score: boolean }
  /** Another request took the turn over (this one was thought lost); its answer, when it has one. */
  | { kind: "stale"; answer: TurnAnswer | null };

export type ProgressReply = MissingReply | { kind: "ok"; progress: RunProgress };

export type CancelReply =
  | MissingReply
  | { kind: "cancelled"; progress: RunProgress }
  | { kind: "already_ended"; progress: RunProgress };

/** One repetition as the coordinator holds it: its slot, and its record once it has one. */
export interface RepetitionEntry {
  seq: number;
  scenario_id: string;
  repetition: number;
  attempt_id: string;
  /** How many times its message has been sent (1 at the start; each watchdog resend adds one). */
  sends: number;
  last_error: string | null;
  record: RepetitionRecord | null;
}

export type RepetitionsReply = MissingReply | { kind: "ok"; items: RepetitionEntry[] };

/** The coordinator's RPC surface, as the class implements it. */
export interface RunMethods {
  start(start: RunStart): StartReply;
  claim(seq: number): Promise<ClaimReply>;
  claimNext(): Promise<NextClaimReply>;
  release(seq: number, error: string, resending?: boolean): ReleaseReply;
  completeAgent(seq: number): CompleteReply;
  openConversation(seq: number, conversation: ExternalConversation): OpenConversationReply;
  takeTurn(seq: number, tokenHash: string, turn: number, message: string): TurnReply;
  answerTurn(seq: number, turn: number, askedAt: number, step: UserStep): AnswerTurnReply;
  record(seq: number, record: RepetitionRecord): Promise<RecordReply>;
  deadLetter(seq: number, error: string | null): Promise<RecordReply>;
  cancel(): Promise<CancelReply>;
  progress(): ProgressReply;
  repetitions(afterSeq: number, limit: number): RepetitionsReply;
}

/** The same surface through a stub: every answer arrives as a promise. */
export type RunRpc = {
  [K in keyof RunMethods]: (...args: Parameters<RunMethods[K]>) => Promise<Awaited<ReturnType<RunMethods[K]>>>;
};
