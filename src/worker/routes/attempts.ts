/**
 * Attempt routes, opened by the attempt's capability token (not an API key):
 *
 * - POST /api/attempts/:id/dispatch  one tool call; the result is the whole body, metadata in headers
 * - GET  /api/attempts/:id           status, state and counts (token, or an API key of the tenant)
 * - GET  /api/attempts/:id/evidence  every call in order (token, or an API key of the tenant)
 * - POST /api/attempts/:id/complete  the agent's final output and transcript
 * - /api/attempts/:id/mcp            the same tools over MCP (src/worker/mcp.ts)
 *
 * Dispatch is the hot path: the body crosses to the attempt object as text, the token is checked
 * by the object in the same RPC, and the rendered result text comes back as the response body
 * without being parsed or serialized again.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { constantTimeEqual } from "../../adapters/crypto.js";
import { KEY_PREFIX } from "../../adapters/d1/api-keys.js";
import { countEvidence, findAttempt, listEvidence, type AttemptRow } from "../../adapters/d1/simulations.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../core/json.js";
import { systemClock } from "../../core/ports.js";
import { parseDelayScale, waitSimulatedDelay } from "../../core/simulation/delay.js";
import { toEvidenceCall } from "../../core/simulation/evidence.js";
import { isAttemptStatus, mayPass } from "../../core/simulation/status.js";
import { attemptStub, attemptUnauthorized, capabilityTokenHash, isAttemptId } from "../attempt-access.js";
import type { Answer, AttemptSnapshot } from "../attempt-object.js";
import type { AppEnv } from "../env.js";
import { ApiError, invalidRequest } from "../http-error.js";
import { mcpHandler } from "../mcp.js";
import { authenticate } from "../middleware/auth.js";
import { readBody } from "../middleware/json-body.js";
import { jsonObject } from "../schema-fields.js";
import { readDispatchText } from "./dispatch-body.js";

export const attemptRoutes = new Hono<AppEnv>();

/** Evidence pages: large enough that most attempts fit in one, small enough to bound a response. */
const EVIDENCE_PAGE_MAX = 1000;
const COMPLETE_BODY_LIMIT = 1024 * 1024;

attemptRoutes.post("/:id/dispatch", async (c) => {
  const attemptId = c.req.param("id");
  const tokenHash = await capabilityTokenHash(c, attemptId);
  const body = await readDispatchText(c);
  const reply = await attemptStub(c.env, attemptId).dispatch(tokenHash, body);
  switch (reply.kind) {
    case "unauthorized":
      throw attemptUnauthorized();
    case "invalid_request":
      throw invalidRequest(reply.problems);
    case "ambiguous":
      throw new ApiError(400, "invalid_request", `/operation_id: ${reply.message}`, {
        problems: [{ path: "/operation_id", message: reply.message }],
        operation_ids: reply.operation_ids,
      });
    case "call_id_conflict":
      throw new ApiError(409, "call_id_reused", `/call_id: "${reply.call_id}" was already used by call ${reply.seq} with a different tool or arguments`, {
        call_id: reply.call_id,
        seq: reply.seq,
      });
    case "call_limit":
      throw new ApiError(429, "call_limit", `this attempt has made the most calls one attempt may make (${reply.limit})`, { limit: reply.limit });
    case "answer":
      await waitSimulatedDelay(reply.answer.delay_ms, parseDelayScale(c.env.DELAY_SCALE), systemClock);
      return httpAnswer(reply.answer);
  }
});

attemptRoutes.get("/:id", async (c) => {
  const attempt = await authorizedReader(c);
  const reply = await attemptStub(c.env, attempt.id).snapshot();
  if (reply.kind === "ok") return c.json(attemptView(attempt, reply.snapshot));
  // The object is gone (retired after its lease): D1 holds what it last reported.
  const counts = await countEvidence(c.var.db, attempt.id);
  const status = isAttemptStatus(attempt.status) ? attempt.status : "harness_failed";
  return c.json(
    attemptView(attempt, {
      status,
      state: parseObjectColumn(attempt.state),
      ...counts,
      expires_at: attempt.expires_at,
      lease_ended: true,
      completion: attempt.completion === null ? null : parseColumn(attempt.completion),
    }),
  );
});

const evidenceQuery = z.strictObject({
  after: z.coerce.number({ error: "expected a whole number" }).int("expected a whole number").min(0, "expected 0 or more").optional(),
  limit: z.coerce.number({ error: "expected a whole number" }).int("expected a whole number").min(1, "expected 1 or more").max(EVIDENCE_PAGE_MAX, `expected at most ${EVIDENCE_PAGE_MAX}`).optional(),
});

attemptRoutes.get("/:id/evidence", async (c) => {
  const query = evidenceQuery.safeParse(c.req.query());
  if (!query.success) {
    throw invalidRequest(query.error.issues.map((issue) => ({ path: `?${issue.path.join(".")}`, message: issue.message })));
  }
  const attempt = await authorizedReader(c);
  // Copy whatever the object has not flushed yet, so D1 alone answers "every call".
  await attemptStub(c.env, attempt.id).flush();
  const limit = query.data.limit ?? EVIDENCE_PAGE_MAX;
  const rows = await listEvidence(c.var.db, attempt.id, query.data.after ?? 0, limit);
  const last = rows[rows.length - 1];
  return c.json({
    attempt_id: attempt.id,
    calls: rows.map(toEvidenceCall),
    next_cursor: rows.length === limit && last ? String(last.seq) : null,
  });
});

