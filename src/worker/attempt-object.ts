/**
 * One Durable Object per attempt: the pinned definitions, the per-tool state, the lease and the
 * evidence of one agent run, in the object's own SQLite storage.
 *
 * Why it is shaped like this:
 * - A Durable Object only serializes its events around storage calls; any other await lets the
 *   next request in. So a call's read → render → write runs synchronously on ctx.storage.sql,
 *   with no await anywhere between reading the state and writing the new one: concurrent calls
 *   are applied one after another and no update is lost.
 * - The capability token is checked here, in the same RPC as the call, against the hash the
 *   object was set up with: a dispatch costs one RPC and no D1 read.
 * - delay_ms is returned to the Worker, which waits; the object is never held across a delay.
 * - Evidence is written to the object's SQLite with the state change, then copied to D1 in
 *   batches (ON CONFLICT DO NOTHING by (attempt_id, seq)) when the attempt goes quiet, by the
 *   alarm while it stays busy, and before every evidence read: dispatch never waits on D1 and a
 *   flush that runs twice changes nothing.
 * - RPC drops custom error fields, so every method returns a result object instead of throwing.
 */
import { DurableObject } from "cloudflare:workers";
import { constantTimeEqual } from "../adapters/crypto.js";
import { databaseOf } from "../adapters/d1/database.js";
import { flushableRows, writeEvidence } from "../adapters/d1/simulations.js";
import { executeCall } from "../core/contract/index.js";
import type { CallOutcome } from "../core/contract/types.js";
import { cloneJson, isJsonObject, jsonEqual, type JsonObject, type JsonValue, type Problem } from "../core/json.js";
import { parseDispatchRequest, parseDispatchText, unusableArgumentsMessage, type DispatchRequest } from "../core/simulation/dispatch-request.js";
import type { EvidenceError, EvidenceRow } from "../core/simulation/evidence.js";
import { isOutcomeKind } from "../core/simulation/evidence.js";
import type { AttemptSetup, PinnedOperation } from "../core/simulation/setup.js";
import { afterCompletion, afterHarnessError, afterLeaseEnd, isAttemptStatus, type AttemptStatus } from "../core/simulation/status.js";
import { indexTargets, resolveTarget, type TargetIndex } from "../core/simulation/target.js";
import type { Database, Env } from "./env.js";
import { schemaValidator } from "./services.js";

/**
 * How long new evidence may wait in the object before the alarm copies it to D1. The object's own
 * SQLite already holds it durably, and every reader of evidence flushes first, so this only bounds
 * how stale D1 may be for someone querying it directly. Long on purpose: with many attempts busy
 * at once, a short interval turns into one D1 batch per call (measured: it halves throughput).
 */
export const FLUSH_INTERVAL_MS = 30_000;
/**
 * How long an attempt must go without calls before an in-memory timer copies its evidence to D1.
 * A pending timer keeps the object loaded (checked in workerd: an idle object is otherwise unloaded
 * after about ten seconds locally), so this flush never pays for loading the object again, which
 * cost several times the flush itself when the alarm did it after a burst over 1,000 attempts.
 * Long enough that an agent thinking between calls, or a slow sweep over many attempts, does not
 * turn into one flush per call; a busy attempt is flushed by the alarm every FLUSH_INTERVAL_MS.
 */
export const IDLE_FLUSH_MS = 10_000;

/** EVIDENCE_IDLE_FLUSH_MS when it is a whole number from 10 ms to a minute, else IDLE_FLUSH_MS. */
export function idleFlushMs(setting: string | undefined): number {
  const value = Number(setting);
  return setting !== undefined && Number.isInteger(value) && value >= 10 && value <= 60_000 ? value : IDLE_FLUSH_MS;
}
/** When a flush to D1 fails, try again after this long (nothing is dropped meanwhile). */
export const FLUSH_RETRY_MS = 10_000;
/** How long after the lease ends the object keeps its storage (D1 keeps the evidence forever). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** Calls one attempt may make; bounds what a runaway agent (or a leaked token) can store. */
export const MAX_CALLS = 10_000;
/** Rows read per flush round; writeEvidence sends them as one statement, cut down further by size. */
const FLUSH_BATCH_ROWS = 500;

