/**
 * Refused deliveries to the public webhook route, throttled per client address with the Workers
 * Rate Limiting binding (wrangler.toml [[ratelimits]] WEBHOOK_REFUSALS). Only refusals count: a
 * delivery that verifies is never held up, so a sender's real traffic (GitHub's shared addresses
 * included) cannot be starved by its own or anyone's bad deliveries. Past the budget a refusal
 * answers 429 and is not recorded: the row per refusal in webhook_deliveries is what an
 * unthrottled flood of unknown ids or forged signatures would grow without bound.
 *
 * The binding counts per Cloudflare location and settles eventually, so the budget is approximate
 * by design (a throttle against floods, not an exact quota); a limiter that fails lets the
 * refusal through rather than refusing a sender for toolproof's own fault.
 */
import type { Env } from "../platform/env.js";
import { ApiError } from "../http/errors.js";

/** wrangler.toml's period for WEBHOOK_REFUSALS, in seconds (its limit: 30 refusals per address). */
const REFUSAL_PERIOD_SECONDS = 60;

/** Counts one refusal against the client's budget; the 429 to answer once it is spent, else null. */
export async function refusalThrottled(env: Env, headers: Headers): Promise<Response | null> {
  const key = headers.get("cf-connecting-ip") ?? "unknown";
  let allowed = true;
  try {
    allowed = (await env.WEBHOOK_REFUSALS.limit({ key })).success;
  } catch (error) {
    console.error("webhook refusal throttle: the rate limiter failed; letting the refusal through", error);
  }
  if (allowed) return null;
  return new ApiError(
    "rate_limited",
    `too many refused deliveries from this address; try again in ${REFUSAL_PERIOD_SECONDS} seconds`,
    { retry_after_seconds: REFUSAL_PERIOD_SECONDS },
  ).toResponse({
    "retry-after": String(REFUSAL_PERIOD_SECONDS),
  });
}
