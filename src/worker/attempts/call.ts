/**
 * One call applied to an attempt: resolved to an operation, checked against the calls already
 * recorded under its call_id, answered (by the definition, the real handler's answer, or a harness
 * error), and recorded as evidence together with the state and status it changed.
 *
 * Synchronous from the first read to the last write, on purpose: the attempt object runs it
 * between two awaits, so concurrent calls are applied one after another and no update is lost
 * (object.ts). The object's lifecycle (the lease, the flush schedule, forwards out) is reached
 * through CallPorts.
 */
import { executeCall } from "../../core/contract/index.js";
import type { CallOutcome } from "../../core/contract/types.js";
import { WrittenRecords } from "../../core/datasets/records.js";
import type { JsonObject } from "../../core/json.js";
import { messageOf } from "../../core/message-of.js";
import type { Clock } from "../../core/ports.js";
import type { DispatchRequest } from "../../core/simulation/dispatch-request.js";
import type { UpstreamRecord } from "../../core/simulation/evidence.js";
import type { PinnedOperation } from "../../core/simulation/setup.js";
import { afterHarnessError } from "../../core/simulation/status.js";
import { resolveTarget } from "../../core/simulation/target.js";
import { schemaValidator } from "../platform/services.js";
import { MAX_ATTEMPT_ROW_BYTES, storedCompletionBytes } from "./attempt-row.js";
import { harnessOutcome } from "./call-outcomes.js";
import { answerOf, evidenceBytesPastLimit, evidenceRowOf, MAX_EVIDENCE_ROW_BYTES, sameCall } from "./call-records.js";
import { FORWARD_GRACE_MS, MAX_CALLS } from "./lifetimes.js";
import type { Live } from "./live.js";
import { realOutcome } from "./real/real-outcome.js";
import type { DispatchReply, UpstreamAnswer } from "./replies.js";
import type { AttemptStorage } from "./storage.js";

/**
 * The answer to a repeat of a call_id whose real call is out at its real handler (the forwards
 * table): the repeat waits for that call's answer, never leaves the object.
 */
export interface InFlight {
  kind: "in_flight";
  call_id: string;
  deadline: number;
}

/** What a call needs of the object around it. */
export interface CallPorts {
  storage: AttemptStorage;
  clock: Clock;
  /** Ends the lease once its time has passed. */
  noticeLeaseEnd(live: Live): void;
  /** Something was written: the flush schedule hears of it. */
  changed(): void;
  /** A call was handed out to its real handler; recordReal brings its answer back. */
  forwarded(): void;
}

