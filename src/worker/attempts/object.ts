/**
 * One Durable Object per attempt: the pinned definitions, the per-tool state, the lease and the
 * evidence of one agent run, in the object's own SQLite storage (storage.ts).
 *
 * Why it is shaped like this:
 * - A Durable Object only serializes its events around storage calls; any other await lets the
 *   next request in. So a call's read → render → write runs synchronously on the object's SQLite,
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
import { executeCall } from "../../core/contract/index.js";
import { setOwn } from "../../core/contract/values.js";
import type { CallOutcome } from "../../core/contract/types.js";
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from "../../core/json.js";
import { systemClock, type Clock } from "../../core/ports.js";
import {
  parseDispatchRequest,
  parseDispatchText,
  type DispatchRequest,
} from "../../core/simulation/dispatch-request.js";
import type { StateChange, UpstreamRecord } from "../../core/simulation/evidence.js";
import type { AttemptSetup, PinnedOperation } from "../../core/simulation/setup.js";
import {
  afterCompletion,
  afterHarnessError,
  afterLeaseEnd,
  isAttemptStatus,
  type AttemptStatus,
} from "../../core/simulation/status.js";
import { indexTargets, resolveTarget, type TargetIndex } from "../../core/simulation/target.js";
import { d1EvidenceSink, evidenceFlusher, type EvidenceFlusher } from "./flusher.js";
import { FLUSH_RETRY_MS, FORWARD_GRACE_MS, idleFlushMs, MAX_CALLS, RETENTION_MS } from "./lifetimes.js";
import type {
  AttemptMethods,
  AttemptSnapshot,
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
import { sharedOperation } from "./shared-operations.js";
import { DatasetState } from "./dataset-state.js";
import { valueAt } from "../../core/datasets/pointer.js";
import { messageOf } from "../../core/message-of.js";
import { AttemptStorage } from "./storage.js";
import { answerOf, evidenceRowOf, sameCall } from "./call-records.js";
import { harnessOutcome, refusal } from "./call-outcomes.js";
import { FlushSchedule } from "./flush-schedule.js";
import { ForwardWaiters } from "./real/forward-waiters.js";
import { realOutcome } from "./real/real-outcome.js";
import type { Env } from "../platform/env.js";
import { schemaValidator } from "../platform/services.js";

/**
 * apply()'s answer to a repeat of a call_id whose real call is out at its real handler (the
 * forwards table): the repeat waits for that call's answer (awaitForward), never leaves the object.
 */
interface InFlight {
  kind: "in_flight";
  call_id: string;
  deadline: number;
}

