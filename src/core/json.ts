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
 * equal), and values of different JSON types are never equal (1 and "1" differ). Iterative, so
 * no nesting depth can overflow the stack.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!sameShape(a, b)) return false;
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const right = pending.pop();
    const left = pending.pop();
    if (left === right) continue;
    if (!sameShape(left, right)) return false;
    if (Array.isArray(left)) {
      // SAFETY: sameShape answered true, so right is an array of the same length.
      const other = right as unknown[];
      for (let i = 0; i < left.length; i++) pending.push(left[i], other[i]);
      continue;
    }
    // SAFETY: sameShape answered true for two non-array objects, read as records.
    const l = left as Record<string, unknown>;
    const r = right as Record<string, unknown>;
    const keys = Object.keys(l);
    if (keys.length !== Object.keys(r).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(r, key)) return false;
      pending.push(l[key], r[key]);
    }
  }
  return true;
}

/** Could `a` and `b` still be equal: both containers of the same kind (and length), or equal scalars? */
function sameShape(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length;
  return !Array.isArray(b);
}

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no insignificant whitespace.
 * Two documents that are jsonEqual serialize to the same string, which is what makes
 * contract hashes stable across runtimes. Iterative, so no nesting depth can overflow the stack.
 */
export function canonicalJson(value: unknown): string {
  let out = "";
  // Each entry is a value still to write, a literal piece of text (a comma, a key, a bracket), or
  // the end of a container: the containers open on the current path, so a value that contains
  // itself is refused instead of being written forever.
  type Work = { text: string } | { value: unknown } | { close: object };
  const work: Work[] = [{ value }];
  const open = new Set<object>();
  while (work.length > 0) {
    // SAFETY: the stack is not empty (checked by the loop condition).
    const next = work.pop() as Work;
    if ("text" in next) {
      out += next.text;
      continue;
    }
    if ("close" in next) {
      open.delete(next.close);
      continue;
    }
    const item = next.value;
    if (item === null || typeof item !== "object") {
      const text = JSON.stringify(item);
      if (text === undefined) throw new TypeError(`not a JSON value: ${typeof item}`);
      out += text;
      continue;
    }
    if (open.has(item)) throw new TypeError("not a JSON value: circular structure");
    open.add(item);
    const parts: Work[] = [];
    if (Array.isArray(item)) {
      parts.push({ text: "[" });
      item.forEach((element: unknown, i) => {
        if (i > 0) parts.push({ text: "," });
        parts.push({ value: element });
      });
      parts.push({ text: "]" });
    } else {
      // SAFETY: a non-null, non-array object, read as a record of its own keys.
      const record = item as Record<string, unknown>;
      parts.push({ text: "{" });
      Object.keys(record)
        .sort()
        .forEach((key, i) => {
          parts.push({ text: `${i > 0 ? "," : ""}${JSON.stringify(key)}:` }, { value: record[key] });
        });
      parts.push({ text: "}" });
    }
    parts.push({ close: item });
    for (let i = parts.length - 1; i >= 0; i--) work.push(parts[i] as Work);
  }
  return out;
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
