/**
 * Deriving one plausible value from a JSON Schema, for drafts. Deliberately simple and
 * deterministic: the first of examples[0], default, const, enum[0]; otherwise a value by type
 * that respects the easy constraints. Anything it cannot honestly satisfy (a pattern, `not`,
 * `if`) is answered with the schema location of that construct instead of a guess; whatever it
 * does produce is still validated afterwards, so a wrong guess can never become a saved mock.
 */
import type { JsonObject, JsonValue } from "../json.js";
import { isJsonObject, pointer } from "../json.js";
import { LIMITS } from "./limits.js";
import { child, copyJson, setOwn } from "./values.js";

export type Derived = { ok: true; value: JsonValue } | { ok: false; construct: string; message: string };

/** Where each part of the derived value came from: instance pointer → schema pointer. */
export type Provenance = Map<string, string>;

/** Fixed values for string formats: stable across runs so drafts and their hashes never churn. */
export const FORMAT_VALUES: Readonly<Record<string, string>> = {
  "date-time": "2025-01-15T09:30:00.000Z",
  date: "2025-01-15",
  time: "09:30:00Z",
  duration: "P1D",
  email: "user@example.com",
  "idn-email": "user@example.com",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  uri: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  "iri-reference": "https://example.com/",
  url: "https://example.com/",
  "uri-template": "https://example.com/{id}",
  uuid: "00000000-0000-4000-8000-000000000000",
  "json-pointer": "/",
  "relative-json-pointer": "0",
  regex: ".*",
};

const MAX_DEPTH = 32;

interface Context {
  root: unknown;
  provenance: Provenance;
  /**
   * Bytes the derived value may still take. A draft is a definition, so nothing larger than a
   * definition can hold is worth building: a schema asking for a string of a billion characters,
   * or a million items, is refused before the value exists, not after (it threw, or held the
   * Worker for seconds).
   */
  budget: number;
}

function tooLarge(construct: string, size: number, unit: "characters" | "items"): Derived {
  return fail(
    construct,
    `a value of at least ${size} ${unit} does not fit in a mock definition (at most ${LIMITS.maxDefinitionBytes} bytes); author the mock`,
  );
}

function fail(construct: string, message: string): Derived {
  return { ok: false, construct, message };
}

function ok(value: JsonValue): Derived {
  return { ok: true, value };
}

/**
 * Derives a value for `schema`. The root of an unconstrained schema (true or {}) gets {}, since
 * both tool arguments and most tool results are objects; deeper down it gets null.
 */
export function deriveValue(schema: unknown, provenance: Provenance = new Map()): Derived {
  const context: Context = { root: schema, provenance, budget: LIMITS.maxDefinitionBytes };
  if (schema === true || (isJsonObject(schema) && Object.keys(schema).every((k) => ANNOTATIONS.has(k)))) {
    provenance.set("", "");
    return ok({});
  }
  return derive(schema, "", "", context, 0);
}

/** Keywords that constrain nothing; a schema made only of these accepts any value. */
const ANNOTATIONS: ReadonlySet<string> = new Set([
  "$schema",
  "$id",
  "$comment",
  "$anchor",
  "$dynamicAnchor",
  "$defs",
  "definitions",
  "title",
  "description",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$vocabulary",
]);

function decodeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Follows a local "#/..." reference inside the root schema; null when it does not resolve. */
export function resolveLocalRef(root: unknown, ref: string): { schema: unknown; at: string } | null {
  if (ref === "#") return { schema: root, at: "" };
  if (!ref.startsWith("#/")) return null;
  let current: unknown = root;
  let decoded: string;
  try {
    decoded = decodeURIComponent(ref.slice(1));
  } catch {
    return null;
  }
  const tokens = decoded.slice(1).split("/").map(decodeToken);
  for (const token of tokens) {
    if (current === null || typeof current !== "object") return null;
    if (!Object.hasOwn(current, token)) return null;
    // SAFETY: an object (array or record) indexed by one of its own keys.
    current = (current as Record<string, unknown>)[token];
  }
  return { schema: current, at: pointer(...tokens) };
}

