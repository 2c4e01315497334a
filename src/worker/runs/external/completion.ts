/**
 * What an external agent reported with POST /api/attempts/:id/complete (its body:
 * attempts/external-completion-body.ts), as the attempt stores it and as the repetition is scored from it.
 */
import type { ExternalOutcome } from "../../../core/evals/evaluate-repetition.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../../core/json.js";
import type { ChatMessage } from "../../../core/ports.js";
import type { ApprovalRequest } from "../../../core/scoring/calls.js";
import { externalCompletionBody, type ExternalCompletionBody } from "../../attempts/external-completion-body.js";

/** The completion as the attempt stores it (the object adds completed_at). */
export function storedCompletion(body: ExternalCompletionBody): JsonObject {
  const stored: JsonObject = {
    output: body.output,
    approval_requests: (body.approval_requests ?? []).map((r) => ({
      name: r.name,
      arguments: r.arguments,
      call_id: r.call_id,
    })),
  };
  // SAFETY: every message passed the schema above, whose shapes are JSON.
  if (body.messages) stored.messages = body.messages as unknown as JsonValue[];
  if (body.metadata) stored.metadata = body.metadata;
  return stored;
}

/** A stored completion as scoring reads it; undefined when the attempt holds none it can read. */
export function completionOutcome(
  completion: JsonValue | null,
): Extract<ExternalOutcome, { kind: "completed" }> | undefined {
  if (!isJsonObject(completion)) return undefined;
  const parsed = externalCompletionBody.safeParse(withoutCompletedAt(completion));
  if (!parsed.success) return undefined;
  const approval_requests: ApprovalRequest[] = (parsed.data.approval_requests ?? []).map((r) => ({
    function: r.name,
    arguments: r.arguments,
    call_id: r.call_id,
  }));
  // SAFETY: the schema's message shapes are ChatMessage's.
  const messages = (parsed.data.messages ?? null) as ChatMessage[] | null;
  return { kind: "completed", final_answer: parsed.data.output, approval_requests, messages };
}

function withoutCompletedAt(completion: JsonObject): JsonObject {
  const { completed_at: _completedAt, ...rest } = completion;
  return rest;
}
