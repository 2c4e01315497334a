/**
 * Webhook signatures through WebCrypto, in the two formats a webhook may use:
 *
 * - Standard Webhooks (https://www.standardwebhooks.com): the secret is `whsec_<base64 key>`, the
 *   signed content `<webhook-id>.<webhook-timestamp>.<raw body>`, the header `webhook-signature`
 *   a space-separated list of `v1,<base64 HMAC-SHA256>`; any one entry may match.
 * - GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`, keyed with the
 *   secret's text as it was pasted into GitHub (the whole string, prefix included).
 *
 * Verification is crypto.subtle.verify, which compares in constant time; nothing here returns
 * early on the first differing byte.
 */

const encoder = new TextEncoder();
/** Standard Webhooks' tolerance for webhook-timestamp, either way. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = "whsec_";

/**
 * A Standard Webhooks secret as every library reads it alike: `whsec_` and the base64 of 24 to 64
 * random bytes, written as an encoder writes it (padded with `=` to a multiple of 4 characters, no
 * bits past the last byte). Libraries that want padding refuse anything else, and the lenient ones
 * read it differently; this is the rule PUT /api/agent-secrets checks, and the secrets the signer
 * decodes. Spelled out by length: 8 to 21 groups of four, then nothing, `xx==` (one more byte) or,
 * below 21 groups, `xxx=` (two more).
 */
export const STANDARD_SECRET =
  /^whsec_(?:(?:[A-Za-z0-9+/]{4}){8,21}(?:[A-Za-z0-9+/][AQgw]==)?|(?:[A-Za-z0-9+/]{4}){8,20}[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)$/;

/** A new secret in the Standard Webhooks form, from `randomBase64url` bytes of randomness. */
export function webhookSecret(randomBase64url: string): string {
  const base64 = randomBase64url.replace(/-/g, "+").replace(/_/g, "/");
  return SECRET_PREFIX + base64 + "=".repeat((4 - (base64.length % 4)) % 4);
}

/** The HMAC key bytes each format derives from the secret. */
function keyBytes(format: "standard" | "github", secret: string): Uint8Array {
  if (format === "github") return encoder.encode(secret);
  const key = STANDARD_SECRET.test(secret) ? fromBase64(secret.slice(SECRET_PREFIX.length)) : undefined;
  return key ?? laxKeyBytes(secret);
}

/**
 * The key of a secret outside STANDARD_SECRET, as it always was. No secret toolproof makes is one,
 * and PUT /api/agent-secrets refuses them now, but until it checked the length and the padding it
 * stored some (`whsec_` and 32 to 88 base64 characters, up to two `=`); a job is still signed with
 * the key such a secret always gave, so an agent that verifies it today keeps verifying:
 * - padded base64 of more than 64 bytes, or with bits past the last byte: its bytes, the bits
 *   dropped, as the libraries that take it read it.
 * - base64 without its padding: decoded as if padded (atob's forgiving decode; Node's Buffer derives
 *   the same bytes); libraries that want padding refuse the secret.
 * - text that is not base64 at all (a length one past a multiple of 4, `=` in the middle): the whole
 *   text, `whsec_` included, is the key, which only a library's raw format (the secret's text as
 *   its bytes) derives.
 * PUT such a secret again, in the form above, to be read alike everywhere.
 */
function laxKeyBytes(secret: string): Uint8Array {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return fromBase64(encoded) ?? encoder.encode(secret);
}

async function hmacKey(format: "standard" | "github", secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", keyBytes(format, secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

function standardContent(id: string, timestamp: string, body: Uint8Array): Uint8Array {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix, 0);
  content.set(body, prefix.length);
  return content;
}

/** The `webhook-signature` header value for a message (one v1 entry). */
export async function signStandard(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await hmacKey("standard", secret);
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, standardContent(id, String(timestamp), encoder.encode(body))),
  );
  return `v1,${toBase64(mac)}`;
}

/** Whether any v1 entry of `header` is the HMAC of `id.timestamp.body` under the secret. */
export async function verifyStandard(
  secret: string,
  id: string,
  timestamp: string,
  body: Uint8Array,
  header: string,
): Promise<boolean> {
  const key = await hmacKey("standard", secret);
  const content = standardContent(id, timestamp, body);
  let matched = false;
  // Every entry is checked, matched or not, so the time taken does not say which one matched.
  for (const entry of header.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const mac = fromBase64(entry.slice(comma + 1));
    if (!mac) continue;
    if (await crypto.subtle.verify("HMAC", key, mac, content)) matched = true;
  }
  return matched;
}

/** Whether `header` (`sha256=<hex>`) is the HMAC of the body under the secret. */
export async function verifyGithub(secret: string, body: Uint8Array, header: string): Promise<boolean> {
  const key = await hmacKey("github", secret);
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  // A malformed header is still verified (against zeros), so it costs what a wrong one costs.
  const mac = match?.[1] ? fromHex(match[1]) : new Uint8Array(32);
  const valid = await crypto.subtle.verify("HMAC", key, mac, body);
  return valid && match !== null;
}

/** Whether a webhook-timestamp (seconds) is within the tolerance of `nowMs`, past or future. */
export function timestampFresh(timestamp: string, nowMs: number): boolean {
  if (!/^[0-9]{1,12}$/.test(timestamp)) return false;
  return Math.abs(nowMs / 1000 - Number(timestamp)) <= TIMESTAMP_TOLERANCE_SECONDS;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length === 0) return undefined;
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