const completeRequest = z.strictObject({
  output: z.unknown().refine((value) => value !== undefined, "required: the agent's final output (any JSON)"),
  transcript: z.array(jsonObject).optional(),
  metadata: jsonObject.optional(),
});

attemptRoutes.post("/:id/complete", async (c) => {
  const attemptId = c.req.param("id");
  const tokenHash = await capabilityTokenHash(c, attemptId);
  const body = await readBody(c, completeRequest, COMPLETE_BODY_LIMIT);
  const completion: JsonObject = { output: toJson(body.output) };
  if (body.transcript) completion.transcript = body.transcript;
  if (body.metadata) completion.metadata = body.metadata;
  const reply = await attemptStub(c.env, attemptId).complete(tokenHash, completion);
  switch (reply.kind) {
    case "unauthorized":
      throw attemptUnauthorized();
    case "lease_expired":
      throw new ApiError(401, "token_expired", "the attempt's lease has ended, and its token with it");
    case "already_completed":
      throw new ApiError(409, "already_completed", "this attempt has already been completed");
    case "ok": {
      const attempt = await findAttempt(c.var.db, attemptId);
      if (!attempt) throw attemptUnauthorized();
      return c.json(attemptView(attempt, reply.snapshot));
    }
  }
});

attemptRoutes.all("/:id/mcp", mcpHandler);

/**
 * The result exactly as rendered, as the whole body; everything else in headers. Errors carry the
 * body shapes of the error table: 422 tool_input_error (the agent's to fix), 500 harness_error.
 */
export function httpAnswer(answer: Answer): Response {
  const headers = new Headers({ "content-type": "application/json; charset=utf-8" });
  headers.set("x-toolproof-seq", String(answer.seq));
  headers.set("x-toolproof-tool", encodeURIComponent(answer.tool));
  headers.set("x-toolproof-operation", encodeURIComponent(answer.operation_id));
  if (answer.revision !== null) headers.set("x-toolproof-revision", String(answer.revision));
  if (answer.variant !== null) headers.set("x-toolproof-variant", encodeURIComponent(answer.variant));
  headers.set("x-toolproof-rule", answer.rule === null ? "none" : String(answer.rule));
  headers.set("x-toolproof-delay-ms", String(answer.delay_ms));
  headers.set("x-toolproof-outcome", answer.outcome);
  if (answer.replayed) headers.set("x-toolproof-replayed", "true");
  if (answer.outcome === "result" && answer.result !== null) return new Response(answer.result, { status: 200, headers });
  const status = answer.outcome === "tool_input_error" ? 422 : 500;
  return new Response(`{"error":${answer.error ?? '{"code":"harness_error","kind":"internal","message":"no answer was recorded"}'}}`, { status, headers });
}

/**
 * Who may read an attempt: its own token while the lease lasts, or at any time an API key of the
 * attempt's tenant with AIManager:RunEvals. Checked against D1, which outlives the object.
 */
async function authorizedReader(c: Context<AppEnv>): Promise<AttemptRow> {
  const attemptId = c.req.param("id") ?? "";
  const bearer = c.req.header("authorization");
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(bearer ?? "")?.[1];
  if (presented?.startsWith(KEY_PREFIX)) {
    await authenticate(c, async () => undefined);
    const { tenantId, permissions } = c.var.principal;
    if (!permissions.has("AIManager:RunEvals") && !permissions.has("AIManager:Admin")) {
      throw new ApiError(403, "forbidden", "this API key lacks the permission AIManager:RunEvals", { required_permission: "AIManager:RunEvals" });
    }
    const attempt = isAttemptId(attemptId) ? await findAttempt(c.var.db, attemptId) : undefined;
    if (!attempt || attempt.tenant_id !== tenantId) throw new ApiError(404, "not_found", "attempt not found");
    return attempt;
  }
  const tokenHash = await capabilityTokenHash(c, attemptId);
  const attempt = await findAttempt(c.var.db, attemptId);
  if (!attempt || !constantTimeEqual(attempt.token_hash, tokenHash)) throw attemptUnauthorized();
  if (Date.parse(attempt.expires_at) <= Date.now() || attempt.status === "expired") {
    throw new ApiError(401, "token_expired", "the attempt's lease has ended, and its token with it; read it with an API key instead");
  }
  return attempt;
}

function attemptView(attempt: AttemptRow, snapshot: AttemptSnapshot) {
  return {
    id: attempt.id,
    simulation_id: attempt.simulation_id,
    status: snapshot.status,
    may_pass: mayPass(snapshot.status),
    state: snapshot.state,
    calls: snapshot.calls,
    tool_input_errors: snapshot.tool_input_errors,
    harness_errors: snapshot.harness_errors,
    expires_at: snapshot.expires_at,
    lease_ended: snapshot.lease_ended,
    completion: snapshot.completion,
  };
}

function parseColumn(text: string): JsonValue {
  // SAFETY: attempt columns are written by this code from JSON.stringify of JSON values.
  return JSON.parse(text) as JsonValue;
}

function parseObjectColumn(text: string | null): JsonObject {
  if (text === null) return {};
  const value = parseColumn(text);
  return isJsonObject(value) ? value : {};
}

function toJson(value: unknown): JsonValue {
  // SAFETY: the value came out of JSON.parse of the request body, so it is a JSON value.
  return value as JsonValue;
}
