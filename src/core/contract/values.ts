/**
 * Small, allocation-conscious helpers over JSON values used on the call hot path. They live here
 * rather than in ../json.ts because they encode decisions of the contract engine (how a key named
 * "__proto__" is written, how a value is quoted in an error message).
 */
import type { JsonObject, JsonValue } from "../json.js";
import { pointer } from "../json.js";

/**
 * Sets an own property even when the key is "__proto__": a plain assignment would change the
 * object's prototype instead of storing data, silently dropping the value.
 */
export function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/**
 * A deep copy of a JSON value. Hand-written rather than structuredClone because it runs on every
 * call that hands out a container (structuredClone is several times slower for small values) and
 * because it keeps "__proto__" keys as data.
 */
export function copyJson<T extends JsonValue>(value: T): T;
export function copyJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out: JsonValue[] = new Array<JsonValue>(value.length);
    // SAFETY: i < value.length, and JSON arrays have no holes.
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i] as JsonValue);
    return out;
  }
  const out: JsonObject = {};
  // SAFETY: key is one of the object's own keys.
  for (const key of Object.keys(value)) setOwn(out, key, copyJson(value[key] as JsonValue));
  return out;
}

/**
 * The JSON Pointer of `key` inside the value at pointer `at`. Same result as json.ts's pointer(),
 * but without running two regular expressions on keys that need no escaping (nearly all of them):
 * parsing a large definition builds a pointer for every node, and that was most of its time.
 */
export function child(at: string, key: string | number): string {
  if (typeof key === "number") return `${at}/${key}`;
  if (key.indexOf("~") < 0 && key.indexOf("/") < 0) return `${at}/${key}`;
  return `${at}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** A short rendering of a value for error messages: never more than about 80 characters. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return typeof value;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

interface Difference {
  /** JSON Pointer (relative to the compared roots) of the first place the two values differ. */
  path: string;
  expected: JsonValue | undefined;
  actual: JsonValue | undefined;
}

/**
 * The first place (depth first, keys in the expected value's order, then extra keys) where two
 * values are not jsonEqual, or null when they are equal. Used to point an example failure at the
 * exact key rather than at the whole result.
 */
export function firstDifference(expected: JsonValue, actual: JsonValue, tokens: string[] = []): Difference | null {
  if (expected === actual) return null;
  const bothArrays = Array.isArray(expected) && Array.isArray(actual);
  const bothObjects =
    expected !== null &&
    actual !== null &&
    typeof expected === "object" &&
    typeof actual === "object" &&
    !Array.isArray(expected) &&
    !Array.isArray(actual);
  if (bothArrays) {
    // SAFETY: bothArrays checked Array.isArray on both values just above.
    const [e, a] = [expected as JsonValue[], actual as JsonValue[]];
    const n = Math.max(e.length, a.length);
    for (let i = 0; i < n; i++) {
      if (i >= e.length || i >= a.length) return { path: pointer(...tokens, i), expected: e[i], actual: a[i] };
      // SAFETY: i is below both lengths (checked on the line above).
      const diff = firstDifference(e[i] as JsonValue, a[i] as JsonValue, [...tokens, String(i)]);
      if (diff) return diff;
    }
    return null;
  }
  if (bothObjects) {
    // SAFETY: bothObjects established that both are non-null, non-array objects.
    const [e, a] = [expected as JsonObject, actual as JsonObject];
    for (const key of Object.keys(e)) {
      if (!Object.hasOwn(a, key)) return { path: pointer(...tokens, key), expected: e[key], actual: undefined };
      // SAFETY: key is an own key of both objects (checked on the line above).
      const diff = firstDifference(e[key] as JsonValue, a[key] as JsonValue, [...tokens, key]);
      if (diff) return diff;
    }
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(e, key)) return { path: pointer(...tokens, key), expected: undefined, actual: a[key] };
    }
    return null;
  }
  return { path: pointer(...tokens), expected, actual };
}
