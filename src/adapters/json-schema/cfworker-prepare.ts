/**
 * Prepares a schema document for @cfworker/json-schema: a private copy of the document and the
 * table of URIs its "$ref"s resolve through. This is the only costly step of a cfworker
 * validation (it walks the whole document), which is why prepared forms are cached.
 */
import { dereference, type Schema } from "@cfworker/json-schema";
import { isJsonObject, type JsonValue } from "../../core/json.js";
import type { Draft } from "./drafts.js";
import { normalizeDraft07 } from "./draft07.js";
import { META_SCHEMA_DOCUMENTS } from "./meta-schemas.js";
import { messageOf } from "../../core/message-of.js";

export type Lookup = Record<string, Schema | boolean>;

export interface CfworkerDocument {
  /** The private copy: cfworker annotates the objects it dereferences, so the caller's stays clean. */
  root: Schema | boolean;
  /** The same copy, typed as the JSON it is. */
  json: JsonValue;
  lookup: Lookup;
}

function emptyLookup(): Lookup {
  // No prototype: URIs are keys and must never hit Object.prototype members.
  // SAFETY: Object.create(null) returns an empty object, which is a valid (empty) Lookup.
  return Object.create(null) as Lookup;
}

function asSchema(value: JsonValue): Schema | boolean {
  if (typeof value === "boolean") return value;
  if (!isJsonObject(value)) throw new TypeError("a JSON Schema must be an object or a boolean");
  // SAFETY: cfworker's `Schema` is an open record of JSON keywords; this is a JSON object.
  return value as Schema;
}

/** A deep copy of a JSON document that rejects values JSON cannot carry (undefined, functions, cycles). */
export function copyJson(value: unknown): JsonValue {
  const seen = new Set<object>();
  const copy = (current: unknown, path: string): JsonValue => {
    if (current === null || typeof current === "string" || typeof current === "boolean") return current;
    if (typeof current === "number") {
      if (!Number.isFinite(current)) throw new TypeError(`not a JSON number at "${path}"`);
      return current;
    }
    if (typeof current !== "object") throw new TypeError(`not a JSON value (${typeof current}) at "${path}"`);
    if (seen.has(current)) throw new TypeError(`circular structure at "${path}"`);
    seen.add(current);
    let out: JsonValue;
    if (Array.isArray(current)) {
      out = current.map((item: unknown, i) => copy(item, `${path}/${i}`));
    } else {
      const record: Record<string, JsonValue> = {};
      for (const [key, child] of Object.entries(current)) {
        const value = copy(child, `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
        // Defined, not assigned: assigning "__proto__" would replace the prototype instead of
        // creating a property of that name.
        Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
      }
      out = record;
    }
    seen.delete(current);
    return out;
  };
  return copy(value, "");
}

/**
 * A lookup table holding the meta-schemas and `known` documents (URI → schema), built once per
 * validator. Known documents stand in for remote schemas, which are never fetched.
 */
export function baseLookup(known: Readonly<Record<string, unknown>> = {}): Lookup {
  const lookup = emptyLookup();
  for (const document of META_SCHEMA_DOCUMENTS) dereference(document, lookup);
  for (const [uri, document] of Object.entries(known)) {
    const root = asSchema(copyJson(document));
    const url = new URL(uri);
    url.hash = "";
    // A document's own "$id" (resolved against where it was retrieved from) names it too.
    dereference(root, lookup, url);
    lookup[url.href] ??= root;
  }
  return lookup;
}

let metaLookup: Lookup | undefined;
/**
 * baseLookup() with no known documents (the meta-schemas only), built on first use and shared:
 * validators and the fast path that add no documents of their own all read this one table.
 */
export function sharedMetaLookup(): Lookup {
  metaLookup ??= baseLookup();
  return metaLookup;
}

/**
 * Dereferences `json`, a private copy (copyJson) that this takes over: a draft-07 copy is
 * normalized first (see draft07.ts), and cfworker annotates its objects. Throws when cfworker
 * cannot index it (a duplicate or malformed URI); the message is meant for a schema problem.
 */
export function prepareDocument(json: JsonValue, base: Lookup, draft: Draft): CfworkerDocument {
  if (draft === "7") normalizeDraft07(json);
  const root = asSchema(json);
  // The document first, then the shared entries it does not define itself: its own "$id"s win,
  // and the shared table is never written to.
  const lookup = dereference(root, emptyLookup());
  // Only the shared entries the document reaches, directly or through other shared documents:
  // a small table keeps every "$ref" lookup on the hot path cheap (most tool schemas reach none).
  const pending = referencedUris(root);
  while (pending.length > 0) {
    const uri = pending.pop();
    if (uri === undefined || lookup[uri] !== undefined) continue;
    const shared = base[uri];
    if (shared === undefined) continue;
    lookup[uri] = shared;
    pending.push(...referencedUris(shared));
  }
  return { root, json, lookup };
}

/** The absolute URIs of every "$ref" in a dereferenced schema (cfworker records them on the objects). */
function referencedUris(schema: Schema | boolean): string[] {
  const uris: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (typeof value !== "object" || value === null) return;
    const absolute: unknown = Reflect.get(value, "__absolute_ref__");
    if (typeof absolute === "string") uris.push(absolute);
    Object.values(value).forEach(visit);
  };
  visit(schema);
  return uris;
}

/**
 * Why `value` is not JSON, for a failure while keying or copying it: copyJson's precise reason
 * (a cycle at a path, a NaN) rather than a bare stack overflow from hashing a cyclic object.
 */
export function notJsonReason(value: unknown, error: unknown): string {
  try {
    copyJson(value);
  } catch (precise) {
    return messageOf(precise);
  }
  return messageOf(error);
}
