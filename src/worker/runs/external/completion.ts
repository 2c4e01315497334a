/**
 * What an external agent reports with POST /api/attempts/:id/complete, checked field by field,
 * and read back from the attempt (where the route stores it) when the repetition is scored.
 */
import { z } from "zod";
import type { ExternalOutcome } from "../../../core/evals/evaluate-repetition.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../../core/json.js";
import type { ChatMessage } from "../../../core/ports.js";
import type { ApprovalRequest } from "../../../core/scoring/calls.js";
import { FUNCTION_NAME } from "../../../core/simulation/tool-names.js";
import { jsonObject } from "../../http/schema-fields.js";

export const MAX_APPROVAL_REQUESTS = 100;
export const MAX_MESSAGES = 1000;
const MAX_TEXT = 200_000;
const CALL_ID = z
  .string()
  .min(1, "expected the call's id (1 to 200 characters)")
  .max(200, "expected at most 200 characters");
const text = z.string().max(MAX_TEXT, `expected at most ${MAX_TEXT} characters`);

const approvalRequest = z.strictObject({
  name: z
    .string({ error: "expected the function's name, as the attempt's tools name it" })
    .regex(FUNCTION_NAME, "expected a function name (1 to 64 letters, digits, '_' or '-')"),
  arguments: jsonObject,
  call_id: CALL_ID,
});

const toolCall = z.strictObject({
  id: CALL_ID,
  type: z.literal("function", { error: 'expected "function"' }),
  function: z.strictObject({ name: z.string().regex(FUNCTION_NAME, "expected a function name"), arguments: text }),
});

/** The chat messages an OpenAI-compatible agent keeps; stored as the repetition's transcript. */
const message = z.discriminatedUnion(
  "role",
  [
    z.strictObject({ role: z.enum(["system", "user"]), content: text }),
    z.strictObject({
      role: z.literal("assistant"),
      content: text.nullable(),
      tool_calls: z.array(toolCall).max(MAX_APPROVAL_REQUESTS).optional(),
    }),
    z.strictObject({ role: z.literal("tool"), tool_call_id: CALL_ID, content: text }),
  ],
  { error: "expected a chat message with role system, user, assistant or tool" },
);

export const externalCompletionBody = z.strictObject({
  output: z.union([text, z.null()], {
    error: "required: the agent's final answer as a string (null when it ended without one)",
  }),
  approval_requests: z
    .array(approvalRequest)
    .max(MAX_APPROVAL_REQUESTS, `expected at most ${MAX_APPROVAL_REQUESTS} approval requests`)
    .optional(),
  messages: z.array(message).max(MAX_MESSAGES, `expected at most ${MAX_MESSAGES} messages`).optional(),
  metadata: jsonObject.optional(),
});

export type ExternalCompletionBody = z.output<typeof externalCompletionBody>;

/** Fields only an external agent's completion carries: sent for any other attempt, they are refused. */
export const EXTERNAL_ONLY_FIELDS = ["approval_requests", "messages"] as const;

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
