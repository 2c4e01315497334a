/**
 * Reaching an attempt: its Durable Object stub and the capability token that opens it.
 * A token is `tpa_` + 32 random bytes; only its SHA-256 is stored (in D1 and in the object).
 * Anything wrong with a token (missing, malformed, another attempt's, an attempt that does not
 * exist) gets the same 401, so the answer never tells which attempts exist.
 */
import type { Context } from "hono";
import { constantTimeEqual, randomSecret, sha256Hex } from "../../adapters/crypto.js";
import { KEY_PREFIX } from "../../adapters/d1/api-keys.js";
import { findAttempt } from "../../adapters/d1/simulations.js";
import type { AttemptRpc } from "./replies.js";
import type { AppEnv, Env } from "../platform/env.js";
import { ApiError, type ErrorCode } from "../http/errors.js";
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

/**
 * The 401 for a token that is not the attempt's, or for an attempt D1 does not know; null when
 * it is the attempt's own. Routes that leave the token to the attempt object ask this only when
 * they must answer before reaching it.
 */
export async function tokenRefusal(c: Context<AppEnv>, attemptId: string, tokenHash: string): Promise<ApiError | null> {
  const attempt = await findAttempt(c.var.db, attemptId);
  return !attempt || !constantTimeEqual(attempt.token_hash, tokenHash) ? attemptUnauthorized() : null;
}

/** The refusals that come from what a body says, not from who sent it. */
const BODY_PROBLEMS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "invalid_request",
  "malformed_json",
  "invalid_encoding",
  "payload_too_large",
  "unsupported_media_type",
]);

/**
 * Reads and checks a body with `read`, the token checked first where it matters: a body `read`
 * refuses is refused only once the token is known to be the attempt's, so a caller without it is
 * answered 401, as for a good body, and learns nothing from the body's checks. A good body's token
 * is left to the attempt object (or the run), which checks it with the work, so the common path
 * reads nothing more.
 */
export async function bodyAfterToken<T>(
  c: Context<AppEnv>,
  attemptId: string,
  tokenHash: string,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && BODY_PROBLEMS.has(error.code))
      throw (await tokenRefusal(c, attemptId, tokenHash)) ?? error;
    throw error;
  }
}