function typeOf(schema: JsonObject): string {
  const declared = schema.type;
  if (typeof declared === "string") return declared;
  if (Array.isArray(declared)) {
    const first = declared.find((t) => t !== "null");
    return typeof first === "string" ? first : "null";
  }
  const has = (...keys: string[]) => keys.some((k) => Object.hasOwn(schema, k));
  if (has("properties", "required", "additionalProperties", "minProperties", "patternProperties")) return "object";
  if (has("items", "prefixItems", "minItems", "contains")) return "array";
  if (has("minLength", "maxLength", "pattern", "format")) return "string";
  if (has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")) return "number";
  return "any";
}

/** Shallow merge for allOf and for the branch of an anyOf/oneOf: properties merge, required unions. */
function mergeSchemas(base: JsonObject, extra: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  for (const key of Object.keys(extra)) {
    // SAFETY: key is one of extra's own keys, so the lookup is defined.
    const value = extra[key] as JsonValue;
    const existing = merged[key];
    if (key === "properties" && isJsonObject(existing) && isJsonObject(value)) {
      merged[key] = { ...existing, ...value };
    } else if (key === "required" && Array.isArray(existing) && Array.isArray(value)) {
      merged[key] = [...new Set([...existing, ...value])];
    } else {
      setOwn(merged, key, value);
    }
  }
  return merged;
}

function without(schema: JsonObject, ...keys: string[]): JsonObject {
  const copy: JsonObject = { ...schema };
  for (const key of keys) delete copy[key];
  return copy;
}

function derive(schema: unknown, at: string, instance: string, context: Context, depth: number): Derived {
  if (depth > MAX_DEPTH) return fail(at, "the schema nests too deeply (or refers to itself) to derive a value");
  if (schema === true) return ok(null);
  if (schema === false) return fail(at, "the schema `false` accepts no value");
  if (!isJsonObject(schema)) return fail(at, "expected a schema object");
  context.provenance.set(instance, at);

  if (typeof schema.$ref === "string") {
    const target = resolveLocalRef(context.root, schema.$ref);
    if (target === null)
      return fail(`${at}/$ref`, `only local references ("#/...") that resolve can be followed; got "${schema.$ref}"`);
    const siblings = without(schema, "$ref");
    if (Object.keys(siblings).every((k) => ANNOTATIONS.has(k)))
      return derive(target.schema, target.at, instance, context, depth + 1);
    if (!isJsonObject(target.schema)) return derive(target.schema, target.at, instance, context, depth + 1);
    return derive(mergeSchemas(target.schema, siblings), at, instance, context, depth + 1);
  }
  // SAFETY (the four casts below): each value is read only after checking it is present (a
  // non-empty array, or an own key), and a schema document is JSON.
  if (Array.isArray(schema.examples) && schema.examples.length > 0)
    return ok(copyJson(schema.examples[0] as JsonValue));
  if (Object.hasOwn(schema, "default")) return ok(copyJson(schema.default as JsonValue));
  if (Object.hasOwn(schema, "const")) return ok(copyJson(schema.const as JsonValue));
  if (Array.isArray(schema.enum)) {
    if (schema.enum.length === 0) return fail(`${at}/enum`, "an empty enum accepts no value");
    // SAFETY: the enum is a non-empty array (checked just above).
    return ok(copyJson(schema.enum[0] as JsonValue));
  }
  // These cannot be honoured by construction, so they are refused up front with a precise
  // location. Keywords that usually hold for a minimal value anyway (patternProperties,
  // propertyNames, dependentSchemas, unevaluatedProperties) are left to the validation that every
  // draft goes through, which locates any failure at the subschema that produced the value.
  for (const keyword of ["not", "if", "contains", "$dynamicRef", "$recursiveRef"]) {
    if (Object.hasOwn(schema, keyword)) {
      return fail(
        child(at, keyword),
        `a value satisfying "${keyword}" cannot be derived automatically; author the mock, or give the schema examples, a default, a const or an enum`,
      );
    }
  }
  if (Array.isArray(schema.allOf)) {
    let merged = without(schema, "allOf");
    for (let i = 0; i < schema.allOf.length; i++) {
      let part: unknown = schema.allOf[i];
      if (isJsonObject(part) && typeof part.$ref === "string") {
        const target = resolveLocalRef(context.root, part.$ref);
        part =
          target === null
            ? part
            : isJsonObject(target.schema)
              ? mergeSchemas(target.schema, without(part, "$ref"))
              : target.schema;
      }
      if (part === true) continue;
      if (!isJsonObject(part) || typeof part.$ref === "string") {
        return fail(
          `${at}/allOf/${i}`,
          "only object subschemas (and local references to them) can be combined in allOf",
        );
      }
      merged = mergeSchemas(merged, part);
    }
    return derive(merged, at, instance, context, depth + 1);
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const options = schema[keyword];
    if (!Array.isArray(options)) continue;
    const rest = without(schema, keyword);
    let firstFailure: Derived | null = null;
    const budget = context.budget;
    for (let i = 0; i < options.length; i++) {
      // A branch that fails gives back what it spent.
      context.budget = budget;
      const option = options[i];
      const candidate = isJsonObject(option) && typeof option.$ref !== "string" ? mergeSchemas(rest, option) : option;
      const derived =
        isJsonObject(option) && typeof option.$ref !== "string"
          ? derive(candidate, at, instance, context, depth + 1)
          : derive(option, `${at}/${keyword}/${i}`, instance, context, depth + 1);
      if (derived.ok) return derived;
      firstFailure ??= derived;
    }
    return firstFailure ?? fail(`${at}/${keyword}`, `an empty ${keyword} accepts no value`);
  }
  switch (typeOf(schema)) {
    case "string":
      return deriveString(schema, at, context);
    case "integer":
      return deriveNumber(schema, at, true);
    case "number":
      return deriveNumber(schema, at, false);
    case "boolean":
      return ok(true);
    case "null":
      return ok(null);
    case "array":
      return deriveArray(schema, at, instance, context, depth);
    case "object":
      return deriveObject(schema, at, instance, context, depth);
    case "any":
      return ok(null);
    default:
      return fail(`${at}/type`, `unknown type ${JSON.stringify(schema.type)}`);
  }
}

function deriveString(schema: JsonObject, at: string, context: Context): Derived {
  if (typeof schema.pattern === "string") {
    return fail(
      `${at}/pattern`,
      `a string matching the pattern ${JSON.stringify(schema.pattern)} cannot be derived automatically; author the mock, or give the schema examples, a default, a const or an enum`,
    );
  }
  const format = typeof schema.format === "string" ? schema.format : undefined;
  let value = format !== undefined && FORMAT_VALUES[format] !== undefined ? FORMAT_VALUES[format] : "example";
  if (typeof schema.minLength === "number" && schema.minLength > context.budget)
    return tooLarge(`${at}/minLength`, schema.minLength, "characters");
  if (typeof schema.minLength === "number" && [...value].length < schema.minLength) {
    if (format !== undefined && FORMAT_VALUES[format] !== undefined)
      return fail(
        `${at}/minLength`,
        `a "${format}" string of at least ${schema.minLength} characters cannot be derived`,
      );
    value = value.padEnd(schema.minLength, "x");
  }
  if (typeof schema.maxLength === "number" && [...value].length > schema.maxLength) {
    if (format !== undefined && FORMAT_VALUES[format] !== undefined)
      return fail(
        `${at}/maxLength`,
        `a "${format}" string of at most ${schema.maxLength} characters cannot be derived`,
      );
    value = value.slice(0, schema.maxLength);
  }
  context.budget -= value.length + 2;
  if (context.budget < 0)
    return tooLarge(typeof schema.minLength === "number" ? `${at}/minLength` : at, value.length, "characters");
  return ok(value);
}

function deriveNumber(schema: JsonObject, at: string, integer: boolean): Derived {
  const bound = (key: string): number | undefined => {
    const value = schema[key];
    return typeof value === "number" ? value : undefined;
  };
  const minimum = bound("minimum");
  const exclusiveMinimum = bound("exclusiveMinimum");
  const maximum = bound("maximum");
  const exclusiveMaximum = bound("exclusiveMaximum");
  const multipleOf = bound("multipleOf");
  // Zero when allowed, else the nearest simple value inside the bounds.
  let value = 0;
  if (minimum !== undefined && value < minimum) value = minimum;
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum)
    value = integer ? Math.floor(exclusiveMinimum) + 1 : exclusiveMinimum + 1;
  if (maximum !== undefined && value > maximum) value = maximum;
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) {
    const lower = minimum ?? exclusiveMinimum;
    value = integer
      ? Math.ceil(exclusiveMaximum) - 1
      : lower !== undefined
        ? (lower + exclusiveMaximum) / 2
        : exclusiveMaximum - 1;
  }
  if (integer) value = Math.ceil(value);
  if (multipleOf !== undefined && multipleOf > 0)
    value = Number((Math.ceil(value / multipleOf) * multipleOf).toPrecision(15));
  if (!Number.isFinite(value)) return fail(at, "no finite number satisfies these bounds");
  return ok(value);
}

