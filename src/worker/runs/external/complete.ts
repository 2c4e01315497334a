/**
 * POST /api/attempts/:id/complete for an external agent's attempt (attempts.ts hands it here when
 * the attempt has a job in agent_jobs). The completion is stored on the attempt (the first one
 * counts: the attempt refuses a second), the run's coordinator is told, and the repetition's
 * message is sent so a queue delivery scores it. The judge is called by that delivery, not here:
 * a judge that retries or answers slowly would otherwise hold this request past its time budget,
 * and a lost request would lose the score; the queue retries, and the watchdog resends.
 *
 * Answers: 202 with the stored completion and `status: "scoring"`; 409 already_completed (the
 * recorded completion and, once scored, the verdict in details); 409 repetition_timed_out after the
 * deadline; 409 not_external_repetition when the run no longer waits for this attempt.
 */
import type { Context } from "hono";
import type { AgentJobRow } from "../../../adapters/d1/external-agents.js";
import type { JsonValue } from "../../../core/json.js";
import { systemClock } from "../../../core/ports.js";
import { attemptStub } from "../../attempts/access.js";
import { completionTooLarge, leaseEndedError, refusalError } from "../../attempts/reply-errors.js";
import type { AppEnv } from "../../platform/env.js";
import { sendRepetitions } from "../consumer/messages.js";
import { hintedProblems } from "../../http/field-hints.js";
import { ApiError, invalidRequest } from "../../http/errors.js";
import { errorHeaders, lostAttemptError } from "../../attempts/lost-attempt.js";
import type { CompleteReply } from "../coordinator/replies.js";
import { runStub } from "../coordinator/access.js";
import { externalCompletionBody } from "../../attempts/external-completion-body.js";
import { storedCompletion } from "./completion.js";

export async function completeExternalAttempt(
  c: Context<AppEnv>,
  job: AgentJobRow,
  tokenHash: string,
  body: unknown,
): Promise<Response> {
  const parsed = externalCompletionBody.safeParse(body);
  if (!parsed.success) throw invalidRequest(hintedProblems(parsed.error, externalCompletionBody));
  const stub = attemptStub(c.env, job.attempt_id);
  const reply = await stub.complete(tokenHash, storedCompletion(parsed.data));
  switch (reply.kind) {
    case "unauthorized":
      throw refusalError(reply);
    case "missing": {
      const error = await lostAttemptError(c.env, job.attempt_id, tokenHash, systemClock);
      return error.toResponse(errorHeaders(error));
    }
    case "lease_expired":
      throw leaseEndedError();
    case "too_large":
      throw completionTooLarge(reply, "output, approval_requests or messages");
    case "already_completed": {
      // The coordinator is told again: a first request that stored the completion and then failed still gets scored.
      const told = await tell(c, job);
      const snapshot = await stub.snapshot();
      const completion = snapshot.kind === "ok" ? snapshot.snapshot.completion : null;
      throw new ApiError(
        "already_completed",
        "this attempt has already been completed; the first completion is the one scored",
        {
          completion,
          verdict: told.kind === "recorded" ? told.record.verdict : null,
        },
      );
    }
    case "ok": {
      const told = await tell(c, job);
      if (told.kind !== "ok") throw refusedCompletion(told, job);
      return c.json(
        { attempt_id: job.attempt_id, run_id: job.run_id, status: "scoring", completion: reply.snapshot.completion },
        202,
      );
    }
  }
}

/** The coordinator learns of the completion; a first completion sends the repetition's message to be scored. */
async function tell(c: Context<AppEnv>, job: AgentJobRow): Promise<CompleteReply> {
  const told = await runStub(c.env, job.run_id).completeAgent(job.seq);
  if (told.kind === "ok") {
    // A lost send is resent by the watchdog, which counts the completion as sent just now.
    await sendRepetitions(c.env.EVAL_QUEUE, job.run_id, [job.seq]).catch((error: unknown) =>
      console.error("sending a completed repetition failed; the watchdog resends it", error),
    );
  }
  return told;
}

function refusedCompletion(told: Exclude<CompleteReply, { kind: "ok" }>, job: AgentJobRow): ApiError {
  switch (told.kind) {
    case "timed_out":
      return new ApiError(
        "repetition_timed_out",
        `the job's deadline (${new Date(told.deadline_at).toISOString()}) passed before this completion; the repetition fails as timed_out`,
        {
          deadline: new Date(told.deadline_at).toISOString(),
        },
      );
    case "recorded":
      if (told.record.verdict.cause === "timed_out") {
        return new ApiError(
          "repetition_timed_out",
          `the job's deadline passed before this completion; run ${job.run_id} recorded the repetition as timed_out`,
          {
            verdict: told.record.verdict as unknown as JsonValue,
          },
        );
      }
      return new ApiError(
        "not_external_repetition",
        `run ${job.run_id} recorded this repetition already (${told.record.verdict.outcome}: ${told.record.verdict.reason}); the completion changes nothing`,
        {
          verdict: told.record.verdict as unknown as JsonValue,
        },
      );
    case "ended":
      return new ApiError(
        "not_external_repetition",
        `run ${job.run_id} has ended (${told.status}); it no longer takes completions`,
      );
    case "missing":
    case "not_sent":
    case "already_completed":
      return new ApiError(
        "not_external_repetition",
        `run ${job.run_id} is not waiting for this attempt's completion (${told.kind.replace("_", " ")})`,
      );
  }
}
