/**
 * What the attempt object answers over RPC. RPC drops custom error fields, so every method returns
 * one of these tagged results instead of throwing; the Worker turns them into HTTP or MCP answers
 * through one table (reply-errors.ts).
 */
import type { JsonObject, JsonValue, Problem } from "../../core/json.js";
import type { DispatchRequest } from "../../core/simulation/dispatch-request.js";
import type { EvidenceRow } from "../../core/simulation/evidence.js";
import type { AttemptSetup, PinnedOperation } from "../../core/simulation/setup.js";
import type { AttemptStatus } from "../../core/simulation/status.js";
import type { RealBinding } from "../../core/tools/upstream.js";
import type { AttemptOwn } from "./shared-setups.js";

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

/** This object holds no attempt: never set up, retired, or its storage lost (the Worker asks D1 which). */
export type MissingReply = { kind: "missing" };
type UnauthorizedReply = { kind: "unauthorized" };

/** Every way a call can be refused before (or instead of) being recorded. */
export type CallRefusal =
  | UnauthorizedReply
  | MissingReply
  | { kind: "invalid_request"; problems: Problem[] }
  /** Arguments no call can use (too deep, non-finite numbers): the agent's tool input error, refused before any call is made or recorded. */
  | { kind: "unusable_arguments"; message: string; problems: Problem[] }
  | { kind: "malformed_json"; message: string }
  | { kind: "ambiguous"; message: string; operation_ids: string[] }
  /** seq: the earlier call's, or null while that call is out at its real handler (not recorded yet). */
  | { kind: "call_id_conflict"; call_id: string; seq: number | null }
  | { kind: "call_limit"; limit: number };

export type DispatchReply =
  | CallRefusal
  | { kind: "answer"; answer: Answer }
  | { kind: "forward"; forward: ForwardRequest };

/** A dispatch reply once any forward has been carried out and recorded. */
export type RecordedReply = Exclude<DispatchReply, { kind: "forward" }>;

/**
 * A call to a real operation whose arguments keep the contract: the Worker sends it to the real
 * handler (outside the object, so a slow upstream holds no other call) and hands the answer back
 * with recordReal. Nothing is recorded yet.
 */
export interface ForwardRequest {
  /** The answer goes back through a stub of its own (see real/forward.ts). */
  attempt_id: string;
  tenant_id: string;
  request: DispatchRequest;
  binding: RealBinding;
}

/** What the real handler answered, as the Worker hands it to recordReal. */
export type UpstreamAnswer =
  | { ok: true; status: number; latency_ms: number; body: JsonValue }
  | { ok: false; status: number | null; latency_ms: number; message: string };

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

export type DescribeReply =
  | UnauthorizedReply
  | MissingReply
  | { kind: "ok"; tools: ToolListing[]; lease_ended: boolean };

export interface AttemptSnapshot {
  id: string;
  simulation_id: string;
  status: AttemptStatus;
  /** Per tool name, the state now. */
  state: JsonObject;
  calls: number;
  tool_input_errors: number;
  harness_errors: number;
  /** Attempts with real operations only: calls forwarded to real handlers, and real answers that broke the output schema. */
  real_calls?: number;
  contract_violations?: number;
  expires_at: string;
  lease_ended: boolean;
  completion: JsonValue | null;
}

export type SnapshotReply = MissingReply | { kind: "ok"; snapshot: AttemptSnapshot };

export type CompleteReply =
  | UnauthorizedReply
  | MissingReply
  | { kind: "lease_expired" }
  | { kind: "already_completed" }
  /** The completion would not fit the attempt's D1 row beside its state (attempt-row.ts); nothing was stored. */
  | { kind: "too_large"; bytes: number; limit_bytes: number }
  | { kind: "ok"; snapshot: AttemptSnapshot };

export type FlushReply =
  | MissingReply
  | { kind: "flushed"; last_seq: number }
  /** D1 refused the copy; the object keeps every row and retries by its alarm. */
  | { kind: "failed"; message: string };

/** The attempt's own evidence rows after a seq, read from the object (the eval consumer scores them without a trip to D1). */
export type CallsReply = MissingReply | { kind: "ok"; calls: EvidenceRow[] };

/**
 * One value of a tool's current state by JSON Pointer (GET /api/attempts/:id/state): `absent` when
 * nothing is there, `unknown_tool` for a tool the attempt does not have, `failed` when the state
 * cannot be read (a dataset whose base could not be loaded).
 */
export type StateReadReply =
  | MissingReply
  | { kind: "ok"; value: JsonValue }
  | { kind: "absent" }
  | { kind: "unknown_tool"; tools: string[] }
  | { kind: "failed"; message: string };

/** The object's RPC surface, as the class implements it. */
/**
 * release(): the attempt's user is done with it (an eval repetition that is recorded). `released`:
 * its evidence is in D1 and the object leaves memory; `failed`: D1 refused the copy, so the object
 * stays and its alarm retries.
 */
export type ReleaseReply =
  | MissingReply
  | { kind: "unauthorized" }
  | { kind: "released"; last_seq: number }
  | { kind: "failed"; message: string };

export interface AttemptMethods {
  setup(setup: AttemptSetup): SetupReply;
  setupShared(own: AttemptOwn, shared: string): SetupReply;
  /** A promise only for a repeat of a call_id out at its real handler: it waits for that call's answer. */
  dispatch(tokenHash: string, body: string): DispatchReply | Promise<DispatchReply>;
  dispatchRequest(tokenHash: string, request: DispatchRequest): DispatchReply | Promise<DispatchReply>;
  recordReal(tokenHash: string, request: DispatchRequest, answer: UpstreamAnswer): RecordedReply;
  describe(tokenHash: string): DescribeReply;
  snapshot(): SnapshotReply;
  complete(tokenHash: string, completion: JsonObject): CompleteReply;
  flush(): Promise<FlushReply>;
  release(tokenHash: string): Promise<ReleaseReply>;
  calls(afterSeq: number, limit: number): CallsReply;
  readState(toolName: string, tokens: string[]): Promise<StateReadReply>;
}

/**
 * The same surface as a caller sees it through a stub: every answer arrives as a promise.
 * Declared by hand because the runtime's generated stub types recurse without end on JSON values.
 */
export type AttemptRpc = {
  [K in keyof AttemptMethods]: (
    ...args: Parameters<AttemptMethods[K]>
  ) => Promise<Awaited<ReturnType<AttemptMethods[K]>>>;
};
