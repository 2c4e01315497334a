/**
 * The body an external agent completes its attempt with (POST /api/attempts/:id/complete), checked
 * field by field. It lives with the attempt's routes, which accept it; the runs feature reads it
 * back when the repetition is scored (runs/external/completion.ts).
 */
import { z } from "zod";
import { FUNCTION_NAME } from "../../core/simulation/tool-names.js";
import { jsonObject } from "../http/schema-fields.js";

const MAX_APPROVAL_REQUESTS = 100;
const MAX_MESSAGES = 1000;
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
