/**
 * The Worker's half of a real-tools call. The attempt object validates the arguments and hands
 * the call out as a forward without recording anything; the Worker sends it to the real handler
 * and hands the answer back to the object, which checks it against the output schema and records
 * it. The object is never held while an upstream answers: a Durable Object serializes its events,
 * and a slow upstream awaited inside it would delay every other call of the attempt (and its
 * evidence reads and completion) for as long as it takes. Out here, other calls go on meanwhile;
 * the cost is a second RPC per real call, small beside any network round trip.
 */
import { attemptStub } from "../access.js";
import type { DispatchReply, RecordedReply } from "../replies.js";
import type { Env } from "../../platform/env.js";
import { sendUpstream } from "./send.js";

/**
 * The reply as it stands, or, for a forward, the recorded answer of the real handler. The answer
 * goes back through a new stub, not the one the forward came by: a stub breaks for good when its
 * object is reset (a deploy, an abort) while the call is out, and the real answer would be lost
 * with it; a new stub reaches the object as it is now, loaded again from its storage if need be.
 */
export async function settleForward(env: Env, tokenHash: string, reply: DispatchReply): Promise<RecordedReply> {
  if (reply.kind !== "forward") return reply;
  const { forward } = reply;
  const answer = await sendUpstream(env, forward.tenant_id, forward.binding, forward.request.arguments);
  return attemptStub(env, forward.attempt_id).recordReal(tokenHash, forward.request, answer);
}
