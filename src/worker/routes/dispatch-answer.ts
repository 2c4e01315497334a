/** A call's answer as HTTP: the rendered result as the whole body, everything else in headers. */
import type { Answer } from "../attempt-object.js";

/**
 * The result exactly as rendered, as the whole body; everything else in headers. Errors carry the
 * body shapes of the error table: 422 tool_input_error (the agent's to fix), 500 harness_error.
 */
export function httpAnswer(answer: Answer): Response {
  // One plain object handed to Response: cheaper than building a Headers and setting each field.
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "x-toolproof-seq": String(answer.seq),
    "x-toolproof-tool": encodeURIComponent(answer.tool),
    "x-toolproof-operation": encodeURIComponent(answer.operation_id),
    "x-toolproof-rule": answer.rule === null ? "none" : String(answer.rule),
    "x-toolproof-delay-ms": String(answer.delay_ms),
    "x-toolproof-outcome": answer.outcome,
  };
  if (answer.revision !== null) headers["x-toolproof-revision"] = String(answer.revision);
  if (answer.variant !== null) headers["x-toolproof-variant"] = encodeURIComponent(answer.variant);
  if (answer.replayed) headers["x-toolproof-replayed"] = "true";
  if (answer.outcome === "result" && answer.result !== null) return new Response(answer.result, { status: 200, headers });
  const status = answer.outcome === "tool_input_error" ? 422 : 500;
  return new Response(`{"error":${answer.error ?? '{"code":"harness_error","kind":"internal","message":"no answer was recorded"}'}}`, { status, headers });
}
