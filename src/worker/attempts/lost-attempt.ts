/**
 * An attempt route that reached an object holding no attempt. Usually the attempt does not exist,
 * or was retired long after its lease: 401, as for any token that opens nothing. But when D1
 * knows the attempt, the token is its own, and the object should still hold it (the lease, or the
 * retention time after it, is not over), the object's storage was lost, and calls may be missing
 * from its evidence: that is the harness failing, so the answer is a harness error and the
 * attempt is marked harness_failed in D1, where it can never pass. Every path that opens an
 * attempt with its token (dispatch, complete, MCP) answers this same way.
 */
import { constantTimeEqual } from "../../adapters/crypto.js";
import { databaseOf } from "../../adapters/d1/database.js";
import { findAttempt, markAttemptHarnessFailed } from "../../adapters/d1/simulations.js";
import type { Clock } from "../../core/ports.js";
import { objectStorageLost } from "../../core/simulation/status.js";
import { attemptUnauthorized } from "./access.js";
import { RETENTION_MS } from "./lifetimes.js";
import { harnessError } from "./reply-errors.js";
import type { Env } from "../platform/env.js";
import type { ApiError } from "../http/errors.js";

const LOST_STORAGE_MESSAGE =
  "this attempt's stored state is gone (its Durable Object storage was lost); the call was not answered or recorded, and the attempt can no longer pass";

/** The error for a `missing` reply: 401 unauthorized, or the harness error of lost storage (marking D1). */
export async function lostAttemptError(
  env: Env,
  attemptId: string,
  tokenHash: string,
  clock: Clock,
): Promise<ApiError> {
  const db = databaseOf(env.DB);
  const attempt = await findAttempt(db, attemptId);
  if (!attempt || !constantTimeEqual(attempt.token_hash, tokenHash)) return attemptUnauthorized();
  if (!objectStorageLost(Date.parse(attempt.expires_at), RETENTION_MS, clock.now())) return attemptUnauthorized();
  if (attempt.status !== "harness_failed") await markAttemptHarnessFailed(db, attemptId);
  return harnessError("internal", LOST_STORAGE_MESSAGE);
}

/** The outcome header a harness error carries on every HTTP path, recorded or not. */
export function errorHeaders(error: ApiError): Record<string, string> | undefined {
  return error.code === "harness_error" ? { "x-toolproof-outcome": "harness_error" } : undefined;
}