const SCHEMA_SQL = [
  `CREATE TABLE IF NOT EXISTS attempt (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     setup TEXT NOT NULL,
     status TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     lease_ended INTEGER NOT NULL DEFAULT 0,
     completion TEXT,
     changes INTEGER NOT NULL DEFAULT 0,
     flushed_seq INTEGER NOT NULL DEFAULT 0,
     flushed_changes INTEGER NOT NULL DEFAULT 0
   )`,
  `CREATE TABLE IF NOT EXISTS state (tool TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS calls (
     seq INTEGER PRIMARY KEY,
     call_id TEXT UNIQUE,
     tool TEXT NOT NULL,
     operation_id TEXT NOT NULL,
     revision INTEGER,
     variant TEXT,
     rule INTEGER,
     arguments TEXT NOT NULL,
     outcome TEXT NOT NULL,
     result TEXT,
     error TEXT,
     delay_ms INTEGER NOT NULL,
     at TEXT NOT NULL
   )`,
];

const INSERT_CALL = `INSERT INTO calls (seq, call_id, tool, operation_id, revision, variant, rule, arguments, outcome, result, error, delay_ms, at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const UPSERT_STATE = `INSERT INTO state (tool, value) VALUES (?, ?) ON CONFLICT (tool) DO UPDATE SET value = excluded.value`;

/** A call's answer as the Worker turns it into HTTP or MCP. */
export interface Answer {
  seq: number;
  tool: string;
  operation_id: string;
  revision: number | null;
  variant: string | null;
  rule: number | null;
  outcome: EvidenceRow["outcome"];
  /** JSON text of the result: the HTTP body as is. */
  result: string | null;
  /** JSON text of an EvidenceError. */
  error: string | null;
  delay_ms: number;
  /** True when this is the stored answer to an earlier call with the same call_id. */
  replayed: boolean;
}

export type DispatchReply =
  | { kind: "unauthorized" }
  /** This object holds no attempt: never set up, retired, or its storage lost (the Worker asks D1 which). */
  | { kind: "missing" }
  | { kind: "invalid_request"; problems: Problem[] }
  /** Arguments no call can use (too deep, non-finite numbers): refused before any call is made or recorded. */
  | { kind: "unusable_arguments"; message: string; problems: Problem[] }
  | { kind: "malformed_json"; message: string }
  | { kind: "ambiguous"; message: string; operation_ids: string[] }
  | { kind: "call_id_conflict"; call_id: string; seq: number }
  | { kind: "call_limit"; limit: number }
  | { kind: "answer"; answer: Answer };

export type SetupReply = { kind: "ok" } | { kind: "conflict"; message: string };

/** What tools/list needs, without the definitions. */
export interface ToolListing {
  function_name: string;
  tool_name: string;
  operation_id: string;
  description: string;
  input_schema: PinnedOperation["input_schema"];
  output_schema: PinnedOperation["output_schema"];
  annotations: JsonObject | null;
}

export type DescribeReply = { kind: "unauthorized" } | { kind: "ok"; tools: ToolListing[]; lease_ended: boolean };

export interface AttemptSnapshot {
  id: string;
  simulation_id: string;
  status: AttemptStatus;
  /** Per tool name, the state now. */
  state: JsonObject;
  calls: number;
  tool_input_errors: number;
  harness_errors: number;
  expires_at: string;
  lease_ended: boolean;
  completion: JsonValue | null;
}

export type SnapshotReply = { kind: "missing" } | { kind: "ok"; snapshot: AttemptSnapshot };

export type CompleteReply =
  | { kind: "unauthorized" }
  | { kind: "lease_expired" }
  | { kind: "already_completed" }
  | { kind: "ok"; snapshot: AttemptSnapshot };

export type FlushReply = { kind: "missing" } | { kind: "flushed"; last_seq: number };

/** The object's RPC surface, as the class implements it. */
export interface AttemptMethods {
  setup(setup: AttemptSetup): SetupReply;
  dispatch(tokenHash: string, body: string): DispatchReply;
  dispatchRequest(tokenHash: string, request: DispatchRequest): DispatchReply;
  describe(tokenHash: string): DescribeReply;
  snapshot(): SnapshotReply;
  complete(tokenHash: string, completion: JsonObject): CompleteReply;
  flush(): Promise<FlushReply>;
}

/**
 * The same surface as a caller sees it through a stub: every answer arrives as a promise.
 * Declared by hand because the runtime's generated stub types recurse without end on JSON values.
 */
export type AttemptRpc = {
  [K in keyof AttemptMethods]: (...args: Parameters<AttemptMethods[K]>) => Promise<Awaited<ReturnType<AttemptMethods[K]>>>;
};

/** What the object keeps in memory between calls; storage stays the source of truth. */
interface Live {
  setup: AttemptSetup;
  index: TargetIndex;
  initial: Map<string, JsonObject>;
  /** Current state per tool name; filled from storage on first use. */
  states: Map<string, JsonObject>;
  status: AttemptStatus;
  expiresAt: number;
  leaseEnded: boolean;
  completed: boolean;
  nextSeq: number;
  /** An alarm is set that will flush what is written now. */
  flushScheduled: boolean;
  /** When evidence, state, status or completion last changed (ms since the epoch). */
  lastChangeAt: number;
}

type SqlRow = Record<string, SqlStorageValue>;

export class AttemptObject extends DurableObject<Env> implements AttemptMethods {
  private readonly sql: SqlStorage;
  private readonly db: Database;
  /** undefined: storage not read yet; null: this object was never set up (or was retired). */
  private live: Live | null | undefined;
  private flushing: Promise<void> | null = null;
  /** The in-memory idle-flush timer, when one is armed. */
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly idleFlushMs: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.db = databaseOf(env.DB);
    this.idleFlushMs = idleFlushMs(env.EVIDENCE_IDLE_FLUSH_MS);
  }

  /** Stores the attempt's pinned definitions, token hash and lease. Repeating the same setup is harmless. */
  setup(setup: AttemptSetup): SetupReply {
    const existing = this.load();
    if (existing) {
      return existing.setup.attempt_id === setup.attempt_id
        ? { kind: "ok" }
        : { kind: "conflict", message: `this object already holds attempt ${existing.setup.attempt_id}` };
    }
    this.ctx.storage.transactionSync(() => {
      for (const statement of SCHEMA_SQL) this.sql.exec(statement);
      this.sql.exec(`INSERT INTO attempt (id, setup, status, expires_at) VALUES (1, ?, 'active', ?)`, JSON.stringify(setup), setup.expires_at);
    });
    this.live = undefined;
    this.scheduleAlarm(setup.expires_at);
    return { kind: "ok" };
  }

  /** POST /api/attempts/:id/dispatch: the body's JSON text, parsed here so it crosses the RPC boundary as one string. */
  dispatch(tokenHash: string, body: string): DispatchReply {
    if (!this.load()) return { kind: "missing" };
    const live = this.authorized(tokenHash);
    if (!live) return { kind: "unauthorized" };
    const parsed = parseDispatchText(body);
    if (parsed.ok) return this.apply(live, parsed.request);
    return "malformed" in parsed ? { kind: "malformed_json", message: parsed.malformed } : refusal(parsed);
  }

  /** tools/call over MCP: the same call algorithm, state and evidence as dispatch. */
  dispatchRequest(tokenHash: string, request: DispatchRequest): DispatchReply {
    const live = this.authorized(tokenHash);
    if (!live) return { kind: "unauthorized" };
    const parsed = parseDispatchRequest(request);
    return parsed.ok ? this.apply(live, parsed.request) : refusal(parsed);
  }

  /** The pinned tools, for MCP tools/list (and the token check every MCP request starts with). */
  describe(tokenHash: string): DescribeReply {
    const live = this.authorized(tokenHash);
    if (!live) return { kind: "unauthorized" };
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
    if (!live) return { kind: "unauthorized" };
    this.noticeLeaseEnd(live);
    if (live.leaseEnded) return { kind: "lease_expired" };
    if (live.completed) return { kind: "already_completed" };
    const record: JsonObject = { ...completion, completed_at: new Date().toISOString() };
    const status = afterCompletion(live.status);
    this.sql.exec(`UPDATE attempt SET completion = ?, status = ?, changes = changes + 1`, JSON.stringify(record), status);
    live.status = status;
    live.completed = true;
    this.scheduleFlush(live);
    return { kind: "ok", snapshot: this.snapshotOf(live) };
  }

  /** Copies every unflushed call to D1 now; GET evidence calls this before reading D1. */
  async flush(): Promise<FlushReply> {
    const live = this.load();
    if (!live) return { kind: "missing" };
    await this.flushAll(live);
    this.settleAlarm(live);
    return { kind: "flushed", last_seq: live.nextSeq - 1 };
  }

  /**
   * One alarm does all timed work: end the lease when its time has come, copy evidence to D1,
   * retire the storage long after the lease, then set the next alarm. Every step is idempotent,
   * because alarms may fire more than once.
   */
  override async alarm(): Promise<void> {
    const live = this.load(true);
    if (!live) return;
    live.flushScheduled = false;
    this.noticeLeaseEnd(live);
    try {
      await this.flushAll(live);
    } catch (error) {
      console.error("evidence flush to D1 failed; retrying", error);
      this.scheduleAlarm(Date.now() + FLUSH_RETRY_MS);
      live.flushScheduled = true;
      return;
    }
    if (this.hasUnflushed()) {
      this.scheduleFlush(live);
      return;
    }
    // The alarm set below is not a flush alarm: the next call must set its own.
    live.flushScheduled = false;
    const next = this.quietAlarmAt(live);
    if (live.leaseEnded && Date.now() >= next) {
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

  private apply(live: Live, request: DispatchRequest): DispatchReply {
    const target = resolveTarget(live.index, request.tool, request.operation_id);
    if (target.kind === "ambiguous") return { kind: "ambiguous", message: target.message, operation_ids: target.operation_ids };
    const operation = target.kind === "operation" ? target.operation : null;
    const tool = operation ? operation.function_name : request.tool;
    const operationId = operation ? operation.operation_id : (request.operation_id ?? "");

    if (request.call_id !== undefined) {
      const prior = this.callById(request.call_id);
      if (prior) {
        const same = prior.tool === tool && prior.operation_id === operationId && jsonEqual(JSON.parse(prior.arguments), request.arguments);
        if (!same) return { kind: "call_id_conflict", call_id: request.call_id, seq: prior.seq };
        return { kind: "answer", answer: answerOf(prior, true) };
      }
    }
    if (live.nextSeq > MAX_CALLS) return { kind: "call_limit", limit: MAX_CALLS };

    this.noticeLeaseEnd(live);
    let outcome: CallOutcome;
    if (live.leaseEnded) {
      outcome = harness("lease_expired", "the attempt's lease has ended; no further calls are answered", operation?.variant ?? "");
    } else if (target.kind === "harness_error") {
      outcome = harness(target.harness_kind, target.message, "");
    } else if (operation) {
      outcome = this.execute(live, operation, request.arguments);
    } else {
      outcome = harness("internal", "the call resolved to no operation", "");
    }

    const row = this.rowOf(live.nextSeq, request, tool, operationId, operation, outcome);
    const nextState = outcome.kind === "result" && outcome.state_changed && operation ? outcome.state : null;
    const status = outcome.kind === "harness_error" ? afterHarnessError(live.status, outcome.harness_kind) : live.status;
    const write = (): void => {
      this.sql.exec(
        INSERT_CALL,
        row.seq, row.call_id, row.tool, row.operation_id, row.revision, row.variant, row.rule,
        row.arguments, row.outcome, row.result, row.error, row.delay_ms, row.at,
      );
      if (nextState && operation) this.sql.exec(UPSERT_STATE, operation.tool_name, JSON.stringify(nextState));
      if (status !== live.status) this.sql.exec(`UPDATE attempt SET status = ?`, status);
    };
    // Evidence, state and status change together or not at all. A lone INSERT (a lookup) is
    // atomic by itself, so the savepoint is spent only when there is more than one write.
    if (nextState || status !== live.status) this.ctx.storage.transactionSync(write);
    else write();
    // Memory follows storage only once the writes went through.
    live.nextSeq++;
    if (nextState && operation) live.states.set(operation.tool_name, nextState);
    live.status = status;
    this.scheduleFlush(live);
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
      const message = error instanceof Error ? error.message : String(error);
      return harness("internal", `internal failure while answering the call: ${message}`, operation.variant);
    }
  }

  private rowOf(
    seq: number,
    request: DispatchRequest,
    tool: string,
    operationId: string,
    operation: PinnedOperation | null,
    outcome: CallOutcome,
  ): EvidenceRow {
    let error: EvidenceError | null = null;
    if (outcome.kind === "tool_input_error") error = { code: "tool_input_error", message: outcome.message, details: outcome.details };
    if (outcome.kind === "harness_error") error = { code: "harness_error", kind: outcome.harness_kind, message: outcome.message, details: outcome.details };
    return {
      seq,
      call_id: request.call_id ?? null,
      tool,
      operation_id: operationId,
      revision: operation?.revision ?? null,
      variant: outcome.variant === "" ? (operation?.variant ?? null) : outcome.variant,
      rule: outcome.rule,
      arguments: JSON.stringify(request.arguments),
      outcome: outcome.kind,
      result: outcome.kind === "result" ? JSON.stringify(outcome.result) : null,
      error: error ? JSON.stringify(error) : null,
      delay_ms: outcome.kind === "result" ? outcome.delay_ms : 0,
      at: new Date().toISOString(),
    };
  }

  private stateOf(live: Live, toolName: string): JsonObject {
    const cached = live.states.get(toolName);
    if (cached) return cached;
    const stored = this.sql.exec<{ value: string }>(`SELECT value FROM state WHERE tool = ?`, toolName).toArray()[0];
    let state: JsonObject;
    if (stored) {
      const parsed: unknown = JSON.parse(stored.value);
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
    if (live.leaseEnded || Date.now() < live.expiresAt) return;
    const status = afterLeaseEnd(live.status);
    this.sql.exec(`UPDATE attempt SET lease_ended = 1, status = ?, changes = changes + 1`, status);
    live.leaseEnded = true;
    live.status = status;
    this.scheduleFlush(live);
  }

  private snapshotOf(live: Live): AttemptSnapshot {
    const counts = this.sql
      .exec<{ calls: number; tool_input_errors: number; harness_errors: number }>(
        `SELECT count(*) AS calls,
                coalesce(sum(outcome = 'tool_input_error'), 0) AS tool_input_errors,
                coalesce(sum(outcome = 'harness_error'), 0) AS harness_errors
         FROM calls`,
      )
      .one();
    const completion = this.sql.exec<{ completion: string | null }>(`SELECT completion FROM attempt`).one().completion;
    return {
      id: live.setup.attempt_id,
      simulation_id: live.setup.simulation_id,
      status: live.status,
      state: this.allStates(live),
      calls: counts.calls,
      tool_input_errors: counts.tool_input_errors,
      harness_errors: counts.harness_errors,
      expires_at: new Date(live.expiresAt).toISOString(),
      lease_ended: live.leaseEnded,
      // SAFETY: the completion column holds JSON.stringify of a JsonObject written by complete().
      completion: completion === null ? null : (JSON.parse(completion) as JsonValue),
    };
  }

  private allStates(live: Live): JsonObject {
    const all: JsonObject = {};
    for (const tool of live.setup.tools) {
      try {
        all[tool.tool_name] = this.stateOf(live, tool.tool_name);
      } catch {
        all[tool.tool_name] = null;
      }
    }
    return all;
  }

  // -- flushing evidence to D1 ---------------------------------------------------------------

  private async flushAll(live: Live): Promise<void> {
    // One flush at a time: a caller arriving mid-flush waits for it, then flushes what is left.
    while (this.flushing) await this.flushing;
    this.flushing = this.flushRows(live);
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  private async flushRows(live: Live): Promise<void> {
    for (;;) {
      const marks = this.sql
        .exec<{ flushed_seq: number; changes: number; flushed_changes: number; completion: string | null }>(
          `SELECT flushed_seq, changes, flushed_changes, completion FROM attempt`,
        )
        .one();
      const rows = flushableRows(
        this.sql
          .exec<SqlRow>(`SELECT * FROM calls WHERE seq > ? ORDER BY seq LIMIT ?`, marks.flushed_seq, FLUSH_BATCH_ROWS)
          .toArray()
          .map(toEvidenceRow),
      );
      if (rows.length === 0 && marks.changes === marks.flushed_changes) return;
      await writeEvidence(
        this.db,
        {
          attemptId: live.setup.attempt_id,
          tenantId: live.setup.tenant_id,
          status: live.status,
          state: JSON.stringify(this.allStates(live)),
          completion: marks.completion,
        },
        rows,
      );
      const last = rows[rows.length - 1]?.seq ?? marks.flushed_seq;
      this.sql.exec(`UPDATE attempt SET flushed_seq = max(flushed_seq, ?), flushed_changes = max(flushed_changes, ?)`, last, marks.changes);
    }
  }

  private hasUnflushed(): boolean {
    const row = this.sql
      .exec<{ pending: number }>(
        `SELECT (SELECT count(*) FROM calls WHERE seq > attempt.flushed_seq) + (attempt.changes > attempt.flushed_changes) AS pending FROM attempt`,
      )
      .one();
    return row.pending > 0;
  }

  /**
   * Arms the idle timer once; while calls keep coming it re-arms itself for the rest of the idle
   * period, so a busy attempt costs no timer work per call. Memory only: the durable alarm set by
   * scheduleFlush still covers an object unloaded before the timer fires.
   */
  private armIdleFlush(): void {
    if (this.idleTimer !== null) return;
    this.idleTimer = setTimeout(() => this.onIdleTimer(), this.idleFlushMs);
  }

  private onIdleTimer(): void {
    this.idleTimer = null;
    const live = this.live;
    if (!live) return;
    const quietFor = Date.now() - live.lastChangeAt;
    if (quietFor < this.idleFlushMs) {
      this.idleTimer = setTimeout(() => this.onIdleTimer(), this.idleFlushMs - quietFor);
      return;
    }
    this.flushAll(live)
      .then(() => this.settleAlarm(live))
      .catch((error: unknown) => console.error("idle evidence flush to D1 failed; the alarm will retry", error));
  }

  /**
   * After a flush outside the alarm: once everything is in D1, a pending flush alarm would only
   * wake (and perhaps reload) the object for nothing, so it moves to the lease end. Done here,
   * right after the flush, rather than later by the idle timer in the middle of other work.
   */
  private settleAlarm(live: Live): void {
    if (!live.flushScheduled || this.hasUnflushed()) return;
    live.flushScheduled = false;
    this.scheduleAlarm(this.quietAlarmAt(live));
  }

  /** Every change goes to D1 when the attempt goes quiet, or by the alarm within FLUSH_INTERVAL_MS. */
  private scheduleFlush(live: Live): void {
    live.lastChangeAt = Date.now();
    this.armIdleFlush();
    if (live.flushScheduled) return;
    live.flushScheduled = true;
    this.scheduleAlarm(Math.min(Date.now() + FLUSH_INTERVAL_MS, live.leaseEnded ? Number.POSITIVE_INFINITY : live.expiresAt));
  }

  /** Not awaited on purpose: SQLite-backed objects apply alarm changes with the same commit as the writes around them. */
  private scheduleAlarm(at: number): void {
    this.ctx.storage.setAlarm(at).catch((error: unknown) => console.error("setting the attempt alarm failed", error));
  }

  // -- loading -------------------------------------------------------------------------------

  private authorized(tokenHash: string): Live | null {
    const live = this.load();
    if (!live || !constantTimeEqual(live.setup.token_hash, tokenHash)) return null;
    return live;
  }

  /** Reads the attempt from storage once; `refresh` re-reads the lease (the alarm trusts storage, not memory). */
  private load(refresh = false): Live | null {
    if (this.live !== undefined && !refresh) return this.live;
    if (this.live && refresh) {
      const row = this.sql.exec<{ expires_at: number; lease_ended: number; status: string }>(`SELECT expires_at, lease_ended, status FROM attempt`).one();
      this.live.expiresAt = row.expires_at;
      this.live.leaseEnded = row.lease_ended === 1;
      if (isAttemptStatus(row.status)) this.live.status = row.status;
      return this.live;
    }
    const exists = this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'attempt'`).toArray().length > 0;
    if (!exists) {
      this.live = null;
      return null;
    }
    const row = this.sql
      .exec<{ setup: string; status: string; expires_at: number; lease_ended: number; completion: string | null }>(
        `SELECT setup, status, expires_at, lease_ended, completion FROM attempt`,
      )
      .one();
    // SAFETY: the setup column is written only by setup(), from an AttemptSetup the Worker built.
    const setup = JSON.parse(row.setup) as AttemptSetup;
    const maxSeq = this.sql.exec<{ seq: number | null }>(`SELECT max(seq) AS seq FROM calls`).one().seq ?? 0;
    this.live = {
      setup,
      index: indexTargets(setup.operations, setup.tools),
      initial: new Map(setup.tools.map((tool) => [tool.tool_name, tool.initial_state])),
      states: new Map(),
      status: isAttemptStatus(row.status) ? row.status : "harness_failed",
      expiresAt: row.expires_at,
      leaseEnded: row.lease_ended === 1,
      completed: row.completion !== null,
      nextSeq: maxSeq + 1,
      flushScheduled: false,
      lastChangeAt: 0,
    };
    return this.live;
  }

  private callById(callId: string): EvidenceRow | undefined {
    const row = this.sql.exec<SqlRow>(`SELECT * FROM calls WHERE call_id = ?`, callId).toArray()[0];
    return row ? toEvidenceRow(row) : undefined;
  }
}

