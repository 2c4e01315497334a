/**
 * One Durable Object per attempt: the pinned definitions, the per-tool state, the lease and the
 * evidence of one agent run, in the object's own SQLite storage (storage.ts). This file is the
 * object's own job: it serializes the calls and runs its lifecycle (setup, lease, flushes, leaving
 * memory, retirement). What a call does is call.ts; the attempt in memory, live.ts and tool-states.ts.
 *
 * Why it is shaped like this:
 * - A Durable Object only serializes its events around storage calls; any other await lets the
 *   next request in. So a call's read → render → write (applyCall) runs synchronously on SQLite,
 *   with no await anywhere between reading the state and writing the new one: concurrent calls
 *   are applied one after another and no update is lost.
 * - The capability token is checked here, in the same RPC as the call, against the hash the
 *   object was set up with: a dispatch costs one RPC and no D1 read.
 * - delay_ms is returned to the Worker, which waits; the object is never held across a delay.
 * - Evidence is written to the object's SQLite with the state change, then copied to D1 in
 *   batches (flusher.ts, on flush-schedule.ts's timing) when the attempt goes quiet, by the alarm while it stays busy,
 *   and before every evidence read: dispatch never waits on D1, a flush that runs twice changes
 *   nothing, and a flush D1 refuses is retried, never skipped.
 * - RPC drops custom error fields, so every method returns a result object (replies.ts)
 *   instead of throwing.
 * - Time comes from an injected Clock, never from Date.now() directly.
 */
import { DurableObject } from "cloudflare:workers";
import { constantTimeEqual } from "../../adapters/crypto.js";
import { databaseOf } from "../../adapters/d1/database.js";
import { utf8Length } from "../../core/utf8.js";
import { valueAt } from "../../core/datasets/pointer.js";
import type { JsonObject } from "../../core/json.js";
import { messageOf } from "../../core/message-of.js";
import { systemClock, type Clock } from "../../core/ports.js";
import {
  parseDispatchRequest,
  parseDispatchText,
  type DispatchRequest,
} from "../../core/simulation/dispatch-request.js";
import type { AttemptSetup } from "../../core/simulation/setup.js";
import { afterCompletion, afterLeaseEnd, isAttemptStatus } from "../../core/simulation/status.js";
import type { Env } from "../platform/env.js";
import { MAX_ATTEMPT_ROW_BYTES } from "./attempt-row.js";
import { applyCall, type CallPorts, type InFlight } from "./call.js";
import { refusal } from "./call-outcomes.js";
import { FlushSchedule } from "./flush-schedule.js";
import { d1EvidenceSink, evidenceFlusher, type EvidenceFlusher } from "./flusher.js";
import { FLUSH_RETRY_MS, idleFlushMs, RETENTION_MS } from "./lifetimes.js";
import { liveOf, snapshotOf, toolListing, type Live } from "./live.js";
import { ForwardWaiters } from "./real/forward-waiters.js";
import type {
  AttemptMethods,
  CallsReply,
  CompleteReply,
  DescribeReply,
  DispatchReply,
  FlushReply,
  RecordedReply,
  ReleaseReply,
  SetupReply,
  SnapshotReply,
  StateReadReply,
  UpstreamAnswer,
} from "./replies.js";
import { type AttemptOwn, setupOf, setupTextOf, sharedSetupOf } from "./shared-setups.js";
import { AttemptStorage } from "./storage.js";

export class AttemptObject extends DurableObject<Env> implements AttemptMethods {
  private readonly storage: AttemptStorage;
  private readonly flusher: EvidenceFlusher;
  private readonly clock: Clock;
  /** undefined: storage not read yet; null: this object was never set up (or was retired). */
  private live: Live | null | undefined;
  private readonly flushes: FlushSchedule;
  /** Per call_id out at its real handler, the repeats waiting for its answer (woken by recordReal). */
  private readonly waiting = new ForwardWaiters();
  /** Calls handed out to the Worker whose answers have not come back to recordReal yet. */
  private forwardsOut = 0;
  private readonly callPorts: CallPorts;

