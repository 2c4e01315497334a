/**
 * Attempt routes, opened by the attempt's capability token (not an API key):
 *
 * - POST /api/attempts/:id/dispatch  one tool call; the result is the whole body, metadata in headers
 * - GET  /api/attempts/:id           status, state and counts (token, or an API key of the tenant)
 * - GET  /api/attempts/:id/evidence  every call in order (token, or an API key of the tenant)
 * - POST /api/attempts/:id/complete  the agent's final output and transcript (an external agent's
 *                                     repetition: its output, approval requests and messages, runs/external/complete.ts, which app.ts wires in)
 * - /api/attempts/:id/mcp            the same tools over MCP (src/worker/attempts/mcp.ts)
 *
 * Dispatch is the hot path; it lives in dispatch.ts.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { listEvidence } from "../../adapters/d1/simulations.js";
import { findAgentJob, type AgentJobRow } from "../../adapters/d1/external-agents.js";
import { EXTERNAL_ONLY_FIELDS } from "./external-completion-body.js";
import { readJson } from "../http/json-body.js";
import { hintedProblems } from "../http/field-hints.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../core/json.js";
import { toEvidenceCall } from "../../core/simulation/evidence.js";
import { mayPass } from "../../core/simulation/status.js";
import { systemClock } from "../../core/ports.js";
import { attemptStub, bodyAfterToken, capabilityTokenHash, tokenRefusal } from "./access.js";
import type { AttemptSnapshot } from "./replies.js";
import { completionTooLarge, leaseEndedError, refusalError } from "./reply-errors.js";
import { storedSnapshot } from "./stored-snapshot.js";
import { authorizedReader } from "./reader.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, invalidRequest } from "../http/errors.js";
import { errorHeaders, lostAttemptError } from "./lost-attempt.js";
import { mcpHandler } from "./mcp.js";
import { jsonObject } from "../http/schema-fields.js";
import { pageLimit, wholeNumberQuery } from "../http/pagination.js";
import { dispatchCall } from "./dispatch.js";
import { readStateHandler } from "./state-route.js";

export const attemptRoutes = new Hono<AppEnv>();

/** Evidence pages: large enough that most attempts fit in one, small enough to bound a response. */
export const EVIDENCE_PAGE_MAX = 1000;
const COMPLETE_BODY_LIMIT = 1024 * 1024;

attemptRoutes.post("/:id/dispatch", (c) => dispatchCall(c.req.raw, c.env, c.req.param("id")));

attemptRoutes.get("/:id", async (c) => {
  const attempt = await authorizedReader(c);
  const reply = await attemptStub(c.env, attempt.id).snapshot();
  if (reply.kind === "ok") return c.json(attemptView(reply.snapshot));
  // The object is gone (retired after its lease, or its storage lost): D1 holds what it last reported.
  return c.json(attemptView(await storedSnapshot(c.var.db, attempt)));
});

attemptRoutes.get("/:id/state", readStateHandler);

attemptRoutes.get("/:id/evidence", async (c) => {
  // Read as every list reads its query: the same strict whole numbers, the same /query/<name> paths.
  const after = evidenceAfter(c);
  const limit = pageLimit(c, EVIDENCE_PAGE_MAX, EVIDENCE_PAGE_MAX);
  const attempt = await authorizedReader(c);
  // Copy whatever the object has not flushed yet, so D1 alone answers "every call".
  const flushed = await attemptStub(c.env, attempt.id).flush();
  // Never answer from a D1 that is missing calls the object holds.
  if (flushed.kind === "failed") throw evidenceNotCopied();
  const rows = await listEvidence(c.var.db, attempt.id, after, limit);
  const last = rows[rows.length - 1];
  return c.json({
    attempt_id: attempt.id,
    calls: rows.map(toEvidenceCall),
    next_cursor: rows.length === limit && last ? String(last.seq) : null,
  });
});

/** ?after=: the seq of the last call seen (the previous page's next_cursor); 0, the default, starts at the first. */
function evidenceAfter(c: Context<AppEnv>): number {
  const message = "expected a whole number, 0 or more (the seq of a call)";
  return wholeNumberQuery(c, "after", 0, Number.MAX_SAFE_INTEGER, message) ?? 0;
}

export const completeRequest = z.strictObject({
  output: z.unknown().refine((value) => value !== undefined, "required: the agent's final output (any JSON)"),
  transcript: z.array(jsonObject).optional(),
  metadata: jsonObject.optional(),
});

