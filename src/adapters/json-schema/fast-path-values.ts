/**
 * How the fast path (fast-path.ts) reads instance values: the same JSON type a value has for
 * @cfworker/json-schema, its members read the way cfworker reads them, and the check that a
 * value is JSON all the way down. Values arrive as `unknown` (the SchemaValidator port accepts
 * anything), so nothing here assumes the value came from JSON.parse.
 */
import { jsonEqual } from "../../core/json.js";
import type { PatternMatcher } from "./pattern-engine.js";

/**
 * A value's JSON type as a small number, so a schema's allowed types fit in a bit mask. Plain
 * constants, not an enum: nothing to compile away, and every bundler reads them the same.
 */
type Kind = 0 | 1 | 2 | 3 | 4 | 5 | 6;
/** undefined, a function, a symbol or a bigint: cfworker throws on these. */
export const KIND_NOT_JSON = 0;
export const KIND_NULL = 1;
export const KIND_BOOLEAN = 2;
export const KIND_NUMBER = 3;
export const KIND_STRING = 4;
export const KIND_ARRAY = 5;
export const KIND_OBJECT = 6;

/** The JSON type cfworker gives a value (its `instanceType`), or KIND_NOT_JSON where it would throw. */
export function kindOf(value: unknown): Kind {
  switch (typeof value) {
    case "string":
      return KIND_STRING;
    case "number":
      return KIND_NUMBER;
    case "boolean":
      return KIND_BOOLEAN;
    case "object":
      return value === null ? KIND_NULL : Array.isArray(value) ? KIND_ARRAY : KIND_OBJECT;
    default:
      return KIND_NOT_JSON;
  }
}

/**
 * cfworker's "integer": a number with no fractional part that is not NaN, written exactly as
 * cfworker tests it (`instance % 1 || instance !== instance` rejects), so 1.0 is an integer and
 * so is Infinity (which JSON cannot carry anyway).
 */
export function isIntegerValue(value: unknown): boolean {
  return typeof value === "number" && !(value % 1) && !Number.isNaN(value);
}

/** A member of an object instance, read as cfworker reads it (`instance[key]`). */
export function member(object: object, key: string): unknown {
  // SAFETY: reading a property of an object; the result is typed unknown and narrowed by callers.
  return (object as Record<string, unknown>)[key];
}

/** An own property check, as cfworker's `hasOwnProperty(instance, key)` (same semantics). */
export function hasOwn(object: object, key: string): boolean {
  return Object.hasOwn(object, key);
}

/** Whether `object` has every one of `names` as an own property. */
export function hasAll(object: object, names: readonly string[]): boolean {
  for (const name of names) if (!Object.hasOwn(object, name)) return false;
  return true;
}

/** Whether some regex of `regexes` matches `text`. A loop, not `some`: no closure per call. */
export function matchesAny(regexes: readonly PatternMatcher[], text: string): boolean {
  for (const regex of regexes) if (regex.test(text)) return true;
  return false;
}

/**
 * Whether cfworker could walk all of `value` without meeting a value it throws on: every item
 * (holes read as undefined) and every key a `for…in` visits (inherited enumerable ones too, as
 * cfworker's loops do) holds a string, number, boolean, null, array or object, recursively, and
 * arrays and objects nest at most `levels` deep (a scalar is 0 deep, `[1]` is 1). The bound keeps
 * cfworker's recursion on the value within its stack, and a cyclic value from looping here. An
 * object with a non-enumerable own property (never one from JSON.parse) is not vouched for:
 * `for…in` misses it, but cfworker's "properties" would read it.
 */
export function isJsonTree(value: unknown, levels: number): boolean {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return true;
    case "object": {
      if (value === null) return true;
      if (levels < 1) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isJsonTree(value[i], levels - 1)) return false;
        return true;
      }
      let own = 0;
      for (const key in value) {
        if (!isJsonTree(member(value, key), levels - 1)) return false;
        if (Object.hasOwn(value, key)) own++;
      }
      return own === Object.getOwnPropertyNames(value).length;
    }
    default:
      return false;
  }
}

/** Arrays up to this length are compared pair by pair; longer ones index primitives in a Set. */
const PAIRWISE_LIMIT = 16;

function isObjectLike(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/**
 * Whether two items of `items` are equal as cfworker's "uniqueItems" sees it: `a === b`, or both
 * objects/arrays and deeply equal (jsonEqual is the same relation as cfworker's
 * deepCompareStrict: key order ignored, no cross-type equality, 1 and 1.0 are one number).
 * The Set used for long arrays treats NaN as equal to itself where `===` does not; JSON has no
 * NaN, and a wrong "duplicate" only sends the value to cfworker, which answers exactly.
 */
export function hasDuplicates(items: readonly unknown[]): boolean {
  const n = items.length;
  if (n < 2) return false;
  if (n <= PAIRWISE_LIMIT) {
    for (let j = 0; j < n; j++) {
      const a = items[j];
      const aObject = isObjectLike(a);
      for (let k = j + 1; k < n; k++) {
        const b = items[k];
        if (a === b || (aObject && isObjectLike(b) && jsonEqual(a, b))) return true;
      }
    }
    return false;
  }
  const primitives = new Set<unknown>();
  const objects: object[] = [];
  for (const item of items) {
    if (isObjectLike(item)) {
      for (const seen of objects) if (seen === item || jsonEqual(seen, item)) return true;
      objects.push(item);
    } else {
      if (primitives.has(item)) return true;
      primitives.add(item);
    }
  }
  return false;
}