  constructor(ctx: DurableObjectState, env: Env, clock: Clock = systemClock) {
    super(ctx, env);
    this.clock = clock;
    this.storage = AttemptStorage.of(ctx.storage);
    this.flusher = evidenceFlusher(this.storage, d1EvidenceSink(databaseOf(env.DB)), () => {
      const live = this.live;
      if (!live) throw new Error("flushing an attempt that is not loaded");
      return {
        attemptId: live.setup.attempt_id,
        tenantId: live.setup.tenant_id,
        status: live.status,
        state: JSON.stringify(live.tools.all()),
      };
    });
    this.flushes = new FlushSchedule({
      clock,
      idleFlushMs: idleFlushMs(env.EVIDENCE_IDLE_FLUSH_MS),
      flush: () => this.flusher.flush(),
      hasUnflushed: () => this.storage.hasUnflushed(),
      setAlarm: (at) => this.scheduleAlarm(at),
      lease: () => this.live ?? null,
      quietAlarmAt: () => (this.live ? this.quietAlarmAt(this.live) : this.clock.now()),
    });
    this.callPorts = {
      storage: this.storage,
      clock,
      noticeLeaseEnd: (live) => this.noticeLeaseEnd(live),
      changed: () => this.flushes.changed(),
      forwarded: () => {
        this.forwardsOut++;
      },
    };
  }

  /** Stores the attempt's pinned definitions, token hash and lease. Repeating the same setup is harmless. */
  setup(setup: AttemptSetup): SetupReply {
    return this.setUp(setup, null);
  }

  /**
   * setup() for the run consumer: the attempt's own fields, and the operations and tools that its
   * scenario's repetitions share as JSON text. A string crosses the RPC boundary as bytes, where the
   * object graph of a large setup (τ-bench retail's 16 operations, ~53 KB) cost the sender 2 to 4 ms
   * of structured cloning per attempt; the text is parsed once per isolate (shared-setups.ts). Text
   * without checked examples (the coordinator strips them) is stored as it came.
   */
  setupShared(own: AttemptOwn, shared: string): SetupReply {
    const parts = sharedSetupOf(shared);
    return this.setUp(setupOf(own, parts), parts.hasExamples ? null : setupTextOf(own, shared));
  }

  private setUp(setup: AttemptSetup, storedText: string | null): SetupReply {
    const existing = this.load();
    if (existing) {
      return existing.setup.attempt_id === setup.attempt_id
        ? { kind: "ok" }
        : { kind: "conflict", message: `this object already holds attempt ${existing.setup.attempt_id}` };
    }
    // The attempt as just stored, without reading it back: the first call would otherwise read the
    // whole setup again (τ-bench retail's is 53 KB), parse it, and compile the two statements that
    // read the version and the row, all kept by this object while it stays loaded. Measured with
    // bench:memory's retail workload: about 0.015 MiB less per live attempt.
    this.live = liveOf(this.storage.create(setup, storedText), this.storage, this.env);
    this.scheduleAlarm(setup.expires_at);
    return { kind: "ok" };
  }

  /** POST /api/attempts/:id/dispatch: the body's JSON text, parsed here so it crosses the RPC boundary as one string. */
  dispatch(tokenHash: string, body: string): DispatchReply | Promise<DispatchReply> {
    const live = this.authorized(tokenHash);
    if (!live) return live === null ? { kind: "missing" } : { kind: "unauthorized" };
    const parsed = parseDispatchText(body);
    if (parsed.ok) return this.settle(live, parsed.request);
    return "malformed" in parsed ? { kind: "malformed_json", message: parsed.malformed } : refusal(parsed);
  }

