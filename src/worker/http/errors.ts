/**
 * The one error vocabulary of the HTTP surface: a closed set of codes, each with its status, and
 * one body shape for every error, {"error": {"code", "message", "details"?}}. Routes throw
 * ApiError; app.onError (and the dispatch entry point) render it. Adding a code means adding it
 * here, so a status can never be chosen per call site and drift.
 */
import type { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Problem } from "../../core/json.js";
import { RowTooLarge } from "../../adapters/d1/row-limit.js";

export const ERROR_STATUS = {
  invalid_request: 400,
  malformed_json: 400,
  malformed_yaml: 400,
  invalid_encoding: 400,
  unauthorized: 401,
  token_expired: 401,
  forbidden: 403,
  /** Real-tools runs: an upstream host not on the tenant's allowlist, or a private, loopback or link-local address. */
  upstream_not_allowed: 403,
  /** Real-tools runs: a write operation whose upstream does not set allow_writes. */
  real_write_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  stale_contract: 409,
  tool_name_taken: 409,
  stored_policy_invalid: 409,
  stored_suite_invalid: 409,
  no_current_revision: 409,
  /** Real-tools runs: the tool declares no real handler for the operation. */
  upstream_not_configured: 409,
  call_id_reused: 409,
  connection_key_unreadable: 409,
  already_completed: 409,
  /** External agents: a completion for an attempt that is no external agent's repetition, or came too late. */
  not_external_repetition: 409,
  repetition_timed_out: 409,
  /** External agents' conversations: a turn after the conversation (or the repetition) ended. */
  conversation_ended: 409,
  /** A turn that is not the reply awaited now (details.problems names /turn or /message). */
  turn_out_of_order: 409,
  /** The user model is still answering this very turn, for an earlier request: try again shortly. */
  turn_in_progress: 409,
  /** Labels wait for a run's end: its repetitions reach D1 only then. */
  run_not_ended: 409,
  /** DELETE /api/keys/:id: the tenant's last unrevoked Admin key, which would leave nobody able to manage keys. */
  last_admin_key: 409,
  /** POST /api/datasets/:name/versions: ?base_version= is not the dataset's latest version. */
  stale_dataset_version: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_definition: 422,
  needs_authored_mock: 422,
  /** No string field of the output schema can carry an injection payload (action "inject"). */
  not_injectable: 422,
  model_connection_required: 422,
  initial_state_conflict: 422,
  tool_input_error: 422,
  call_limit: 429,
  /** Too many refused webhook deliveries from one address (answered with retry-after). */
  rate_limited: 429,
  harness_error: 500,
  internal_error: 500,
  /** A model endpoint failed (unreachable, refused the key, unknown model, 5xx after retries). */
  model_unavailable: 502,
  /** A model answered, but not with what was asked for (a draft that is not a JSON object). */
  unusable_model_answer: 502,
  secret_not_configured: 503,
  /** An external agent's run needs TOOLPROOF_PUBLIC_URL, the base of the URLs its jobs carry. */
  public_url_not_configured: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown; [extra: string]: unknown };
}

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Fields beside code in the body (a harness error's kind). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.details, this.extra);
  }

  toResponse(headers?: Record<string, string>): Response {
    return Response.json(this.toBody(), { status: this.status, ...(headers ? { headers } : {}) });
  }
}

/** The one place an error body is assembled; `extra` carries fields beside code (the harness error's kind). */
export function errorBody(
  code: ErrorCode,
  message: string,
  details?: unknown,
  extra?: Record<string, unknown>,
): ErrorBody {
  return { error: { code, ...extra, message, ...(details === undefined ? {} : { details }) } };
}

/**
 * The response for anything a handler threw: an ApiError as its own status and body, anything
 * else as a 500 that reveals nothing (and is logged).
 */
export function errorResponse(error: unknown): Response {
  if (error instanceof ApiError) return error.toResponse();
  if (error instanceof RowTooLarge)
    return new ApiError("payload_too_large", error.message, {
      bytes: error.bytes,
      limit_bytes: error.limitBytes,
    }).toResponse();
  console.error("unhandled error", error);
  return new ApiError("internal_error", "an internal error occurred").toResponse();
}

/** A request whose fields are wrong: every problem at once, each naming its field as a JSON Pointer. */
export function invalidRequest(problems: Problem[]): ApiError {
  const first = problems[0];
  const summary = first ? `${first.path || "body"}: ${first.message}` : "invalid request";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  return new ApiError("invalid_request", `${summary}${more}`, { problems });
}

export function notFound(what: string): ApiError {
  return new ApiError("not_found", `${what} not found`);
}

/**
 * Hono's own exceptions (thrown by its helpers, not by toolproof's routes) in toolproof's body,
 * so no answer is ever plain text: the status picks the nearest code of the vocabulary.
 */
export function fromHttpException(exception: HTTPException): ApiError {
  const byStatus: Partial<Record<number, ErrorCode>> = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
  };
  const code = byStatus[exception.status];
  return code
    ? new ApiError(code, exception.message || code.replaceAll("_", " "))
    : new ApiError("internal_error", "an internal error occurred");
}