/** What the object keeps in memory between calls; storage stays the source of truth. */
interface Live {
  setup: AttemptSetup;
  index: TargetIndex;
  initial: Map<string, JsonObject>;
  /** Some operation is real: only then can a call be out at a real handler (the forwards table). */
  hasReal: boolean;
  /** Current state per tool name; filled from storage on first use. */
  states: Map<string, JsonObject>;
  /** The tools that start from a pinned dataset (copy-on-write over a shared base); null when none does. */
  datasets: DatasetState | null;
  status: AttemptStatus;
  expiresAt: number;
  leaseEnded: boolean;
  completed: boolean;
  nextSeq: number;
}

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
        state: JSON.stringify(this.allStates(live)),
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
  }

  /** Stores the attempt's pinned definitions, token hash and lease. Repeating the same setup is harmless. */
  setup(setup: AttemptSetup): SetupReply {
    const existing = this.load();
    if (existing) {
      return existing.setup.attempt_id === setup.attempt_id
        ? { kind: "ok" }
        : { kind: "conflict", message: `this object already holds attempt ${existing.setup.attempt_id}` };
    }
    this.storage.create(setup);
    this.live = undefined;
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
    const reply = this.apply(live, parsed.request, answer);
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
    return {
      kind: "ok",
      lease_ended: live.leaseEnded,
      tools: live.setup.operations.map((op) => ({
        function_name: op.function_name,
        tool_name: op.tool_name,
        operation_id: op.operation_id,
        description: op.description,
        input_schema: op.input_schema,
        output_schema: op.output_schema,
        annotations: op.annotations,
      })),
    };
  }

  /** Status, state and counts as they are right now (the caller has authorized the reader). */
  snapshot(): SnapshotReply {
    const live = this.load();
    if (!live) return { kind: "missing" };
    this.noticeLeaseEnd(live);
    return { kind: "ok", snapshot: this.snapshotOf(live) };
  }

  /** POST /api/attempts/:id/complete: the agent's final output and transcript. */
  complete(tokenHash: string, completion: JsonObject): CompleteReply {
    const live = this.authorized(tokenHash);
    if (!live) return live === null ? { kind: "missing" } : { kind: "unauthorized" };
    this.noticeLeaseEnd(live);
    if (live.leaseEnded) return { kind: "lease_expired" };
    if (live.completed) return { kind: "already_completed" };
    const record: JsonObject = { ...completion, completed_at: new Date(this.clock.now()).toISOString() };
    const status = afterCompletion(live.status);
    this.storage.writeCompletion(JSON.stringify(record), status);
    live.status = status;
    live.completed = true;
    this.flushes.changed();
    return { kind: "ok", snapshot: this.snapshotOf(live) };
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
    if (live.datasets && !live.datasets.ready()) await live.datasets.load();
    let state: JsonObject;
    try {
      state = this.stateOf(live, toolName);
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

  // -- the call ------------------------------------------------------------------------------

  /** A call's reply; a repeat of a call_id that is out at its real handler gets that call's answer once it is recorded. */
  private settle(live: Live, request: DispatchRequest): DispatchReply | Promise<DispatchReply> {
    // Bases load before the call's synchronous read → render → write, never inside it; a base that
    // failed to load makes this call a harness error (stateOf throws) and the next call tries again.
    if (live.datasets && !live.datasets.ready())
      return live.datasets.load().then(() => this.answer(request, this.apply(live, request)));
    return this.answer(request, this.apply(live, request));
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
      const reply = this.apply(live, request);
      if (reply.kind !== "in_flight") return reply;
      pending = reply;
    }
  }

  /** `upstream`: the real handler's answer, when this is a forwarded call coming back to be recorded. */
  private apply(live: Live, request: DispatchRequest, upstream?: UpstreamAnswer): DispatchReply | InFlight {
    const target = resolveTarget(live.index, request.tool, request.operation_id);
    if (target.kind === "ambiguous")
      return { kind: "ambiguous", message: target.message, operation_ids: target.operation_ids };
    const operation = target.kind === "operation" ? target.operation : null;
    const tool = operation ? operation.function_name : request.tool;
    const operationId = operation ? operation.operation_id : (request.operation_id ?? "");

    if (request.call_id !== undefined) {
      const prior = this.storage.callById(request.call_id);
      if (prior) {
        if (!sameCall(prior, tool, operationId, request))
          return { kind: "call_id_conflict", call_id: request.call_id, seq: prior.seq };
        return { kind: "answer", answer: answerOf(prior, true) };
      }
      // Out at its real handler and not back yet: sending it again would reach the real system
      // twice. Checked for every call of an attempt with real operations (a mock call reusing the
      // call_id is a conflict too), and for none of an attempt without: no read on that hot path.
      const out = upstream || !live.hasReal ? undefined : this.storage.forwardById(request.call_id);
      if (out && out.deadline > this.clock.now()) {
        if (!sameCall(out, tool, operationId, request))
          return { kind: "call_id_conflict", call_id: request.call_id, seq: null };
        return { kind: "in_flight", call_id: request.call_id, deadline: out.deadline };
      }
    }
    // A forwarded call coming back was within the limit when it was handed out, and the real
    // system has acted on it: it is recorded even when calls recorded meanwhile reached the limit
    // (so an attempt may hold MAX_CALLS plus the real calls that were out at that moment).
    if (!upstream && live.nextSeq > MAX_CALLS) return { kind: "call_limit", limit: MAX_CALLS };

    this.noticeLeaseEnd(live);
    let outcome: CallOutcome;
    let upstreamRecord: UpstreamRecord | null = null;
    if (operation?.real && target.kind === "operation" && (upstream || !live.leaseEnded)) {
      // A forwarded call comes back to be recorded even when the lease ended while it was out.
      const real = realOutcome(live.setup, operation, request, upstream);
      if (real.kind === "forward") {
        if (request.call_id !== undefined) {
          const deadline = this.clock.now() + real.forward.binding.timeout_ms + FORWARD_GRACE_MS;
          this.storage.putForward({
            call_id: request.call_id,
            tool,
            operation_id: operationId,
            arguments: JSON.stringify(request.arguments),
            deadline,
          });
        }
        this.forwardsOut++;
        return real;
      }
      outcome = real.outcome;
      upstreamRecord = real.upstream;
    } else if (live.leaseEnded) {
      outcome = harnessOutcome(
        "lease_expired",
        "the attempt's lease has ended; no further calls are answered",
        operation?.variant ?? "",
      );
    } else if (target.kind === "harness_error") {
      outcome = {
        kind: "harness_error",
        harness_kind: target.harness_kind,
        message: target.message,
        details: target.details,
        variant: "",
        rule: null,
      };
    } else if (operation) {
      outcome = this.execute(live, operation, request.arguments);
    } else {
      outcome = harnessOutcome("internal", "the call resolved to no operation", "");
    }

    const stateWrite =
      outcome.kind === "result" && outcome.state_changed && operation
        ? this.stateWrite(live, operation.tool_name, outcome.state)
        : null;
    const row = evidenceRowOf({
      seq: live.nextSeq,
      request,
      tool,
      operationId,
      operation,
      outcome,
      change: stateWrite?.change ?? null,
      upstream: upstreamRecord,
      at: this.clock.now(),
    });
    const status =
      outcome.kind === "harness_error" ? afterHarnessError(live.status, outcome.harness_kind) : live.status;
    const write = (): void => {
      this.storage.insertCall(row);
      stateWrite?.write();
      if (status !== live.status) this.storage.writeStatus(status);
    };
    // Evidence, state and status change together or not at all. A lone INSERT (a lookup) is
    // atomic by itself, so the savepoint is spent only when there is more than one write.
    if (stateWrite || status !== live.status) this.storage.transaction(write);
    else write();
    // Memory follows storage only once the writes went through.
    live.nextSeq++;
    stateWrite?.accept();
    live.status = status;
    this.flushes.changed();
    return { kind: "answer", answer: answerOf(row, false) };
  }

  private execute(live: Live, operation: PinnedOperation, args: JsonObject): CallOutcome {
    try {
      return executeCall({
        input_schema: operation.input_schema,
        output_schema: operation.output_schema,
        definition: operation.definition,
        variant: operation.variant,
        args,
        state: this.stateOf(live, operation.tool_name),
        validator: schemaValidator(),
      });
    } catch (error) {
      // executeCall itself never throws; reading the stored state can (a corrupt row).
      const message = messageOf(error);
      return harnessOutcome("internal", `internal failure while answering the call: ${message}`, operation.variant);
    }
  }

  /**
   * How a call's new state is written, recorded and then kept in memory; null when nothing changed.
   * The state the call saw is still the current one: memory follows storage only after the write.
   * A dataset tool writes only the records the call changed (dataset-state.ts), any other tool its
   * whole state.
   */
  private stateWrite(
    live: Live,
    toolName: string,
    after: JsonObject,
  ): { change: StateChange; write: () => void; accept: () => void } | null {
    const before = this.stateOf(live, toolName);
    const datasets = live.datasets;
    if (datasets?.has(toolName)) {
      const commit = datasets.commit(toolName, before, after);
      if (!commit) return null;
      return {
        change: commit.evidence,
        write: () => datasets.write(commit),
        accept: () => datasets.accept(toolName, after),
      };
    }
    return {
      change: { tool: toolName, before, after },
      write: () => this.storage.writeState(toolName, JSON.stringify(after)),
      accept: () => live.states.set(toolName, after),
    };
  }

  private stateOf(live: Live, toolName: string): JsonObject {
    if (live.datasets?.has(toolName)) return live.datasets.view(toolName);
    const cached = live.states.get(toolName);
    if (cached) return cached;
    const stored = this.storage.readState(toolName);
    let state: JsonObject;
    if (stored !== undefined) {
      const parsed: unknown = JSON.parse(stored);
      if (!isJsonObject(parsed)) throw new Error(`the stored state of tool "${toolName}" is not a JSON object`);
      state = parsed;
    } else {
      // executeCall never mutates the state it is given, but the initial state is shared by
      // every call until the first set_state: a copy keeps that promise cheap to rely on.
      state = cloneJson(live.initial.get(toolName) ?? {});
    }
    live.states.set(toolName, state);
    return state;
  }

  // -- lease, status, snapshot ---------------------------------------------------------------

  /** Ends the lease once its time has passed, whether the alarm or a call notices first. */
  private noticeLeaseEnd(live: Live): void {
    if (live.leaseEnded || this.clock.now() < live.expiresAt) return;
    const status = afterLeaseEnd(live.status);
    this.storage.writeLeaseEnd(status);
    live.leaseEnded = true;
    live.status = status;
    this.flushes.changed();
  }

  private snapshotOf(live: Live): AttemptSnapshot {
    const counts = this.storage.counts();
    const completion = this.storage.readCompletion();
    return {
      id: live.setup.attempt_id,
      simulation_id: live.setup.simulation_id,
      status: live.status,
      state: this.allStates(live),
      calls: counts.calls,
      tool_input_errors: counts.tool_input_errors,
      harness_errors: counts.harness_errors,
      ...(live.hasReal ? this.storage.realCounts() : {}),
      expires_at: new Date(live.expiresAt).toISOString(),
      lease_ended: live.leaseEnded,
      // SAFETY: the completion column holds JSON.stringify of a JsonObject written by complete().
      completion: completion === null ? null : (JSON.parse(completion) as JsonValue),
    };
  }

  private allStates(live: Live): JsonObject {
    const all: JsonObject = {};
    // setOwn: a tool may be called "__proto__", and its state must stay a property of the answer
    // (assigned, it became the prototype and the snapshot could not be sent: a 500).
    for (const tool of live.setup.tools) {
      let state: JsonValue;
      try {
        // A dataset tool shows its pin and its changes over the base, never the whole dataset.
        state = live.datasets?.has(tool.tool_name)
          ? live.datasets.summary(tool.tool_name)
          : this.stateOf(live, tool.tool_name);
      } catch {
        state = null;
      }
      setOwn(all, tool.tool_name, state);
    }
    return all;
  }

  // -- when evidence goes to D1 --------------------------------------------------------------

  /** Not awaited on purpose: SQLite-backed objects apply alarm changes with the same commit as the writes around them. */
  private scheduleAlarm(at: number): void {
    this.ctx.storage.setAlarm(at).catch((error: unknown) => console.error("setting the attempt alarm failed", error));
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
    const setup = stored.setup;
    setup.operations = setup.operations.map(sharedOperation);
    this.live = {
      setup,
      index: indexTargets(setup.operations, setup.tools),
      initial: new Map(setup.tools.map((tool) => [tool.tool_name, tool.initial_state])),
      hasReal: setup.operations.some((op) => op.real),
      states: new Map(),
      datasets: DatasetState.of(setup.tools, setup.tenant_id, this.storage, this.env),
      status: isAttemptStatus(stored.status) ? stored.status : "harness_failed",
      expiresAt: stored.expiresAt,
      leaseEnded: stored.leaseEnded,
      completed: stored.completed,
      nextSeq: stored.maxSeq + 1,
    };
    return this.live;
  }
}