function deriveArray(schema: JsonObject, at: string, instance: string, context: Context, depth: number): Derived {
  const minItems = typeof schema.minItems === "number" ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === "number" ? schema.maxItems : Number.POSITIVE_INFINITY;
  if (minItems > context.budget) return tooLarge(`${at}/minItems`, minItems, "items");
  if (schema.uniqueItems === true && minItems > 1) {
    return fail(`${at}/uniqueItems`, `${minItems} distinct items cannot be derived automatically`);
  }
  const prefix = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  const prefixKey = Array.isArray(schema.prefixItems) ? "prefixItems" : "items";
  const rest: unknown = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  const itemSchema = (i: number): { schema: unknown; at: string } | null => {
    if (i < prefix.length) return { schema: prefix[i], at: `${at}/${prefixKey}/${i}` };
    if (rest === undefined) return null;
    return { schema: rest, at: Array.isArray(schema.items) ? `${at}/additionalItems` : `${at}/items` };
  };
  // One item makes a more useful draft than an empty list, but only when it is free to add.
  const wanted = Math.min(Math.max(minItems, itemSchema(0) === null ? 0 : 1), maxItems);
  const items: JsonValue[] = [];
  for (let i = 0; i < wanted; i++) {
    // Each item takes at least its separator.
    context.budget -= 1;
    if (context.budget < 0) return tooLarge(`${at}/minItems`, minItems, "items");
    const source = itemSchema(i);
    if (source === null) {
      items.push(null);
      continue;
    }
    const derived = derive(source.schema, source.at, `${instance}/${i}`, context, depth + 1);
    if (!derived.ok) {
      if (i >= minItems) break;
      return derived;
    }
    items.push(derived.value);
  }
  return ok(items);
}

