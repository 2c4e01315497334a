/**
 * Who may read an attempt (GET /api/attempts/:id and its evidence): its own capability token while
 * the lease lasts, or at any time an API key of the attempt's tenant with AIManager:RunEvals.
 * Checked against D1, which outlives the attempt's object.
 */
import type { Context } from "hono";
import { constantTimeEqual } from "../../adapters/crypto.js";
import { KEY_PREFIX } from "../../adapters/d1/api-keys.js";
import { findAttempt, type AttemptRow } from "../../adapters/d1/simulations.js";
import { systemClock } from "../../core/ports.js";
import { attemptUnauthorized, capabilityTokenHash, isAttemptId } from "./access.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError } from "../http/errors.js";
import { authenticate, bearerToken } from "../http/auth.js";

export async function authorizedReader(c: Context<AppEnv>): Promise<AttemptRow> {
  const attemptId = c.req.param("id") ?? "";
  if (bearerToken(c.req.header("authorization"))?.startsWith(KEY_PREFIX)) {
    await authenticate(c, async () => undefined);
    const { tenantId, permissions } = c.var.principal;
    if (!permissions.has("AIManager:RunEvals") && !permissions.has("AIManager:Admin")) {
      throw new ApiError("forbidden", "this API key lacks the permission AIManager:RunEvals", {
        required_permission: "AIManager:RunEvals",
      });
    }
    const attempt = isAttemptId(attemptId) ? await findAttempt(c.var.db, attemptId) : undefined;
    if (!attempt || attempt.tenant_id !== tenantId) throw new ApiError("not_found", "attempt not found");
    return attempt;
  }
  const tokenHash = capabilityTokenHash(c, attemptId);
  const attempt = await findAttempt(c.var.db, attemptId);
  if (!attempt || !constantTimeEqual(attempt.token_hash, tokenHash)) throw attemptUnauthorized();
  // D1's status says "expired" once the object's alarm has ended the lease and flushed.
  if (Date.parse(attempt.expires_at) <= systemClock.now() || attempt.status === "expired") {
    throw new ApiError(
      "token_expired",
      "the attempt's lease has ended, and its token with it; read it with an API key instead",
    );
  }
  return attempt;
}
