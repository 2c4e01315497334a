/**
 * The capability token of an attempt an external agent works on. A run keeps only token hashes
 * (start-run.ts), yet the job must carry the token itself; rather than store tokens, an external
 * run's tokens are derived: HMAC-SHA256 of the attempt id under the deployment secret, so the queue
 * consumer can recompute the token when it sends the job, and no copy of it rests anywhere.
 */
import { base64url } from "../../../adapters/crypto.js";
import { ATTEMPT_TOKEN_PREFIX } from "../../attempts/access.js";

const PURPOSE = "toolproof/external-attempt-token/v1";

export async function externalAttemptToken(deploymentSecret: string, attemptId: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(deploymentSecret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`${PURPOSE}\u0000${attemptId}`)));
  return `${ATTEMPT_TOKEN_PREFIX}${base64url(mac)}`;
}