/** `upstream`: the real handler's answer, when this is a forwarded call coming back to be recorded. */
export function applyCall(
  ports: CallPorts,
  live: Live,
  request: DispatchRequest,
  upstream?: UpstreamAnswer,
): DispatchReply | InFlight {
  const { storage, clock } = ports;
  const target = resolveTarget(live.index, request.tool, request.operation_id);
  if (target.kind === "ambiguous")
    return { kind: "ambiguous", message: target.message, operation_ids: target.operation_ids };
  const operation = target.kind === "operation" ? target.operation : null;
  const tool = operation ? operation.function_name : request.tool;
  const operationId = operation ? operation.operation_id : (request.operation_id ?? "");

  if (request.call_id !== undefined) {
    const prior = storage.callById(request.call_id);
    if (prior) {
      if (!sameCall(prior, tool, operationId, request))
        return { kind: "call_id_conflict", call_id: request.call_id, seq: prior.seq };
      return { kind: "answer", answer: answerOf(prior, true) };
    }
    // Out at its real handler and not back yet: sending it again would reach the real system
    // twice. Checked for every call of an attempt with real operations (a mock call reusing the
    // call_id is a conflict too), and for none of an attempt without: no read on that hot path.
    const out = upstream || !live.hasReal ? undefined : storage.forwardById(request.call_id);
    if (out && out.deadline > clock.now()) {
      if (!sameCall(out, tool, operationId, request))
        return { kind: "call_id_conflict", call_id: request.call_id, seq: null };
      return { kind: "in_flight", call_id: request.call_id, deadline: out.deadline };
    }
  }
  // A forwarded call coming back was within the limit when it was handed out, and the real
  // system has acted on it: it is recorded even when calls recorded meanwhile reached the limit
  // (so an attempt may hold MAX_CALLS plus the real calls that were out at that moment).
  if (!upstream && live.nextSeq > MAX_CALLS) return { kind: "call_limit", limit: MAX_CALLS };

  ports.noticeLeaseEnd(live);
  let outcome: CallOutcome;
  // What the engine copied and wrote, so the state change is diffed over those records only.
  const written = new WrittenRecords();
  let upstreamRecord: UpstreamRecord | null = null;
  if (operation?.real && target.kind === "operation" && (upstream || !live.leaseEnded)) {
    // A forwarded call comes back to be recorded even when the lease ended while it was out.
    const real = realOutcome(live.setup, operation, request, upstream);
    if (real.kind === "forward") {
      if (request.call_id !== undefined) {
        const deadline = clock.now() + real.forward.binding.timeout_ms + FORWARD_GRACE_MS;
        storage.putForward({
          call_id: request.call_id,
          tool,
          operation_id: operationId,
          arguments: JSON.stringify(request.arguments),
          deadline,
        });
      }
      ports.forwarded();
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
    outcome = execute(live, operation, request.arguments, written);
  } else {
    outcome = harnessOutcome("internal", "the call resolved to no operation", "");
  }

  let stateWrite =
    outcome.kind === "result" && outcome.state_changed && operation
      ? live.tools.change(operation.tool_name, outcome.state, written)
      : null;
  const rowOf = () =>
    evidenceRowOf({
      seq: live.nextSeq,
      request,
      tool,
      operationId,
      operation,
      outcome,
      change: stateWrite?.change ?? null,
      upstream: upstreamRecord,
      at: clock.now(),
    });
  let row = rowOf();
  // An answer that storage could not keep is not given: the call changes nothing and is recorded
  // as the harness's failure. A real call has reached its system already, so its record keeps the
  // upstream's status and latency, and the message says so.
  const pastLimit = outcome.kind === "result" ? evidenceBytesPastLimit(row) : null;
  if (pastLimit !== null) {
    const limit = `one call's evidence may be at most ${MAX_EVIDENCE_ROW_BYTES} bytes, a row of the attempt's storage and of D1`;
    outcome = harnessOutcome(
      "evidence_too_large",
      operation?.real
        ? `the real handler's answer would make the call's evidence ${pastLimit} bytes; ${limit}: the answer is not given (the real system has had the call)`
        : `the call's evidence (its arguments, its result and the tool's state before and after it) would be ${pastLimit} bytes; ${limit}: the call changed nothing`,
      outcome.variant,
    );
    stateWrite = null;
    row = rowOf();
  }
  // Every tool's state, with this call's, must still fit the attempt's D1 row beside its completion.
  const rowBytes =
    stateWrite && operation && !operation.real
      ? live.tools.allBytes({ tool: operation.tool_name, bytes: stateWrite.bytes }) +
        (live.completed ? storedCompletionBytes(storage) : 0)
      : 0;
  if (rowBytes > MAX_ATTEMPT_ROW_BYTES) {
    outcome = harnessOutcome(
      "state_too_large",
      `the attempt's state, every tool's together as its D1 row keeps it, would be ${rowBytes} bytes after this call; the state and the agent's completion may be at most ${MAX_ATTEMPT_ROW_BYTES} bytes together: the call changed nothing`,
      outcome.variant,
    );
    stateWrite = null;
    row = rowOf();
  }
  const status = outcome.kind === "harness_error" ? afterHarnessError(live.status, outcome.harness_kind) : live.status;
  const write = (): void => {
    storage.insertCall(row);
    stateWrite?.write();
    if (status !== live.status) storage.writeStatus(status);
  };
  // Evidence, state and status change together or not at all. A lone INSERT (a lookup) is
  // atomic by itself, so the savepoint is spent only when there is more than one write.
  if (stateWrite || status !== live.status) storage.transaction(write);
  else write();
  // Memory follows storage only once the writes went through.
  live.nextSeq++;
  stateWrite?.accept();
  live.status = status;
  ports.changed();
  return { kind: "answer", answer: answerOf(row, false) };
}

function execute(live: Live, operation: PinnedOperation, args: JsonObject, written: WrittenRecords): CallOutcome {
  try {
    return executeCall({
      input_schema: operation.input_schema,
      output_schema: operation.output_schema,
      definition: operation.definition,
      variant: operation.variant,
      args,
      state: live.tools.of(operation.tool_name),
      validator: schemaValidator(),
      written,
    });
  } catch (error) {
    // executeCall itself never throws; reading the stored state can (a corrupt row).
    const message = messageOf(error);
    return harnessOutcome("internal", `internal failure while answering the call: ${message}`, operation.variant);
  }
}
