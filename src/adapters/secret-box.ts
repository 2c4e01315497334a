/**
 * Sealing secrets at rest (connection API keys and header values) with AES-256-GCM through
 * WebCrypto, under the deployment secret TOOLPROOF_SECRET. The AES key is derived from the secret
 * with HKDF (its own purpose label), so the deployment secret itself never keys a cipher and a
 * later purpose can derive its own key. Each sealed value is bound to its place (tenant and
 * connection name) as additional authenticated data: copied into another row, it fails to open.
 * A database copy alone therefore reveals no key: opening needs the Worker's secret.
 */
import { base64url } from "./crypto.js";

/** The format of a sealed value: "v1." + base64url(12-byte IV ‖ ciphertext ‖ 16-byte tag). */
const VERSION = "v1.";
const IV_BYTES = 12;
const MIN_SECRET_BYTES = 32;
const PURPOSE = new TextEncoder().encode("toolproof/secret-box/v1");

type SecretKeyResult = { ok: true; key: CryptoKey } | { ok: false; message: string };

const HOW_TO_SET =
  "set the deployment secret TOOLPROOF_SECRET (32 random bytes as base64url): `wrangler secret put TOOLPROOF_SECRET` for a deployed Worker (for example with the output of `node -e \"console.log(require('crypto').randomBytes(32).toString('base64url'))\"`); `npm start` makes one in its state folder";

const keys = new Map<string, Promise<CryptoKey>>();

/** The sealing key for a deployment secret, or why there is none (missing or malformed), in words. */
export async function sealingKey(secret: string | undefined): Promise<SecretKeyResult> {
  if (secret === undefined || secret.trim() === "")
    return { ok: false, message: `the deployment secret TOOLPROOF_SECRET is not configured: ${HOW_TO_SET}` };
  const bytes = fromBase64url(secret.trim());
  if (!bytes || bytes.length < MIN_SECRET_BYTES) {
    return {
      ok: false,
      message: `the deployment secret TOOLPROOF_SECRET is not at least ${MIN_SECRET_BYTES} bytes of base64url: ${HOW_TO_SET}`,
    };
  }
  let key = keys.get(secret);
  if (!key) {
    key = deriveKey(bytes);
    keys.set(secret, key);
  }
  return { ok: true, key: await key };
}

async function deriveKey(secret: Uint8Array): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: PURPOSE },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** Encrypts `plaintext` for the place `context` names (see connectionContext). */
export async function seal(key: CryptoKey, plaintext: string, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(context) },
      key,
      new TextEncoder().encode(plaintext),
    ),
  );
  const out = new Uint8Array(IV_BYTES + ciphertext.length);
  out.set(iv, 0);
  out.set(ciphertext, IV_BYTES);
  return VERSION + base64url(out);
}

/** The plaintext, or undefined when the value was sealed under another secret, for another place, or altered. */
export async function open(key: CryptoKey, sealed: string, context: string): Promise<string | undefined> {
  if (!sealed.startsWith(VERSION)) return undefined;
  const bytes = fromBase64url(sealed.slice(VERSION.length));
  if (!bytes || bytes.length <= IV_BYTES) return undefined;
  try {
    const plaintext = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: new TextEncoder().encode(context) },
      key,
      bytes.subarray(IV_BYTES),
    );
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(plaintext);
  } catch {
    return undefined;
  }
}

/** The plaintext parsed as JSON, or undefined when it does not open or is not JSON. */
export async function openJson(key: CryptoKey, sealed: string, context: string): Promise<unknown> {
  const text = await open(key, sealed, context);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The additional data binding a connection's sealed secrets to its tenant and name. */
export function connectionContext(tenantId: string, name: string): string {
  // JSON keeps the two parts apart whatever characters they hold.
  return JSON.stringify(["connection", tenantId, name]);
}

function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