function refusal(parsed: { ok: false; problems: Problem[] } | { ok: false; unusableArguments: Problem[] }): DispatchReply {
  if ("unusableArguments" in parsed) {
    return { kind: "unusable_arguments", message: unusableArgumentsMessage(parsed.unusableArguments), problems: parsed.unusableArguments };
  }
  return { kind: "invalid_request", problems: parsed.problems };
}

function harness(kind: Extract<CallOutcome, { kind: "harness_error" }>["harness_kind"], message: string, variant: string): CallOutcome {
  return { kind: "harness_error", harness_kind: kind, message, details: [], variant, rule: null };
}

function answerOf(row: EvidenceRow, replayed: boolean): Answer {
  return {
    seq: row.seq,
    tool: row.tool,
    operation_id: row.operation_id,
    revision: row.revision,
    variant: row.variant,
    rule: row.rule,
    outcome: row.outcome,
    result: row.result,
    error: row.error,
    delay_ms: row.delay_ms,
    replayed,
  };
}

function toEvidenceRow(row: SqlRow): EvidenceRow {
  return {
    seq: numberOf(row.seq),
    call_id: stringOrNull(row.call_id),
    tool: String(row.tool),
    operation_id: String(row.operation_id),
    revision: numberOrNull(row.revision),
    variant: stringOrNull(row.variant),
    rule: numberOrNull(row.rule),
    arguments: String(row.arguments),
    outcome: isOutcomeKind(row.outcome) ? row.outcome : "harness_error",
    result: stringOrNull(row.result),
    error: stringOrNull(row.error),
    delay_ms: numberOf(row.delay_ms),
    at: String(row.at),
  };
}

function numberOf(value: SqlStorageValue | undefined): number {
  return typeof value === "number" ? value : Number(value);
}

function numberOrNull(value: SqlStorageValue | undefined): number | null {
  return typeof value === "number" ? value : null;
}

function stringOrNull(value: SqlStorageValue | undefined): string | null {
  return typeof value === "string" ? value : null;
}
