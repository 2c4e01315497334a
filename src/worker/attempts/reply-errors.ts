/**
 * The one table from what the attempt object answers to the error the caller gets, shared by HTTP
 * dispatch, completion and MCP: each refusal becomes one ApiError (so one code, one status, one
 * body), and MCP derives its JSON-RPC error from that same ApiError. A path cannot answer a
 * refusal its own way.
 */
import { RowTooLarge } from "../../adapters/d1/row-limit.js";
import { parseEvidenceError, type EvidenceError } from "../../core/simulation/evidence.js";
import { attemptUnauthorized } from "./access.js";
import { ApiError, invalidRequest } from "../http/errors.js";
import type { Answer, CallRefusal, MissingReply } from "./replies.js";

/** A refusal the object decided alone; `missing` needs D1 to tell lost storage from a bad token (lost-attempt.ts). */
type ObjectRefusal = Exclude<CallRefusal, MissingReply>;

export function refusalError(reply: ObjectRefusal): ApiError {
  switch (reply.kind) {
    case "unauthorized":
      return attemptUnauthorized();
    case "invalid_request":
      return invalidRequest(reply.problems);
    case "unusable_arguments":
      return new ApiError("tool_input_error", reply.message, reply.problems);
    case "malformed_json":
      return new ApiError("malformed_json", reply.message);
    case "ambiguous":
      return new ApiError("invalid_request", `/operation_id: ${reply.message}`, {
        problems: [{ path: "/operation_id", message: reply.message }],
        operation_ids: reply.operation_ids,
      });
    case "call_id_conflict":
      return new ApiError(
        "call_id_reused",
        reply.seq === null
          ? `/call_id: "${reply.call_id}" is already used by a call still out at its real handler, with a different tool or arguments`
          : `/call_id: "${reply.call_id}" was already used by call ${reply.seq} with a different tool or arguments`,
        { call_id: reply.call_id, seq: reply.seq },
      );
    case "call_limit":
      return new ApiError("call_limit", `this attempt has made the most calls one attempt may make (${reply.limit})`, {
        limit: reply.limit,
      });
  }
}

const LEASE_ENDED_MESSAGE = "the attempt's lease has ended, and its token with it";

export function leaseEndedError(): ApiError {
  return new ApiError("token_expired", LEASE_ENDED_MESSAGE);
}

/** A completion the attempt's D1 row could not hold beside its state (attempt-row.ts): 413 with the size; `fields` are what the caller may shorten. */
export function completionTooLarge(reply: { bytes: number; limit_bytes: number }, fields: string): RowTooLarge {
  return new RowTooLarge(
    `the completion beside the attempt's state would be ${reply.bytes} bytes; the state and the completion may be at most ${reply.limit_bytes} bytes together (the attempt's D1 row): send a shorter ${fields}`,
    reply.bytes,
    reply.limit_bytes,
  );
}

/** A harness error as its error body carries it: code harness_error, its kind beside the code. */
export function harnessError(kind: string, message: string, details: unknown = []): ApiError {
  return new ApiError("harness_error", message, details, { kind });
}

/** The recorded error of a call that did not end in a result (a tool input error or a harness error). */
export function answerError(answer: Answer): ApiError {
  const error: EvidenceError =
    answer.error === null
      ? { code: "harness_error", kind: "internal", message: "no answer was recorded", details: [] }
      : parseEvidenceError(answer.error);
  if (error.code === "tool_input_error") return new ApiError("tool_input_error", error.message, error.details);
  return harnessError(error.kind ?? "internal", error.message, error.details);
}
