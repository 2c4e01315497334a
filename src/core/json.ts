/**
 * JSON values as they travel through toolproof, and the few operations on them that the
 * contract engine, policy checks and hashes all agree on.
 */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A problem found in a document, located by a JSON Pointer (RFC 6901) into that document. */
export interface Problem {
  path: string;
  message: string;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Deep JSON equality: object key order is ignored, numbers compare by value (so 1 and 1.0 are
 * equal), and values of different JSON types are never equal (1 and "1" differ).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || typeof a !== "object") return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(right, key)) return false;
    if (!jsonEqual(left[key], right[key])) return false;
  }
  return true;
}

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no insignificant whitespace.
 * Two documents that are jsonEqual serialize to the same string, which is what makes
 * contract hashes stable across runtimes.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`not a JSON value: ${typeof value}`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

/** A structural copy of a JSON value (no prototype tricks survive it). */
export function cloneJson<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}

/** Escapes one JSON Pointer reference token (RFC 6901: "~" as "~0", "/" as "~1"). */
export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Joins reference tokens into a JSON Pointer; no tokens gives "" (the whole document). */
export function pointer(...tokens: Array<string | number>): string {
  return tokens.map((t) => `/${pointerToken(t)}`).join("");
}
