/**
 * Hashing and secrets shared by the Worker, the admin CLI and tests. node:crypto is built into
 * workerd (Node compatibility is on by default from the compatibility date this project uses) and
 * hashes synchronously: every dispatch hashes its token, and WebCrypto's digest costs a promise
 * and a trip through the event loop for 40 bytes.
 */
import { createHash } from "node:crypto";

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function randomSecret(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A unique id with a readable prefix, e.g. "tool_Vb3…"; 16 random bytes make collisions irrelevant. */
export function newId(prefix: string): string {
  return `${prefix}_${randomSecret(16)}`;
}

/**
 * Compares two strings without an early exit, so the time taken does not reveal how much of a
 * secret matched. Length is not secret here (hashes have a fixed length).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  // Over UTF-16 code units, with no encoding step: this runs on every dispatch (token hashes).
  let diff = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) diff |= (i < a.length ? a.charCodeAt(i) : 0) ^ (i < b.length ? b.charCodeAt(i) : 0);
  return diff === 0;
}
