/**
 * One error type for every route and one body shape for every error:
 * {"error": {"code", "message", "details"?}}. Routes throw ApiError; app.onError renders it.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Problem } from "../core/json.js";

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toBody(): { error: { code: string; message: string; details?: unknown } } {
    return { error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) } };
  }
}

/**
 * The response for anything a handler threw: an ApiError as its own status and body, anything
 * else as a 500 that reveals nothing (and is logged).
 */
export function errorResponse(error: unknown): Response {
  if (error instanceof ApiError) return Response.json(error.toBody(), { status: error.status });
  console.error("unhandled error", error);
  return Response.json(new ApiError(500, "internal_error", "an internal error occurred").toBody(), { status: 500 });
}

/** A request whose fields are wrong: every problem at once, each naming its field as a JSON Pointer. */
export function invalidRequest(problems: Problem[]): ApiError {
  const first = problems[0];
  const summary = first ? `${first.path || "body"}: ${first.message}` : "invalid request";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  return new ApiError(400, "invalid_request", `${summary}${more}`, { problems });
}

export function notFound(what: string): ApiError {
  return new ApiError(404, "not_found", `${what} not found`);
}
