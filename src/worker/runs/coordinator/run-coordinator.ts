/**
 * One Durable Object per eval run: its plan, each repetition's job and record, the aggregate, and
 * the watchdog, in the object's own SQLite (storage.ts).
 *
 * Why it is shaped like this:
 * - Records are applied one at a time: a record is checked and written synchronously on SQLite
 *   (no await between), and a repetition that already has one keeps it. Queue delivery is at least
 *   once, so a redelivered message, a watchdog resend and a dead letter racing a late result all
 *   end with exactly one record per repetition.
 * - The aggregate is never kept as running totals: it is recomputed from the stored verdicts with
 *   core/scoring's runVerdict (progress.ts), so every figure traces back to repetitions.
 * - D1's `runs` row follows the coordinator (run-row.ts): progress after records, coalesced
 *   (progress-writer.ts), and every record at the end. A copy D1 refuses is retried by the alarm.
 * - The alarm is the watchdog (watchdog.ts decides, watchdog-pass.ts carries it out): what went
 *   quiet is sent again, what can no longer come is recorded as an infrastructure error, and the
 *   run ends at its deadline. Alarms may fire more than once; each step is idempotent.
 * - RPC drops custom error fields, so every method returns a tagged reply (replies.ts).
 * - Time comes from an injected Clock, never from Date.now() directly.
 */
import { DurableObject } from "cloudflare:workers";
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import { deadLetterRecord } from "../../../core/evals/evaluate-repetition.js";
import { systemClock, type Clock } from "../../../core/ports.js";
import type { Env } from "../../platform/env.js";
import { externalPhase } from "../external/phases.js";
import { conversationOf, relayAnswer, relayOpening, relayTurn, type RelayHost } from "../external/turn-relay.js";
import type { ExternalConversation } from "../../../core/evals/external-conversation.js";
import type { UserStep } from "../../../core/evals/user-turn.js";
import { sendRepetitions } from "../consumer/messages.js";
import { durationSetting, DEFAULT_REPETITION_TIMEOUT_MS, FINAL_RETRY_MS, PROGRESS_INTERVAL_MS } from "./lifetimes.js";
import { isRunStatus, runProgress, type RunEnding, type RunProgress, type RunStatus } from "./progress.js";
import type {
  AnswerTurnReply,
  CancelReply,
  ClaimReply,
  CompleteReply,
  JobReply,
  NextClaimReply,
  OpenConversationReply,
  ProgressReply,
  RecordReply,
  ReleaseReply,
  RepetitionsReply,
  RunMethods,
  RunStart,
  StartReply,
  TurnReply,
} from "./replies.js";
import { parseRecord, RunStorage, type SlotRow, type StoredRun } from "./storage.js";
import { nextWakeAt } from "./watchdog.js";
import { missingRef, slotIdentity, watchdogPass, type WatchdogHost } from "./watchdog-pass.js";
import { ended, entryOf } from "./records.js";
import { claimRefusal, jobOf, SharedParts } from "./claim.js";
import { writeEndedRun, writeProgressRow } from "./run-row.js";
import { ProgressWriter } from "./progress-writer.js";
import { VerdictCache } from "./verdict-cache.js";

export class RunCoordinator extends DurableObject<Env> implements RunMethods {
  private readonly storage: RunStorage;
  private readonly clock: Clock;
  private readonly repetitionTimeoutMs: number;
  /** undefined: storage not read yet; null: no run here. */
  private run: StoredRun | null | undefined;
  /** Where claimNext starts looking: every slot before it has been claimed or recorded. */
  private unclaimedFrom = 1;
  private readonly progressWriter: ProgressWriter;
  private readonly verdicts: VerdictCache;
  private readonly parts: SharedParts;
  /** What the modules the object delegates to act through. */
  private readonly host: RelayHost & WatchdogHost;

