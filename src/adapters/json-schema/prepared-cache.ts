/**
 * A cache of prepared validators, so that the dispatch hot path (the same contract schema
 * validated against many times) prepares nothing.
 *
 * Lookup order: the schema object's identity (a WeakMap, no hashing at all), then the schema's
 * canonical JSON (a bounded map, so an equal schema parsed again from storage or from a request
 * reuses the prepared form). Schemas are treated as immutable once validated: mutating a schema
 * object after use is not noticed by the identity cache.
 */
import { canonicalJson, type Problem } from "../../core/json.js";
import { notJsonReason } from "./cfworker-prepare.js";

export const DEFAULT_CACHE_SIZE = 500;

interface PreparedCache<T> {
  /** The prepared form of `schema`, preparing it (and remembering it) on a miss. */
  get(schema: object | boolean): T;
  /** Entries in the bounded canonical-JSON map (the identity map cannot be counted). */
  readonly size: number;
}

/** @param prepare builds the prepared form; called once per distinct schema (until evicted) */
export function createPreparedCache<T>(
  prepare: (schema: object | boolean) => T,
  maxEntries: number = DEFAULT_CACHE_SIZE,
): PreparedCache<T> {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError(`cache size must be a positive integer, got ${maxEntries}`);
  }
  const byIdentity = new WeakMap<object, T>();
  // A Map iterates in insertion order; re-inserting on every hit makes the first key the least
  // recently used one, which is the one evicted.
  const byCanonical = new Map<string, T>();
  // Boolean schemas cannot be WeakMap keys and are only two, so they get their own slots.
  const booleans = new Map<boolean, T>();

  return {
    get(schema) {
      if (typeof schema === "boolean") {
        let prepared = booleans.get(schema);
        if (prepared === undefined) {
          prepared = prepare(schema);
          booleans.set(schema, prepared);
        }
        return prepared;
      }
      const known = byIdentity.get(schema);
      if (known !== undefined) return known;
      const key = canonicalJson(schema);
      let prepared = byCanonical.get(key);
      if (prepared !== undefined) {
        byCanonical.delete(key);
      } else {
        prepared = prepare(schema);
        while (byCanonical.size >= maxEntries) {
          const oldest = byCanonical.keys().next();
          if (oldest.done === true) break;
          byCanonical.delete(oldest.value);
        }
      }
      byCanonical.set(key, prepared);
      byIdentity.set(schema, prepared);
      return prepared;
    },
    get size() {
      return byCanonical.size;
    },
  };
}

/**
 * The cache entry for `schema`, or an unusable entry when the schema is not even JSON (a cycle, a
 * NaN), so it cannot be keyed: both validators answer that case the same way.
 */
export function preparedOrUnkeyable<T>(cache: PreparedCache<T>, schema: object | boolean): T | { unusable: Problem[] } {
  try {
    return cache.get(schema);
  } catch (error) {
    return { unusable: [{ path: "", message: `not a JSON document: ${notJsonReason(schema, error)}` }] };
  }
}