  /** tools/call over MCP: the same call algorithm, state and evidence as dispatch. */
  dispatchRequest(tokenHash: string, request: DispatchRequest): DispatchReply | Promise<DispatchReply> {
    const live = this.authorized(tokenHash);
    if (!live) return live === null ? { kind: "missing" } : { kind: "unauthorized" };
    const parsed = parseDispatchRequest(request);
    return parsed.ok ? this.settle(live, parsed.request) : refusal(parsed);
  }

  /**
   * The real handler's answer to a call dispatch handed out as a forward: checked against the
   * output schema and recorded. A real answer that breaks the contract is still the agent's answer;
   * the evidence records the violation.
   */
  recordReal(tokenHash: string, request: DispatchRequest, answer: UpstreamAnswer): RecordedReply {
    const live = this.authorized(tokenHash);
    if (!live) return live === null ? { kind: "missing" } : { kind: "unauthorized" };
    const parsed = parseDispatchRequest(request);
    if (!parsed.ok) return refusal(parsed);
    const reply = applyCall(this.callPorts, live, parsed.request, answer);
    this.forwardsOut = Math.max(0, this.forwardsOut - 1);
    // Whatever became of it (recorded, or a replay when a repeat handed out after the deadline
    // came back first), the call is no longer out: its waiting repeats read the evidence now.
    const callId = parsed.request.call_id;
    if (callId !== undefined) {
      this.storage.deleteForward(callId);
      this.waiting.wake(callId);
    }
    if (reply.kind === "forward" || reply.kind === "in_flight")
      return { kind: "invalid_request", problems: [{ path: "/tool", message: "the call was forwarded twice" }] };
    return reply;
  }

  /** The pinned tools, for MCP tools/list (and the token check every MCP request starts with). */
  describe(tokenHash: string): DescribeReply {
    const live = this.authorized(tokenHash);
    if (!live) return live === null ? { kind: "missing" } : { kind: "unauthorized" };
    this.noticeLeaseEnd(live);
    return { kind: "ok", lease_ended: live.leaseEnded, tools: toolListing(live.setup) };
  }

  /** Status, state and counts as they are right now (the caller has authorized the reader). */
  snapshot(): SnapshotReply {
    const live = this.load();
    if (!live) return { kind: "missing" };
    this.noticeLeaseEnd(live);
    return { kind: "ok", snapshot: snapshotOf(live, this.storage) };
  }

  /** POST /api/attempts/:id/complete: the agent's final output and transcript. */
  complete(tokenHash: string, completion: JsonObject): CompleteReply {
    const live = this.authorized(tokenHash);
    if (!live) return live === null ? { kind: "missing" } : { kind: "unauthorized" };
    this.noticeLeaseEnd(live);
    if (live.leaseEnded) return { kind: "lease_expired" };
    if (live.completed) return { kind: "already_completed" };
    const record: JsonObject = { ...completion, completed_at: new Date(this.clock.now()).toISOString() };
    const text = JSON.stringify(record);
    const bytes = live.tools.allBytes() + utf8Length(text);
    if (bytes > MAX_ATTEMPT_ROW_BYTES) return { kind: "too_large", bytes, limit_bytes: MAX_ATTEMPT_ROW_BYTES };
    const status = afterCompletion(live.status);
    this.storage.writeCompletion(text, status);
    live.status = status;
    live.completed = true;
    this.flushes.changed();
    return { kind: "ok", snapshot: snapshotOf(live, this.storage) };
  }

  /** Evidence rows after `afterSeq` (at most `limit`), from the object's own storage; the caller has authorized the reader. */
  calls(afterSeq: number, limit: number): CallsReply {
    if (!this.load()) return { kind: "missing" };
    return { kind: "ok", calls: this.storage.callsAfter(afterSeq, limit) };
  }

