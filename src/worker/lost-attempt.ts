/**
 * A dispatch that reached an object holding no attempt. Usually the attempt does not exist, or
 * was retired long after its lease: 401, as for any token that opens nothing. But when D1 knows
 * the attempt, the token is its own, and the object should still hold it (the lease, or the
 * retention time after it, is not over), the object's storage was lost, and calls may be missing
 * from its evidence: that is the harness failing, so the answer is a harness error and the
 * attempt is marked harness_failed in D1, where it can never pass.
 */
import { constantTimeEqual } from "../adapters/crypto.js";
import { databaseOf } from "../adapters/d1/database.js";
import { findAttempt, markAttemptHarnessFailed } from "../adapters/d1/simulations.js";
import { objectStorageLost } from "../core/simulation/status.js";
import { attemptUnauthorized } from "./attempt-access.js";
import { RETENTION_MS } from "./attempt-object.js";
import type { Env } from "./env.js";

export async function lostAttemptAnswer(env: Env, attemptId: string, tokenHash: string): Promise<Response> {
  const db = databaseOf(env.DB);
  const attempt = await findAttempt(db, attemptId);
  if (!attempt || !constantTimeEqual(attempt.token_hash, tokenHash)) throw attemptUnauthorized();
  if (!objectStorageLost(Date.parse(attempt.expires_at), RETENTION_MS, Date.now())) throw attemptUnauthorized();
  if (attempt.status !== "harness_failed") await markAttemptHarnessFailed(db, attemptId);
  const error = {
    code: "harness_error",
    kind: "internal",
    message: "this attempt's stored state is gone (its Durable Object storage was lost); the call was not answered or recorded, and the attempt can no longer pass",
    details: [],
  };
  return Response.json({ error }, { status: 500, headers: { "x-toolproof-outcome": "harness_error" } });
}
