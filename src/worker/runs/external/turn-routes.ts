/**
 * POST /api/attempts/:id/turns: an external agent's reply in a conversation scenario, answered with
 * the user's next message or the conversation's end (docs/external-agents.md, "Conversations").
 * Opened by the attempt's token, like every attempt route, and mounted beside them in app.ts.
 *
 * The reply is taken by the run's coordinator before anything else happens (stored, and the turn
 * marked as being answered), then the user model is asked here, in the request (the agent waits for
 * its answer), and its answer is stored by the coordinator before it is returned. A user model that
 * fails ends the conversation with an infrastructure error: the agent is told it is over, and the
 * repetition is sent for scoring at once, since no completion needs to come.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { findAgentJob } from "../../../adapters/d1/external-agents.js";
import { MAX_USER_TURNS_LIMIT } from "../../../core/evals/conversation-types.js";
import { conversationMessages, MAX_AGENT_REPLY_LENGTH } from "../../../core/evals/external-conversation.js";
import { askUser, type UserStep } from "../../../core/evals/user-turn.js";
import { attemptUnauthorized, bodyAfterToken, capabilityTokenHash, tokenRefusal } from "../../attempts/access.js";
import { modelClientFor } from "../../connections/model-clients.js";
import { ApiError, invalidRequest } from "../../http/errors.js";
import { hintedProblems } from "../../http/field-hints.js";
import { readJson } from "../../http/json-body.js";
import type { AppEnv } from "../../platform/env.js";
import { sendRepetitions } from "../consumer/messages.js";
import { resolveUserModel } from "../consumer/user-model.js";
import { runStub } from "../coordinator/access.js";
import type { TurnReply } from "../coordinator/replies.js";

/** A reply of MAX_AGENT_REPLY_LENGTH characters, each up to 4 bytes, with room for the JSON around it. */
const TURN_BODY_LIMIT = MAX_AGENT_REPLY_LENGTH * 4 + 1024;

export const turnBody = z.strictObject({
  turn: z
    .number({
      error: "required: the number of the user message this replies to (1 for the job's conversation.message)",
    })
    .int("expected a whole number")
    .min(1, "expected 1 or more: user messages are numbered from 1")
    .max(MAX_USER_TURNS_LIMIT, `expected at most ${MAX_USER_TURNS_LIMIT} (no conversation has more user messages)`),
  message: z
    .string({ error: "required: the agent's reply to the user, as text" })
    .min(1, "expected the reply's text (an empty reply tells the user nothing)")
    .max(MAX_AGENT_REPLY_LENGTH, `expected at most ${MAX_AGENT_REPLY_LENGTH} characters`),
});

export const attemptTurnRoutes = new Hono<AppEnv>().post("/:id/turns", async (c) => {
  const attemptId = c.req.param("id");
  const tokenHash = capabilityTokenHash(c, attemptId);
  const { turn, message } = await turnOf(c, attemptId, tokenHash);
  const job = await findAgentJob(c.var.db, attemptId);
  if (!job) throw await noConversation(c, attemptId, tokenHash);

  const coordinator = runStub(c.env, job.run_id);
  const taken = await coordinator.takeTurn(job.seq, tokenHash, turn, message);
  if (taken.kind !== "ask") return c.json(answerOrThrow(taken, job.run_id));

  const step = await userStep(c, job.tenant_id, taken);
  const answered = await coordinator.answerTurn(job.seq, turn, taken.asked_at, step);
  switch (answered.kind) {
    case "missing":
      throw new ApiError("not_found", `run ${job.run_id} no longer holds this repetition`);
    case "stale":
      // A retry took the turn over while this request waited on the user model: its answer stands.
      if (answered.answer) return c.json(answered.answer);
      throw inProgress(turn);
    case "ok":
      if (answered.score) {
        // The coordinator counts it as sent now: the watchdog resends a message lost here.
        await sendRepetitions(c.env.EVAL_QUEUE, job.run_id, [job.seq]).catch((error: unknown) =>
          console.error("sending a conversation whose user model failed failed; the watchdog resends it", error),
        );
      }
      return c.json(answered.answer);
  }
});

/** The user model's next message on the conversation so far; a connection that cannot be used is its failure. */
async function userStep(
  c: Context<AppEnv>,
  tenantId: string,
  taken: Extract<TurnReply, { kind: "ask" }>,
): Promise<UserStep> {
  const instruction = taken.job.scenario.user?.instruction ?? "";
  // The user model's answers over the whole conversation share one budget, as in the built-in loop.
  const spent = taken.conversation.user_turns.reduce(
    (sum, turn) => sum + new TextEncoder().encode(turn.content ?? "").byteLength,
    0,
  );
  const found = await resolveUserModel(taken.job, (name) => modelClientFor(c.env, c.var.db, tenantId, name), spent);
  if (!found.ok) return { kind: "error", error: found.message };
  if (found.user_model === null) return { kind: "error", error: "the scenario is not a conversation" };
  const { client, connection, parameters } = found.user_model;
  return askUser({ client, connection, parameters, instruction }, conversationMessages(taken.conversation));
}

function answerOrThrow(reply: Exclude<TurnReply, { kind: "ask" }>, runId: string) {
  switch (reply.kind) {
    case "answer":
      return reply.answer;
    case "missing":
      throw new ApiError("not_found", `run ${runId} no longer holds this repetition`);
    case "unauthorized":
      throw attemptUnauthorized();
    case "not_conversation":
      throw new ApiError("not_external_repetition", reply.reason);
    case "closed":
      throw new ApiError(reply.code, reply.reason);
    case "refused":
      throw new ApiError(reply.code, `${reply.path}: ${reply.reason}`, {
        problems: [{ path: reply.path, message: reply.reason }],
      });
    case "in_progress":
      throw inProgress(reply.turn);
  }
}

function inProgress(turn: number): ApiError {
  return new ApiError(
    "turn_in_progress",
    `the user's answer to reply ${turn} is being made for an earlier request: post the same reply again shortly to get it`,
  );
}

/** The turn's body; a bad one is refused only once the token is known to be the attempt's (bodyAfterToken). */
function turnOf(c: Context<AppEnv>, attemptId: string, tokenHash: string) {
  return bodyAfterToken(c, attemptId, tokenHash, async () => {
    const parsed = turnBody.safeParse(await readJson(c, TURN_BODY_LIMIT));
    if (!parsed.success) throw invalidRequest(hintedProblems(parsed.error, turnBody));
    return parsed.data;
  });
}

/** An attempt with no job: the token is checked first, so the answer tells nothing to someone without it. */
async function noConversation(c: Context<AppEnv>, attemptId: string, tokenHash: string): Promise<ApiError> {
  const refused = await tokenRefusal(c, attemptId, tokenHash);
  if (refused) return refused;
  return new ApiError(
    "not_external_repetition",
    `attempt ${attemptId} is not an external agent's conversation (no job was sent for it): only a run's conversation scenario takes turns`,
  );
}
