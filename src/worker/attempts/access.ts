/**
 * Reaching an attempt: its Durable Object stub and the capability token that opens it.
 * A token is `tpa_` + 32 random bytes; only its SHA-256 is stored (in D1 and in the object).
 * Anything wrong with a token (missing, malformed, another attempt's, an attempt that does not
 * exist) gets the same 401, so the answer never tells which attempts exist.
 */
import type { Context } from "hono";
import { randomSecret, sha256Hex } from "../../adapters/crypto.js";
import { KEY_PREFIX } from "../../adapters/d1/api-keys.js";
import type { AttemptRpc } from "./replies.js";
import type { AppEnv, Env } from "../platform/env.js";
import { ApiError } from "../http/errors.js";
import { bearerToken } from "../http/auth.js";
import { ATTEMPT_TOKEN_PREFIX } from "../http/attempt-token-prefix.js";

export { ATTEMPT_TOKEN_PREFIX };

/** Attempt ids are newId("att"): the prefix and 16 random bytes in base64url. */
const ATTEMPT_ID = /^att_[A-Za-z0-9_-]{22}$/;

export function newAttemptToken(): string {
  return `${ATTEMPT_TOKEN_PREFIX}${randomSecret(32)}`;
}

export function isAttemptId(id: string): boolean {
  return ATTEMPT_ID.test(id);
}

export function attemptStub(env: Env, attemptId: string): AttemptRpc {
  // SAFETY: wrangler.toml binds ATTEMPTS to AttemptObject, which implements AttemptMethods; a
  // stub answers each of those methods with a promise, which is what AttemptRpc declares.
  return env.ATTEMPTS.get(env.ATTEMPTS.idFromName(attemptId)) as unknown as AttemptRpc;
}

/** The SHA-256 of the request's capability token, or a 401 before anything is contacted. */
export function capabilityTokenHash(c: Context<AppEnv>, attemptId: string): string {
  return requestTokenHash(c.req.raw, attemptId);
}

/** capabilityTokenHash for a plain Request (the dispatch path runs without a Hono context). */
export function requestTokenHash(request: Request, attemptId: string): string {
  const token = bearerToken(request.headers.get("authorization") ?? undefined);
  if (!token) throw attemptUnauthorized("missing capability token: send Authorization: Bearer <attempt token>");
  if (token.startsWith(KEY_PREFIX)) {
    throw attemptUnauthorized(
      `this route is opened by the attempt's capability token (${ATTEMPT_TOKEN_PREFIX}…, from the simulation's 201 answer), not by an API key (${KEY_PREFIX}…)`,
    );
  }
  if (!token.startsWith(ATTEMPT_TOKEN_PREFIX) || !isAttemptId(attemptId)) throw attemptUnauthorized();
  return sha256Hex(token);
}

export function attemptUnauthorized(message = "this token does not grant access to this attempt"): ApiError {
  return new ApiError("unauthorized", message);
}