  /** One value of a tool's current state (GET /api/attempts/:id/state); the caller has authorized the reader. */
  async readState(toolName: string, tokens: string[]): Promise<StateReadReply> {
    const live = this.load();
    if (!live) return { kind: "missing" };
    if (!live.setup.tools.some((tool) => tool.tool_name === toolName))
      return { kind: "unknown_tool", tools: live.setup.tools.map((tool) => tool.tool_name) };
    if (!live.tools.ready()) await live.tools.load();
    let state: JsonObject;
    try {
      state = live.tools.of(toolName);
    } catch (error) {
      return { kind: "failed", message: messageOf(error) };
    }
    const value = valueAt(state, tokens);
    return value === undefined ? { kind: "absent" } : { kind: "ok", value };
  }

  /** Copies every unflushed call to D1 now; GET evidence calls this before reading D1. */
  async flush(): Promise<FlushReply> {
    const live = this.load();
    if (!live) return { kind: "missing" };
    try {
      await this.flusher.flush();
    } catch (error) {
      console.error("evidence flush to D1 failed; the alarm will retry", error);
      return { kind: "failed", message: messageOf(error) };
    }
    this.flushes.flushedOutsideAlarm();
    return { kind: "flushed", last_seq: live.nextSeq - 1 };
  }

  /**
   * The eval consumer is done with this attempt (its repetition is recorded): copy the evidence to
   * D1 now, then leave memory rather than stay loaded, which the idle timer would make it do for
   * IDLE_FLUSH_MS and the runtime for its own idle time after that. Storage stays as it is (the
   * lease, the alarm and retention run their course), so reads keep working and a late call is
   * answered by the same object, loaded again.
   */
  async release(tokenHash: string): Promise<ReleaseReply> {
    const live = this.authorized(tokenHash);
    if (!live) return live === null ? { kind: "missing" } : { kind: "unauthorized" };
    const flushed = await this.flush();
    if (flushed.kind !== "flushed") return flushed;
    await this.leaveMemory("released: its repetition is recorded");
    return { kind: "released", last_seq: flushed.last_seq };
  }

  /**
   * Drops this instance (and its SQLite connection) as soon as the current reply has gone, once
   * every write is durable: storage stays exactly as it is, and the next request, if any, is
   * answered by a fresh instance loaded from it.
   */
  private async leaveMemory(reason: string): Promise<void> {
    if (this.busyWithForwards()) return;
    this.flushes.stopIdleTimer();
    await this.ctx.storage.sync();
    const seq = this.live?.nextSeq;
    setTimeout(() => {
      // Checked again when it fires: a call that came in meanwhile keeps the object (its write may
      // not be durable yet, and its caller is still waiting for the reply).
      if (this.busyWithForwards() || this.live?.nextSeq !== seq) return;
      this.ctx.abort(reason);
    }, 0);
  }

  /**
   * Whether leaving memory now would cut a real call off: an abort fails every request in progress
   * (a repeat waiting for a real answer) and breaks the stubs callers hold, so the recordReal of a
   * call still out would fail and its real answer be lost. The runtime unloads the object later
   * instead, once it is idle.
   */
  private busyWithForwards(): boolean {
    return this.forwardsOut > 0 || this.waiting.busy();
  }

  /**
   * One alarm does all timed work: end the lease when its time has come, copy evidence to D1,
   * retire the storage long after the lease, then set the next alarm. Every step is idempotent,
   * because alarms may fire more than once.
   */
  override async alarm(): Promise<void> {
    const live = this.load(true);
    if (!live) return;
    this.flushes.alarmSet = false;
    this.noticeLeaseEnd(live);
    try {
      await this.flusher.flush();
    } catch (error) {
      // Loud, and nothing is marked flushed: the same rows go again at the retry.
      console.error("evidence flush to D1 failed; retrying", error);
      this.scheduleAlarm(this.clock.now() + FLUSH_RETRY_MS);
      this.flushes.alarmSet = true;
      return;
    }
    if (this.storage.hasUnflushed()) {
      this.flushes.changed();
      return;
    }
    // The alarm set below is not a flush alarm: the next call must set its own.
    this.flushes.alarmSet = false;
    const next = this.quietAlarmAt(live);
    if (live.leaseEnded && this.clock.now() >= next) {
      // Everything is in D1: the object's copy is no longer needed.
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      this.live = null;
    } else {
      this.scheduleAlarm(next);
    }
  }