  constructor(ctx: DurableObjectState, env: Env, clock: Clock = systemClock) {
    super(ctx, env);
    this.clock = clock;
    this.storage = RunStorage.of(ctx.storage);
    this.repetitionTimeoutMs = durationSetting(env.EVAL_REPETITION_TIMEOUT_MS, DEFAULT_REPETITION_TIMEOUT_MS);
    this.verdicts = new VerdictCache(this.storage);
    this.parts = new SharedParts(this.storage);
    this.progressWriter = new ProgressWriter(() => this.writeProgress(), clock, PROGRESS_INTERVAL_MS);
    this.host = {
      storage: this.storage,
      env,
      repetitionTimeoutMs: this.repetitionTimeoutMs,
      now: () => clock.now(),
      run: (refresh) => this.load(refresh),
      agentDone: (seq) => this.agentDone(seq),
      timeOut: (slot) => this.timeOut(slot),
      writeRecord: (slot, record) => this.writeRecord(slot, record),
      finish: (ending) => this.end("finished", ending),
      progressChanged: () => this.writeProgressSoon(),
      wake: () => this.scheduleAlarm(this.nextAlarmAt()),
    };
  }

  /** Stores the run and arms the watchdog. Repeating the same start is harmless. */
  start(start: RunStart): StartReply {
    const existing = this.load();
    if (existing) {
      return existing.start.run_id === start.run_id
        ? { kind: "ok" }
        : { kind: "conflict", message: `this object already holds run ${existing.start.run_id}` };
    }
    this.storage.create(start, this.clock.now());
    this.run = undefined;
    this.scheduleAlarm(this.nextAlarmAt());
    return { kind: "ok" };
  }

  /** A delivery asks for its repetition's job; the first one marks the run as running. */
  async claim(seq: number): Promise<ClaimReply> {
    const run = this.load(true);
    if (!run) return { kind: "missing" };
    if (ended(run)) return { kind: "ended", status: run.status };
    const slot = this.storage.slot(seq);
    if (!slot) return { kind: "missing" };
    const refused = claimRefusal(slot, this.clock.now(), this.repetitionTimeoutMs);
    if (refused) return refused;
    return this.claimSlot(run, slot);
  }

  /**
   * A consumer with a free slot asks for the run's next repetition that no delivery has claimed
   * yet, ahead of its message (consumer/take-ahead.ts); that message, when it comes, finds the
   * repetition busy or done. External agents pace their own work: their runs answer none.
   */
  async claimNext(): Promise<NextClaimReply> {
    const run = this.load(true);
    if (!run) return { kind: "missing" };
    if (ended(run)) return { kind: "ended", status: run.status };
    if (run.start.agent.kind === "external") return { kind: "none" };
    const slot = this.storage.firstUnclaimed(this.unclaimedFrom);
    if (!slot) return { kind: "none" };
    // Claims are never taken back, so every slot before this one stays claimed or recorded.
    this.unclaimedFrom = slot.seq + 1;
    return this.claimSlot(run, slot);
  }

  private claimSlot(run: StoredRun, slot: SlotRow): JobReply {
    const seq = slot.seq;
    const now = this.clock.now();
    const claim = this.storage.claim(seq, now);
    const external = externalPhase(run, slot, now);
    if (external?.phase === "send") {
      this.storage.markJobSent(seq, external.deadline_at);
      // The watchdog wakes at the job's deadline to time it out.
      this.scheduleAlarm(this.nextAlarmAt());
    }
    const scenario = run.start.scenarios[slot.scenario_index];
    if (!scenario) return { kind: "missing" };
    if (run.status === "queued") {
      this.storage.writeStarted(now);
      this.run = undefined;
      this.writeProgressSoon();
    }
    const held = conversationOf(this.storage, run, slot);
    return { kind: "job", job: jobOf(run, slot, { claim, scenario, external, held }, this.parts) };
  }

  /**
   * An external agent reports its attempt complete (POST /api/attempts/:id/complete). The first
   * completion before the deadline counts; the caller then sends the repetition's message, whose
   * delivery scores it (and the watchdog resends it if that message is lost).
   */
  completeAgent(seq: number): CompleteReply {
    const run = this.load(true);
    if (!run) return { kind: "missing" };
    const slot = this.storage.slot(seq);
    if (!slot) return { kind: "missing" };
    if (slot.record !== null) return { kind: "recorded", record: parseRecord(slot.record) };
    if (ended(run)) return { kind: "ended", status: run.status };
    if (slot.completed_at !== null) return { kind: "already_completed" };
    if (slot.timed_out_at !== null || (slot.job_deadline !== null && this.clock.now() >= slot.job_deadline)) {
      this.timeOut(slot);
      return { kind: "timed_out", deadline_at: slot.job_deadline ?? this.clock.now() };
    }
    if (slot.job_deadline === null) return { kind: "not_sent" };
    this.agentDone(seq);
    return { kind: "ok" };
  }

