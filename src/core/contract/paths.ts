/**
 * Dot-separated paths into JSON values, as used by conditions, references and set_state keys.
 * Paths are split once (when a definition is compiled) so the hot path only walks arrays of
 * segments.
 */
import type { JsonObject, JsonValue } from "../json.js";
import { pointer } from "../json.js";
import { setOwn } from "./values.js";

export type Segments = readonly string[];

/**
 * Segments that could reach Object.prototype machinery. A definition naming them is refused at
 * save time, even though resolution below only ever reads own properties.
 */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "prototype", "constructor"]);

const INDEX = /^[0-9]+$/;

/** "" is the whole value (no segments); otherwise split on every dot. */
export function splitPath(path: string): string[] {
  return path === "" ? [] : path.split(".");
}

/**
 * Why a path may not be saved, or null when it is fine. `allowEmpty` is false for set_state keys,
 * which must name a place inside the state (the state as a whole stays an object).
 */
export function pathProblem(path: string, allowEmpty: boolean): string | null {
  if (path === "") return allowEmpty ? null : "expected a non-empty dot-separated path";
  const segments = path.split(".");
  for (const segment of segments) {
    if (segment === "") return `expected dot-separated keys without empty segments; got "${path}"`;
    if (FORBIDDEN_SEGMENTS.has(segment)) {
      return `path segment "${segment}" is not allowed (__proto__, prototype and constructor are reserved)`;
    }
  }
  return null;
}

/** The JSON Pointer for a split path, used to tell the caller which argument was wrong. */
export function segmentsPointer(segments: Segments): string {
  return pointer(...segments);
}

/**
 * The value at `segments` inside `root`, or undefined when the path does not resolve. Only own
 * properties are read, so "toString" or "length" never resolve to something the JSON did not
 * contain. An all-digit segment indexes an array; any other segment on an array does not resolve.
 */
export function resolvePath(root: unknown, segments: Segments): JsonValue | undefined {
  let current: unknown = root;
  for (let i = 0; i < segments.length; i++) {
    // SAFETY: i < segments.length.
    const segment = segments[i] as string;
    if (current === null || typeof current !== "object") return undefined;
    if (Array.isArray(current)) {
      if (!INDEX.test(segment)) return undefined;
      const index = Number(segment);
      if (index >= current.length) return undefined;
      current = current[index];
    } else {
      if (!Object.hasOwn(current, segment)) return undefined;
      // SAFETY: current is a non-null, non-array object (checked above); JSON objects are records.
      current = (current as Record<string, unknown>)[segment];
    }
  }
  // SAFETY: every value reachable from a JSON root is a JSON value; undefined only arises above.
  return current as JsonValue | undefined;
}

function isContainer(value: JsonValue | undefined): value is JsonObject | JsonValue[] {
  return value !== null && typeof value === "object";
}

/**
 * Writes `value` at `segments` inside `root`, mutating `root` (the caller passes its own copy).
 * Missing intermediates, and intermediates holding null or a scalar, become new objects. Arrays
 * are addressed by index: an existing index is replaced, the index equal to the length appends,
 * anything else would leave a hole or invent a key on an array, so it is refused.
 * Returns null on success, else a message saying why the path cannot be written.
 */
export function setPath(root: JsonObject, segments: Segments, value: JsonValue): string | null {
  if (segments.length === 0) return "the whole state cannot be replaced; name a key";
  let container: JsonObject | JsonValue[] = root;
  const last = segments.length - 1;
  for (let i = 0; i <= last; i++) {
    // SAFETY: i <= last < segments.length.
    const segment = segments[i] as string;
    const isLast = i === last;
    if (Array.isArray(container)) {
      const index = INDEX.test(segment) ? Number(segment) : Number.NaN;
      if (!(index <= container.length)) {
        return `cannot write "${segments.join(".")}": the state holds an array of length ${container.length} at "${segments
          .slice(0, i)
          .join(".")}", which "${segment}" does not index (use an existing index or the length to append)`;
      }
      if (isLast) {
        container[index] = value;
        return null;
      }
      let next: JsonValue | undefined = container[index];
      if (!isContainer(next)) {
        next = {};
        container[index] = next;
      }
      container = next;
    } else {
      if (isLast) {
        setOwn(container, segment, value);
        return null;
      }
      let next: JsonValue | undefined = Object.hasOwn(container, segment) ? container[segment] : undefined;
      if (!isContainer(next)) {
        next = {};
        setOwn(container, segment, next);
      }
      container = next;
    }
  }
  return null;
}
