/**
 * An external agent's conversation, as the run coordinator keeps it: the turns relayed so far live
 * in the coordinator's own SQLite (a `conversations` row per repetition), beside the repetition's
 * slot, so every turn is stored before it is answered and one object decides them in order. The
 * turn rules themselves are core/evals/external-conversation.ts's; this module puts them against
 * the slot (whose token, whether its job is out, whether it is over) and the stored row.
 *
 * Serialised turns: a reply is taken synchronously (no await between reading and writing the row)
 * and marks the row as asking the user model; only the request holding that mark (its asked_at)
 * may store the user's answer. Another request for the same reply meanwhile is told the turn is in
 * progress; once the mark is older than the repetition timeout, the request that held it is taken
 * to be lost, and a retry of the same reply takes the turn over, so a broken request never leaves
 * the conversation stuck and a late answer from it changes nothing.
 */
import { constantTimeEqual } from "../../../adapters/crypto.js";
import {
  answerTo,
  applyUserStep,
  type ExternalConversation,
  takeReply,
} from "../../../core/evals/external-conversation.js";
import type { UserStep } from "../../../core/evals/user-turn.js";
import { DEFAULT_USER_MAX_TURNS } from "../../../core/evals/conversation-types.js";
import type { AnswerTurnReply, TurnReply } from "../coordinator/replies.js";
import type { RunStorage, SlotRow, StoredRun } from "../coordinator/storage.js";

/** The stored conversation of a repetition, parsed; undefined when it has none. */
export function storedConversation(storage: RunStorage, seq: number): ExternalConversation | undefined {
  const row = storage.conversation(seq);
  // SAFETY: written only by this module, from JSON.stringify of an ExternalConversation.
  return row ? (JSON.parse(row.state) as ExternalConversation) : undefined;
}

/** The conversation's opening, stored unless a delivery stored one first; answers the one stored. */
export function openConversation(
  storage: RunStorage,
  seq: number,
  conversation: ExternalConversation,
): ExternalConversation {
  storage.openConversation(seq, JSON.stringify(conversation));
  return storedConversation(storage, seq) ?? conversation;
}

interface TurnContext {
  storage: RunStorage;
  run: StoredRun;
  slot: SlotRow;
  now: number;
  /** A mark older than this is a request that was lost (the repetition timeout). */
  staleMs: number;
  /** Whether the run has ended. */
  ended: boolean;
}

/** The agent's reply to user message `turn`: refused, answered from what is stored, or to be put to the user model. */
export function takeTurn(context: TurnContext, tokenHash: string, turn: number, message: string): TurnReply {
  const { storage, run, slot, now } = context;
  if (!constantTimeEqual(slot.token_hash, tokenHash)) return { kind: "unauthorized" };
  const scenario = run.start.scenarios[slot.scenario_index];
  if (run.start.agent.kind !== "external" || !scenario?.user)
    return {
      kind: "not_conversation",
      reason: `attempt ${slot.attempt_id} is not an external agent's conversation: its scenario has no simulated user, so it takes no turns (complete it with POST .../complete)`,
    };
  const row = storage.conversation(slot.seq);
  if (!row || slot.job_deadline === null)
    return { kind: "not_conversation", reason: `no job has been sent for attempt ${slot.attempt_id} yet` };
  // SAFETY: written only by this module, from JSON.stringify of an ExternalConversation.
  const conversation = JSON.parse(row.state) as ExternalConversation;
  const maxTurns = scenario.user.max_turns ?? run.start.user_model?.max_turns ?? DEFAULT_USER_MAX_TURNS;
  const taken = takeReply(conversation, turn, message, maxTurns);

  // The same reply again (its answer was lost on the way back) is answered again, even once the repetition is over.
  if (taken.kind === "repeated" && taken.answer !== null) return { kind: "answer", answer: taken.answer };
  const closed = closedReason(context, conversation);
  if (closed) return closed;
  switch (taken.kind) {
    case "repeated":
      if (row.asking_at !== null && now - row.asking_at < context.staleMs) return { kind: "in_progress", turn };
      // The request that asked the user model is lost: this retry asks again.
      storage.writeConversation(slot.seq, row.state, now);
      return ask(context, conversation, now);
    case "ended":
      return {
        kind: "refused",
        code: "conversation_ended",
        path: "/turn",
        reason: `the conversation has ended (${taken.stop_reason}): complete the attempt with POST .../complete`,
      };
    case "out_of_order":
      return { kind: "refused", code: "turn_out_of_order", path: "/turn", reason: taken.reason };
    case "conflict":
      return { kind: "refused", code: "turn_out_of_order", path: "/message", reason: taken.reason };
    case "answered":
      storage.writeConversation(slot.seq, JSON.stringify(taken.conversation), null);
      return { kind: "answer", answer: taken.answer };
    case "ask":
      storage.writeConversation(slot.seq, JSON.stringify(taken.conversation), now);
      return ask(context, taken.conversation, now);
  }
}