  /** The next alarm when nothing waits for D1: the lease end, or once it has passed, the end of retention. */
  private quietAlarmAt(live: Live): number {
    return live.leaseEnded ? live.expiresAt + RETENTION_MS : live.expiresAt;
  }

  /** Not awaited on purpose: SQLite-backed objects apply alarm changes with the same commit as the writes around them. */
  private scheduleAlarm(at: number): void {
    this.ctx.storage.setAlarm(at).catch((error: unknown) => console.error("setting the attempt alarm failed", error));
  }

  // -- the call ------------------------------------------------------------------------------

  /** A call's reply; a repeat of a call_id that is out at its real handler gets that call's answer once it is recorded. */
  private settle(live: Live, request: DispatchRequest): DispatchReply | Promise<DispatchReply> {
    // Bases load before the call's synchronous read → render → write, never inside it; a base that
    // failed to load makes this call a harness error (ToolStates.of throws) and the next call tries again.
    if (!live.tools.ready())
      return live.tools.load().then(() => this.answer(request, applyCall(this.callPorts, live, request)));
    return this.answer(request, applyCall(this.callPorts, live, request));
  }

  private answer(request: DispatchRequest, reply: DispatchReply | InFlight): DispatchReply | Promise<DispatchReply> {
    return reply.kind === "in_flight" ? this.awaitForward(request, reply) : reply;
  }

  /**
   * Waits until the call out under this call_id is recorded (recordReal wakes the waiters) or its
   * deadline passes, then answers the repeat as any repeat: the replay of the recorded call, or,
   * when the Worker that sent it never came back, the call handed out again.
   */
  private async awaitForward(request: DispatchRequest, out: InFlight): Promise<DispatchReply> {
    let pending = out;
    for (;;) {
      await this.waiting.wait(pending.call_id, pending.deadline, this.clock.now());
      const live = this.load();
      if (!live) return { kind: "missing" };
      const reply = applyCall(this.callPorts, live, request);
      if (reply.kind !== "in_flight") return reply;
      pending = reply;
    }
  }

  // -- lease ---------------------------------------------------------------------------------

  /** Ends the lease once its time has passed, whether the alarm or a call notices first. */
  private noticeLeaseEnd(live: Live): void {
    if (live.leaseEnded || this.clock.now() < live.expiresAt) return;
    const status = afterLeaseEnd(live.status);
    this.storage.writeLeaseEnd(status);
    live.leaseEnded = true;
    live.status = status;
    this.flushes.changed();
  }

  // -- loading -------------------------------------------------------------------------------

  /**
   * The attempt when the token opens it; null when the object holds no attempt at all (the
   * Worker asks D1 whether that means lost storage), undefined for a token that is not its own.
   */
  private authorized(tokenHash: string): Live | null | undefined {
    const live = this.load();
    if (!live) return null;
    return constantTimeEqual(live.setup.token_hash, tokenHash) ? live : undefined;
  }

  /**
   * Reads the attempt from storage once, migrating the storage to the current schema first;
   * `refresh` re-reads the lease (the alarm trusts storage, not memory).
   */
  private load(refresh = false): Live | null {
    if (this.live !== undefined && !refresh) return this.live;
    if (this.live && refresh) {
      const lease = this.storage.readLease();
      this.live.expiresAt = lease.expiresAt;
      this.live.leaseEnded = lease.leaseEnded;
      if (isAttemptStatus(lease.status)) this.live.status = lease.status;
      return this.live;
    }
    const stored = this.storage.open();
    if (!stored) {
      this.live = null;
      return null;
    }
    this.live = liveOf(stored, this.storage, this.env);
    return this.live;
  }
}
