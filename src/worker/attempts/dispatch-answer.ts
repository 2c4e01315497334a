/** A call's answer as HTTP: the rendered result as the whole body, everything else in headers. */
import type { Answer } from "./replies.js";
import { toWellFormedText } from "../../core/json-input.js";
import { answerError } from "./reply-errors.js";

/**
 * The result exactly as rendered, as the whole body; everything else in headers. Errors carry the
 * bodies of the error table: 422 tool_input_error (the agent's to fix), 500 harness_error.
 */
export function httpAnswer(answer: Answer): Response {
  // One plain object handed to Response: cheaper than building a Headers and setting each field.
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "x-toolproof-seq": String(answer.seq),
    "x-toolproof-tool": headerText(answer.tool),
    "x-toolproof-operation": headerText(answer.operation_id),
    "x-toolproof-rule": answer.rule === null ? "none" : String(answer.rule),
    "x-toolproof-delay-ms": String(answer.delay_ms),
    "x-toolproof-outcome": answer.outcome,
  };
  if (answer.revision !== null) headers["x-toolproof-revision"] = String(answer.revision);
  if (answer.variant !== null) headers["x-toolproof-variant"] = headerText(answer.variant);
  if (answer.replayed) headers["x-toolproof-replayed"] = "true";
  if (answer.outcome === "result" && answer.result !== null)
    return new Response(answer.result, { status: 200, headers });
  return answerError(answer).toResponse(headers);
}

/**
 * A name as a header value: percent-encoded UTF-8. Total on purpose: encodeURIComponent throws
 * on a lone surrogate, which has no UTF-8 form, so one becomes U+FFFD first. A header must never
 * turn an answered call into a 500 without its body.
 */
export function headerText(value: string): string {
  return encodeURIComponent(toWellFormedText(value));
}