attemptRoutes.all("/:id/mcp", mcpHandler);

/**
 * Completes an external agent's repetition (the run sent a job for the attempt). The runs feature
 * provides it and app.ts wires it in, so this feature never imports the runs feature above it.
 */
type ExternalCompletion = (c: Context<AppEnv>, job: AgentJobRow, tokenHash: string, raw: unknown) => Promise<Response>;

/** POST /api/attempts/:id/complete: a simulation's attempt here, an external agent's through `completeExternal`. */
export function attemptCompletionRoutes(completeExternal: ExternalCompletion): Hono<AppEnv> {
  return new Hono<AppEnv>().post("/:id/complete", async (c) => {
    const attemptId = c.req.param("id");
    const tokenHash = capabilityTokenHash(c, attemptId);
    const raw = await bodyAfterToken(c, attemptId, tokenHash, () => readJson(c, COMPLETE_BODY_LIMIT));
    // An external agent's attempt (its run sent it a job) completes with its own body: external/complete.ts.
    const job = await findAgentJob(c.var.db, attemptId);
    if (job) return bodyAfterToken(c, attemptId, tokenHash, () => completeExternal(c, job, tokenHash, raw));
    await refuseExternalFields(c, attemptId, tokenHash, raw);
    const body = await bodyAfterToken(c, attemptId, tokenHash, async () => {
      const parsed = completeRequest.safeParse(raw);
      if (!parsed.success) throw invalidRequest(hintedProblems(parsed.error, completeRequest));
      return parsed.data;
    });
    const completion: JsonObject = { output: toJson(body.output) };
    if (body.transcript) completion.transcript = body.transcript;
    if (body.metadata) completion.metadata = body.metadata;
    const reply = await attemptStub(c.env, attemptId).complete(tokenHash, completion);
    switch (reply.kind) {
      case "unauthorized":
        throw refusalError(reply);
      case "missing": {
        const error = await lostAttemptError(c.env, attemptId, tokenHash, systemClock);
        return error.toResponse(errorHeaders(error));
      }
      case "lease_expired":
        throw leaseEndedError();
      case "already_completed":
        throw new ApiError("already_completed", "this attempt has already been completed");
      case "too_large":
        throw completionTooLarge(reply, "output, transcript or metadata");
      case "ok":
        return c.json(attemptView(reply.snapshot));
    }
  });
}

/**
 * approval_requests and messages belong to an external agent's completion: sent for any other
 * attempt they get a 409 that says so, not the unknown-field 400 (which would suggest a typo).
 * The token is checked first, so the answer tells nothing to someone without it.
 */
async function refuseExternalFields(
  c: Context<AppEnv>,
  attemptId: string,
  tokenHash: string,
  raw: unknown,
): Promise<void> {
  if (!isJsonObject(raw) || !EXTERNAL_ONLY_FIELDS.some((field) => field in raw)) return;
  const refused = await tokenRefusal(c, attemptId, tokenHash);
  if (refused) throw refused;
  throw new ApiError(
    "not_external_repetition",
    `attempt ${attemptId} is not an external agent's repetition of a run (no job was sent for it): approval_requests and messages are taken only there; a simulation's attempt completes with output, transcript and metadata`,
  );
}

function evidenceNotCopied(): ApiError {
  return new ApiError(
    "internal_error",
    "the attempt's evidence could not be copied to the database, so a complete answer cannot be given now; nothing is lost (the attempt keeps every call and retries the copy): try again later",
  );
}

function attemptView(snapshot: AttemptSnapshot) {
  return {
    id: snapshot.id,
    simulation_id: snapshot.simulation_id,
    status: snapshot.status,
    may_pass: mayPass(snapshot.status),
    state: snapshot.state,
    calls: snapshot.calls,
    tool_input_errors: snapshot.tool_input_errors,
    harness_errors: snapshot.harness_errors,
    ...(snapshot.real_calls === undefined
      ? {}
      : { real_calls: snapshot.real_calls, contract_violations: snapshot.contract_violations ?? 0 }),
    expires_at: snapshot.expires_at,
    lease_ended: snapshot.lease_ended,
    completion: snapshot.completion,
  };
}

function toJson(value: unknown): JsonValue {
  // SAFETY: the value came out of JSON.parse of the request body, so it is a JSON value.
  return value as JsonValue;
}