function ask(context: TurnContext, conversation: ExternalConversation, now: number): TurnReply {
  const { run, slot } = context;
  const scenario = run.start.scenarios[slot.scenario_index];
  if (!scenario) return { kind: "missing" };
  return {
    kind: "ask",
    asked_at: now,
    conversation,
    job: {
      tenant_id: run.start.tenant_id,
      scenario,
      ...(run.start.user_model ? { user_model: run.start.user_model } : {}),
    },
  };
}

/** Why the repetition takes no more turns, or null while it does. */
function closedReason(context: TurnContext, conversation: ExternalConversation): TurnReply | null {
  const { slot, now } = context;
  // Said first whatever else has happened since (the record, the run's end): it is why nothing more comes.
  const failed = conversation.end?.stop_reason === "user_model_error" ? conversation.end.user_model_error : undefined;
  if (failed !== undefined)
    return {
      kind: "closed",
      code: "conversation_ended",
      reason: `the simulated user's model failed (${failed}), so the conversation is over and the repetition is an infrastructure error, not the agent's fail; it takes no more turns`,
    };
  if (context.ended || slot.record !== null)
    return {
      kind: "closed",
      code: "conversation_ended",
      reason: `the repetition is over (${context.ended ? "its run has ended" : "it has its record"}); it takes no more turns`,
    };
  if (slot.completed_at !== null)
    return {
      kind: "closed",
      code: "conversation_ended",
      reason: "the attempt has been completed; it takes no more turns",
    };
  if (slot.timed_out_at !== null || (slot.job_deadline !== null && now >= slot.job_deadline))
    return {
      kind: "closed",
      code: "repetition_timed_out",
      reason: `the job's deadline (${new Date(slot.job_deadline ?? now).toISOString()}) has passed; the repetition fails as timed_out`,
    };
  return null;
}

/**
 * The user model's answer to the reply taken at `askedAt`, stored unless another request took the
 * turn over meanwhile. `score`: the user model failed, so nothing more will come from the agent.
 */
export function answerTurn(
  storage: RunStorage,
  seq: number,
  turn: number,
  askedAt: number,
  step: UserStep,
): AnswerTurnReply {
  const row = storage.conversation(seq);
  if (!row) return { kind: "missing" };
  // SAFETY: written only by this module, from JSON.stringify of an ExternalConversation.
  const current = JSON.parse(row.state) as ExternalConversation;
  if (row.asking_at !== askedAt) return { kind: "stale", answer: answerTo(current, turn) };
  const conversation = applyUserStep(current, step);
  storage.writeConversation(seq, JSON.stringify(conversation), null);
  const answer = answerTo(conversation, turn);
  if (answer === null) throw new Error(`the user's answer to reply ${turn} left no answer to give`);
  return { kind: "ok", answer, score: conversation.end?.stop_reason === "user_model_error" };
}
