/**
 * How a repetition's call reads on the dashboard, one place for the run and attempt pages: what
 * became of it (executed, proposed, never run) and what it came back with, including the input
 * schema problems of a proposal and the reason a call never reached a tool.
 */
import type { Problem } from "../../../core/json.js";
import type { RepetitionCall } from "../../../core/scoring/calls.js";

/** `executed: result`, `approval request (proposed, not executed)`, `never run: malformed arguments`. */
export function callKindText(call: RepetitionCall): string {
  if (call.kind === "executed") return call.outcome.replace(/_/g, " ");
  if (call.kind === "refused") return `never run: ${call.refusal.replace(/_/g, " ")}`;
  return (call.problems ?? []).length > 0
    ? "approval request (proposed, not executed), breaks the input schema"
    : "approval request (proposed, not executed)";
}

/** The result or error of an executed call, what the model was told about a refused one, or a proposal's schema problems. */
export function callDetailText(call: RepetitionCall): string {
  if (call.kind === "executed") return JSON.stringify(call.error ?? call.result ?? null);
  if (call.kind === "refused") return call.message;
  return problemsText(call.problems ?? []) || "—";
}

/** `/reason: must be one of [...]; /invoice_id: required`, or "" when there are none. */
export function problemsText(problems: readonly Problem[]): string {
  return problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; ");
}
