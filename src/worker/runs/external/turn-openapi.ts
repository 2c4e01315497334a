/** POST /api/attempts/:id/turns (turn-routes.ts): an external agent's turn in a conversation scenario. */
import { z } from "zod";
import { JSON_BODY_ERRORS, type OperationDoc } from "../../http/openapi/operation.js";
import { named } from "../../http/openapi/schemas.js";
import { turnBody } from "./turn-routes.js";

const TurnRequest = named(
  "TurnRequest",
  turnBody.describe(
    "The agent's reply to user message `turn` (1 is the job's conversation.message). The same reply posted again is answered again.",
  ),
);
const TurnAnswer = named(
  "TurnAnswer",
  z
    .union([
      z.object({
        done: z.literal(false),
        turn: z.number().int().describe("The number of this user message: the agent's next reply carries it."),
        message: z.string().describe("The user's next message."),
      }),
      z.object({
        done: z.literal(true),
        stop_reason: z
          .enum(["user_stop", "max_turns", "user_model_error"])
          .describe(
            "user_stop: the user ended it; max_turns: the agent answered the last message the user may send; user_model_error: the user model failed (an infrastructure error, never the agent's fail; no completion is needed).",
          ),
      }),
    ])
    .describe("The user's next message, or the end of the conversation: then complete the attempt."),
);

export const turnOperations: OperationDoc[] = [
  {
    method: "post",
    path: "/api/attempts/:id/turns",
    tag: "Attempts",
    summary: "Reply to the simulated user",
    description:
      "An external agent's reply in a conversation scenario (docs/external-agents.md, Conversations): the user model's answer comes back, or that the conversation is over. Replies are numbered by the user message they answer and taken in order: one to a message not sent yet, or another text for one already taken, is 409 turn_out_of_order naming /turn or /message; any after the end is 409 conversation_ended; while the user model is still answering the same reply for an earlier request, 409 turn_in_progress.",
    access: { kind: "attempt_token" },
    params: { id: "The attempt's id." },
    body: { schema: TurnRequest, example: { turn: 1, message: "INV-10431 from Fabrikam Office is received." } },
    responses: { 200: { description: "The user's next message, or the end.", schema: TurnAnswer } },
    errors: [
      ...JSON_BODY_ERRORS,
      "not_external_repetition",
      "conversation_ended",
      "turn_out_of_order",
      "turn_in_progress",
      "repetition_timed_out",
      "not_found",
    ],
  },
];