  /** The opening of an external agent's conversation, stored before its job is sent (runs/external/turn-relay.ts). */
  openConversation(seq: number, conversation: ExternalConversation): OpenConversationReply {
    return relayOpening(this.host, seq, conversation);
  }

  /** An external agent's reply to a user message (runs/external/turn-relay.ts). */
  takeTurn(seq: number, tokenHash: string, turn: number, message: string): TurnReply {
    return relayTurn(this.host, seq, tokenHash, turn, message);
  }

  /** The user model's answer to a reply taken by takeTurn (runs/external/turn-relay.ts). */
  answerTurn(seq: number, turn: number, askedAt: number, step: UserStep): AnswerTurnReply {
    return relayAnswer(this.host, seq, turn, askedAt, step);
  }

  /**
   * The delivery failed and will be retried: the repetition is free again; the error is kept for a
   * dead letter. `resending`: the caller sends it a new message rather than retry its own (a
   * repetition taken ahead of its message), and that send counts as one.
   */
  release(seq: number, error: string, resending = false): ReleaseReply {
    if (!this.load() || !this.storage.slot(seq)) return { kind: "missing" };
    this.storage.release(seq, error, resending ? this.clock.now() : null);
    return { kind: "ok" };
  }

  /** A repetition's result. The first record of a repetition is kept; any later one changes nothing. */
  async record(seq: number, record: RepetitionRecord): Promise<RecordReply> {
    const run = this.load(true);
    if (!run) return { kind: "missing" };
    if (ended(run)) return { kind: "ended", status: run.status };
    const slot = this.storage.slot(seq);
    if (!slot) return { kind: "missing" };
    if (!this.writeRecord(slot, record)) return { kind: "duplicate" };
    // A result that arrives without a claim (a dead letter) still means the run has begun.
    if (run.status === "queued") {
      this.storage.writeStarted(this.clock.now());
      this.run = undefined;
    }
    if (this.storage.pendingCount() === 0) {
      await this.end("finished", { reason: "completed", missing: [] });
      return { kind: "recorded", finished: true };
    }
    // Not awaited: the delivery is acknowledged at once, and D1 catches up within PROGRESS_INTERVAL_MS.
    this.writeProgressSoon();
    return { kind: "recorded", finished: false };
  }

  /** A message that exhausted its retries: recorded as an infrastructure error with the last error it met. */
  async deadLetter(seq: number, error: string | null): Promise<RecordReply> {
    const run = this.load();
    if (!run) return { kind: "missing" };
    const slot = this.storage.slot(seq);
    if (!slot) return { kind: "missing" };
    const last_error = error ?? slot.last_error ?? "none was reported by its deliveries";
    return this.record(seq, deadLetterRecord({ ...slotIdentity(run, slot), last_error, at: this.clock.now() }));
  }

  /** Pending repetitions are not run; the run ends `cancelled` with the figures of what finished. */
  async cancel(): Promise<CancelReply> {
    const run = this.load(true);
    if (!run) return { kind: "missing" };
    if (ended(run)) return { kind: "already_ended", progress: this.currentProgress() };
    await this.end("cancelled", {
      reason: "cancelled",
      missing: this.storage.unrecorded().map((slot) => missingRef(run, slot)),
    });
    return { kind: "cancelled", progress: this.currentProgress() };
  }

  progress(): ProgressReply {
    const run = this.load();
    if (!run) return { kind: "missing" };
    if (!ended(run)) this.ensureWatchdog();
    return { kind: "ok", progress: this.currentProgress() };
  }

  repetitions(afterSeq: number, limit: number): RepetitionsReply {
    const run = this.load();
    if (!run) return { kind: "missing" };
    return { kind: "ok", items: this.storage.slots(afterSeq, limit).map((slot) => entryOf(run, slot)) };
  }

  /** The watchdog (watchdog-pass.ts); once the run has ended, only its copy to D1 is retried until it lands. */
  override async alarm(): Promise<void> {
    const run = this.load(true);
    if (!run) return;
    if (!ended(run)) return watchdogPass(this.host, run);
    if (!run.final_written) await this.writeFinal();
  }

  // -- ending --------------------------------------------------------------------------------

  private async end(status: "finished" | "cancelled", ending: RunEnding): Promise<void> {
    // Two paths may reach the end at once (the last record, and an alarm that awaited a send): the first one ends it.
    const run = this.load(true);
    if (!run || ended(run)) return;
    this.storage.writeEnded(status, JSON.stringify(ending), this.clock.now());
    this.run = undefined;
    await this.writeFinal();
  }

