/**
 * Blanking secrets out of text an endpoint sent back: a model connection's key and header values
 * in its error messages, a real tool's credentials in its answers. An endpoint that echoes what it
 * received rarely echoes it verbatim, so every common spelling of each secret is blanked: as is,
 * percent-encoded (as encodeURIComponent, RFC 3986 strictly, and as an HTML form), JSON-escaped, hex, and base64 in both alphabets,
 * with and without padding, also where the secret sits inside a longer base64 text at any byte
 * offset (`Bearer sk-…` base64-encoded as a whole). Matching ignores case, which catches an
 * upper- or lower-cased echo; blanking a base64 look-alike that differs only in case costs nothing.
 */
import type { JsonValue } from "./json.js";

export const REDACTED = "[redacted]";

/** Secrets shorter than this are not blanked: "ok" or "1234" would blank ordinary text. */
const MIN_SECRET_LENGTH = 4;
/** Base64 inside a longer text matches only on the characters the secret alone decides; fewer than this would blank ordinary text. */
const MIN_BASE64_CORE = 8;

/** Every spelling of `secret` this module blanks, longest first, lower-cased; empty for a secret too short to blank. */
export function secretSpellings(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  const bytes = new TextEncoder().encode(secret);
  const spellings = new Set<string>([
    secret,
    percentEncoded(secret),
    // RFC 3986 strict (every byte but A-Z a-z 0-9 - . _ ~), and HTML form encoding (space as +, ~ encoded, * kept).
    percentEncodedExcept(bytes, /[A-Za-z0-9\-._~]/),
    percentEncodedExcept(bytes, /[A-Za-z0-9\-._*]/).replaceAll("%20", "+"),
    JSON.stringify(secret).slice(1, -1),
    hex(bytes),
  ]);
  for (const alphabet of ["std", "url"] as const) {
    const whole = base64(bytes, alphabet);
    spellings.add(whole);
    spellings.add(whole.replace(/=+$/, ""));
    // At byte offset 0, 1 or 2 of a longer base64 text: the characters whose six bits all come from the secret.
    for (const offset of [0, 1, 2]) {
      const shifted = base64(new Uint8Array([...new Uint8Array(offset), ...bytes]), alphabet);
      const first = Math.ceil((8 * offset) / 6);
      const end = Math.floor((8 * (offset + bytes.length)) / 6);
      const core = shifted.slice(first, end);
      if (core.length >= MIN_BASE64_CORE) spellings.add(core);
    }
  }
  return [...spellings].map((spelling) => spelling.toLowerCase()).sort((a, b) => b.length - a.length);
}

/** The spellings of every secret, longest first: the one list a caller builds once per set of secrets. */
export function redactionList(secrets: Iterable<string>): string[] {
  const all = new Set<string>();
  for (const secret of secrets) for (const spelling of secretSpellings(secret)) all.add(spelling);
  return [...all].sort((a, b) => b.length - a.length);
}

/** `text` with every spelling in `spellings` (from redactionList) replaced by [redacted], whatever its case. */
export function redactText(text: string, spellings: readonly string[]): string {
  if (spellings.length === 0) return text;
  let result = text;
  for (const spelling of spellings) {
    let lower = result.toLowerCase();
    // toLowerCase keeps UTF-16 lengths for all but a few characters (İ); there the text is compared as is.
    if (lower.length !== result.length) lower = result;
    let at = lower.indexOf(spelling);
    if (at < 0) continue;
    let out = "";
    let from = 0;
    while (at >= 0) {
      out += result.slice(from, at) + REDACTED;
      from = at + spelling.length;
      at = lower.indexOf(spelling, from);
    }
    result = out + result.slice(from);
  }
  return result;
}

/** A JSON value with redactText applied to every string in it, object keys included; the same value when nothing changed. */
export function redactJson(value: JsonValue, spellings: readonly string[]): JsonValue {
  if (spellings.length === 0) return value;
  if (typeof value === "string") return redactText(value, spellings);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, spellings));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, redactText(key, spellings), {
      value: redactJson(item, spellings),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function percentEncoded(secret: string): string {
  try {
    return encodeURIComponent(secret);
  } catch {
    // A lone surrogate has no UTF-8 form; such a secret is never sent percent-encoded either.
    return secret;
  }
}

function percentEncodedExcept(bytes: Uint8Array, kept: RegExp): string {
  let out = "";
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    out += byte < 128 && kept.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

const BASE64 = {
  std: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
  url: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
};

/** RFC 4648 base64 with padding (core has no btoa; test/core/secret-redaction.test.ts compares it with Node's). */
function base64(bytes: Uint8Array, alphabet: "std" | "url"): string {
  const digits = BASE64[alphabet];
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const count = Math.min(3, bytes.length - i) + 1;
    for (let j = 0; j < 4; j++) out += j < count ? digits[(chunk >> (18 - 6 * j)) & 63] : "=";
  }
  return out;
}
