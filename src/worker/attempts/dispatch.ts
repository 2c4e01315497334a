/**
 * POST /api/attempts/:id/dispatch, the hot path agents call: one tool call on one attempt.
 *
 * The body crosses to the attempt object as text and is parsed there; the token is hashed here
 * and compared by the object in the same RPC; the rendered result comes back as the response body
 * without being parsed or serialized again. The entry point calls this before the router (see
 * index.ts), so a call pays for no middleware it does not use; the Hono route calls it too.
 */
import { parseDelayScale, waitSimulatedDelay } from "../../core/simulation/delay.js";
import { systemClock } from "../../core/ports.js";
import { attemptStub, requestTokenHash } from "./access.js";
import { refusalError } from "./reply-errors.js";
import type { Env } from "../platform/env.js";
import { errorHeaders, lostAttemptError } from "./lost-attempt.js";
import { readRequestJsonText } from "../http/json-body.js";
import { settleForward } from "./real/forward.js";
import { httpAnswer } from "./dispatch-answer.js";

/** Arguments of one tool call: far above any real call, far below what could hurt the object. */
export const DISPATCH_BODY_LIMIT = 256 * 1024;

const DISPATCH_PATH = /^\/api\/attempts\/([^/]+)\/dispatch$/;

/** The attempt id when the request is a dispatch (POST to the dispatch path), else undefined. */
export function dispatchTarget(request: Request): string | undefined {
  if (request.method !== "POST") return undefined;
  const match = DISPATCH_PATH.exec(pathOf(request.url));
  if (match?.[1] === undefined) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined; // not an id at all: the router answers 404 or 401 as for any other path
  }
}

/**
 * The path of a request URL, read from the string as the router reads it. new URL() would throw
 * on URLs the runtime does hand over (a request with two Host headers makes one), and a throw here
 * would escape every error handler.
 */
function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return url.slice(start, query < 0 ? undefined : query);
}

/** Answers one dispatch; client mistakes are thrown as ApiError. */
export async function dispatchCall(request: Request, env: Env, attemptId: string): Promise<Response> {
  const tokenHash = requestTokenHash(request, attemptId);
  const body = await readRequestJsonText(request, DISPATCH_BODY_LIMIT);
  const stub = attemptStub(env, attemptId);
  const reply = await settleForward(env, tokenHash, await stub.dispatch(tokenHash, body));
  switch (reply.kind) {
    case "answer":
      await waitSimulatedDelay(reply.answer.delay_ms, parseDelayScale(env.DELAY_SCALE), systemClock);
      return httpAnswer(reply.answer);
    case "missing": {
      const error = await lostAttemptError(env, attemptId, tokenHash, systemClock);
      return error.toResponse(errorHeaders(error));
    }
    default:
      throw refusalError(reply);
  }
}