  /** Every record to run_repetitions, then the final row; on failure the alarm tries again. */
  private async writeFinal(): Promise<void> {
    const run = this.load();
    if (!run) return;
    try {
      await writeEndedRun(this.env, run, this.storage, this.currentProgress());
    } catch (error) {
      console.error("copying the ended run to D1 failed; retrying", error);
      this.scheduleAlarm(this.clock.now() + FINAL_RETRY_MS);
      return;
    }
    this.storage.markFinalWritten();
    this.run = undefined;
    await this.ctx.storage.deleteAlarm();
  }

  // -- progress ------------------------------------------------------------------------------

  private currentProgress(): RunProgress {
    const run = this.load();
    if (!run) throw new Error("reading the progress of a coordinator that holds no run");
    const verdicts = this.verdicts.all();
    const status: RunStatus = isRunStatus(run.status) ? run.status : "running";
    return runProgress(run.start, this.storage.total(), verdicts, {
      status,
      started_at: run.started_at,
      finished_at: run.finished_at,
      ending: run.ending,
    });
  }

  private writeProgressSoon(): void {
    this.progressWriter.soon();
  }

  /** One progress write to D1; false once the run has ended (its final row is end()'s to write). */
  private async writeProgress(): Promise<boolean> {
    const run = this.load();
    if (!run || ended(run)) return false;
    await writeProgressRow(this.env, run, this.currentProgress());
    return true;
  }

  /** The repetition's first record, written with its verdict (in memory too); false when it already had one. */
  private writeRecord(slot: SlotRow, record: RepetitionRecord): boolean {
    if (
      !this.storage.writeRecord(
        slot.seq,
        JSON.stringify(record),
        JSON.stringify(record.verdict),
        record.verdict.outcome,
      )
    )
      return false;
    this.verdicts.recorded(slot, record.verdict, record.conversation?.usage);
    return true;
  }

  // -- helpers -------------------------------------------------------------------------------

  /** The agent has nothing left to do: marked completed, and the watchdog wakes to send it to be scored. */
  private agentDone(seq: number): void {
    this.storage.markAgentDone(seq, "completed_at", this.clock.now());
    this.scheduleAlarm(this.nextAlarmAt());
  }

  /** An external agent out of time: marked, and its message sent again so a delivery scores what it did. */
  private timeOut(slot: SlotRow): void {
    const run = this.load();
    if (!run || slot.timed_out_at !== null) return;
    this.storage.markAgentDone(slot.seq, "timed_out_at", this.clock.now());
    sendRepetitions(this.env.EVAL_QUEUE, run.start.run_id, [slot.seq]).catch((error: unknown) =>
      console.error("sending a timed-out repetition failed; the watchdog resends it", error),
    );
  }

  private nextAlarmAt(): number {
    const run = this.load();
    if (!run) return this.clock.now();
    return nextWakeAt(this.storage.unrecorded(), run.start.deadline_at, this.repetitionTimeoutMs);
  }

  /**
   * Re-arms the watchdog of a live run that has none (a local runtime restarted between an alarm
   * and the next): anyone reading the run's progress is enough to get it going again.
   */
  private ensureWatchdog(): void {
    this.ctx.storage
      .getAlarm()
      .then((at) => {
        if (at === null) this.scheduleAlarm(this.nextAlarmAt());
      })
      .catch((error: unknown) => console.error("reading the run alarm failed", error));
  }

  /** Not awaited: SQLite-backed objects commit the alarm with the writes around it. */
  private scheduleAlarm(at: number): void {
    this.ctx.storage.setAlarm(at).catch((error: unknown) => console.error("setting the run alarm failed", error));
  }

  /**
   * The run, read from storage once (migrating the storage first); `refresh` re-reads only its
   * status columns, which every path that decides on them trusts storage for, not memory.
   */
  private load(refresh = false): StoredRun | null {
    if (this.run && refresh) {
      this.run = { ...this.run, ...this.storage.readState() };
      return this.run;
    }
    if (this.run !== undefined) return this.run;
    if (!this.storage.holdsRun()) {
      this.run = null;
      return null;
    }
    this.storage.migrate();
    this.run = this.storage.readRun();
    return this.run;
  }
}
