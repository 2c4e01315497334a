/**
 * The run coordinator's side of an external agent's conversation. conversation.ts keeps the turns
 * (the stored row and the rules put against it); this finds the repetition a turn belongs to and
 * acts for the repetition as a whole on what the turn decided: a turn past the job's deadline times
 * the repetition out, and a conversation over before its job was sent, or whose user model failed,
 * leaves the agent nothing to do, so the repetition is scored now rather than at its deadline.
 * The coordinator calls these from its own methods, so they stay serialised with all it does.
 */
import type { ExternalConversation } from "../../../core/evals/external-conversation.js";
import type { UserStep } from "../../../core/evals/user-turn.js";
import { ended } from "../coordinator/records.js";
import type { AnswerTurnReply, OpenConversationReply, TurnReply } from "../coordinator/replies.js";
import type { RunStorage, SlotRow, StoredRun } from "../coordinator/storage.js";
import { answerTurn, openConversation, storedConversation, takeTurn } from "./conversation.js";
import { awaitingAgent } from "./phases.js";

/** What the relay acts through: the coordinator's storage and clock, and two steps that stay the object's. */
export interface RelayHost {
  readonly storage: RunStorage;
  /** A turn's mark older than this is a request that was lost. */
  readonly repetitionTimeoutMs: number;
  now(): number;
  /** The run the object holds; `refresh` re-reads its status from storage. */
  run(refresh?: boolean): StoredRun | null;
  /** The agent has nothing left to do: the repetition is marked completed and the watchdog wakes to have it scored. */
  agentDone(seq: number): void;
  /** The agent ran out of time: marked so, and its message sent again so a delivery scores what it did. */
  timeOut(slot: SlotRow): void;
}

/** The opening of an external agent's conversation, stored before its job is sent; the first one stored stands. */
export function relayOpening(host: RelayHost, seq: number, conversation: ExternalConversation): OpenConversationReply {
  if (!host.run()) return { kind: "missing" };
  const slot = host.storage.slot(seq);
  if (!slot) return { kind: "missing" };
  const stored = openConversation(host.storage, seq, conversation);
  if (stored.end === null || !awaitingAgent(slot)) return { kind: "ok", conversation: stored, score: false };
  // Over before it began: nothing is sent to the agent, and a delivery scores it now.
  host.agentDone(seq);
  return { kind: "ok", conversation: stored, score: true };
}

/** An external agent's reply to a user message (conversation.ts has the rules). */
export function relayTurn(host: RelayHost, seq: number, tokenHash: string, turn: number, message: string): TurnReply {
  const run = host.run(true);
  if (!run) return { kind: "missing" };
  const slot = host.storage.slot(seq);
  if (!slot) return { kind: "missing" };
  const now = host.now();
  const context = { storage: host.storage, run, slot, now, staleMs: host.repetitionTimeoutMs, ended: ended(run) };
  const reply = takeTurn(context, tokenHash, turn, message);
  // A turn past the deadline times the repetition out at once, as a completion would.
  if (reply.kind === "closed" && reply.code === "repetition_timed_out") host.timeOut(slot);
  return reply;
}

/** The user model's answer to a reply relayTurn took; a failed user model ends the repetition, to be scored. */
export function relayAnswer(
  host: RelayHost,
  seq: number,
  turn: number,
  askedAt: number,
  step: UserStep,
): AnswerTurnReply {
  if (!host.run()) return { kind: "missing" };
  const reply = answerTurn(host.storage, seq, turn, askedAt, step);
  if (reply.kind !== "ok" || !reply.score) return reply;
  const slot = host.storage.slot(seq);
  if (!slot || !awaitingAgent(slot)) return { ...reply, score: false };
  // The agent has nothing left to do: the repetition is scored now (an infrastructure error), not at its deadline.
  host.agentDone(seq);
  return reply;
}

/** An external agent's conversation so far, for a repetition that holds one (its job and its record keep it). */
export function conversationOf(
  storage: RunStorage,
  run: StoredRun,
  slot: SlotRow,
): { conversation?: ExternalConversation } {
  if (run.start.agent.kind !== "external" || !run.start.scenarios[slot.scenario_index]?.user) return {};
  const conversation = storedConversation(storage, slot.seq);
  return conversation ? { conversation } : {};
}