function deriveObject(schema: JsonObject, at: string, instance: string, context: Context, depth: number): Derived {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === "string")
    : [];
  const minProperties = typeof schema.minProperties === "number" ? schema.minProperties : 0;
  // Required keys in the order the schema lists its properties (a readable draft), then any
  // required key that only additionalProperties describes; optional keys only to reach minProperties.
  const keys = Object.keys(properties).filter((k) => required.includes(k));
  for (const key of required) if (!keys.includes(key)) keys.push(key);
  for (const key of Object.keys(properties)) {
    if (keys.length >= minProperties) break;
    if (!keys.includes(key)) keys.push(key);
  }
  if (keys.length < minProperties)
    return fail(`${at}/minProperties`, `${minProperties} properties cannot be derived from the declared ones`);
  const value: JsonObject = {};
  for (const key of keys) {
    const childInstance = child(instance, key);
    let derived: Derived;
    if (Object.hasOwn(properties, key)) {
      derived = derive(properties[key], child(`${at}/properties`, key), childInstance, context, depth + 1);
    } else if (schema.additionalProperties === false) {
      return fail(
        `${at}/required`,
        `required property "${key}" is not in properties and additionalProperties is false`,
      );
    } else if (isJsonObject(schema.additionalProperties)) {
      derived = derive(schema.additionalProperties, `${at}/additionalProperties`, childInstance, context, depth + 1);
    } else {
      derived = ok(null);
    }
    if (!derived.ok) return derived;
    setOwn(value, key, derived.value);
  }
  return ok(value);
}
