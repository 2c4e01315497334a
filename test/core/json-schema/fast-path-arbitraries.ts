/**
 * fast-check arbitraries for the fast path's differential test: random schemas built from the
 * keywords the fast path implements, random JSON values drawn from pools that hit keyword edges
 * (astral characters, 0.1 and 0.3, keys that patterns match), and values derived from a schema
 * so that a good share of them is valid (random values alone almost never are).
 */
import fc from "fast-check";
import { ASSERTED_FORMATS } from "../../../src/adapters/json-schema/formats.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../../src/core/json.js";

const KEYS = ["a", "b", "c", "ab", "x-a", "1", "B"] as const;
const key = fc.constantFrom(...KEYS);

/** Strings that matter to the patterns, formats and lengths generated below. */
const STRING_POOL = [
  "",
  "a",
  "ab",
  "abc",
  "b",
  "B",
  "1",
  "x-a",
  "😀",
  "😀😀",
  "a😀",
  "Émile",
  "é",
  "2024-02-29",
  "2023-02-29",
  "23:59:59Z",
  "2024-05-01T12:30:00+02:00",
  "P3DT4H",
  "agent@example.com",
  "agent@",
  "api.example.com",
  "192.168.0.1",
  "::1",
  "https://example.com/a?b=c",
  "../a/b#c",
  "https://example.com/{id}",
  "2eb8aa08-aa98-11ea-b4aa-73b441d16380",
  "/a/0/b~1c",
  "#/a/b",
  "1/a",
  "^[a-z]+$",
  "(unclosed",
];

const string = fc.oneof(
  fc.constantFrom(...STRING_POOL),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: "grapheme", maxLength: 3 }),
);

const number = fc.oneof(
  fc.integer({ min: -5, max: 10 }),
  fc.constantFrom(0.1, 0.3, 0.5, 1.5, 2.5, -0.5, 19.99, 0.075, 1e21, -0, 1e-7, 3e-7, 0.30000000000000004),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -100, max: 100 }),
);

/** Any JSON value, small. */
export const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{
  value: JsonValue;
  array: JsonValue[];
  object: Record<string, JsonValue>;
}>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    fc.constant(null),
    fc.boolean(),
    number,
    string,
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(key, tie("value"), { maxKeys: 4 }),
})).value;

const typeName = fc.constantFrom("null", "boolean", "integer", "number", "string", "array", "object");
const bound = fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constantFrom(0.5, 1.5, -0.5));
const PATTERNS = ["^a", "b$", "^[a-z]*$", "\\d", "^\\p{L}+$", "😀", "^.$", "^x-"] as const;

/** The keywords a generated schema object draws from, each with the arbitrary of its value. */
function keywordArbitraries(schema: fc.Arbitrary<JsonValue>): Record<string, fc.Arbitrary<JsonValue>> {
  const schemas = fc.array(schema, { minLength: 1, maxLength: 3 });
  const names = fc.uniqueArray(key, { maxLength: 2 });
  return {
    type: fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 })),
    const: jsonValue,
    enum: fc.array(jsonValue, { minLength: 1, maxLength: 4 }),
    minLength: fc.nat(4),
    maxLength: fc.nat(4),
    pattern: fc.constantFrom(...PATTERNS),
    format: fc.constantFrom(...ASSERTED_FORMATS, "x-unknown", "int32"),
    minimum: bound,
    maximum: bound,
    exclusiveMinimum: bound,
    exclusiveMaximum: bound,
    multipleOf: fc.constantFrom(1, 2, 3, 0.5, 0.1, 0.01, 1.5, 1e-3, 0.3),
    minItems: fc.nat(3),
    maxItems: fc.nat(3),
    uniqueItems: fc.boolean(),
    minProperties: fc.nat(3),
    maxProperties: fc.nat(3),
    required: fc.uniqueArray(key, { maxLength: 3 }),
    properties: fc.dictionary(key, schema, { maxKeys: 3 }),
    patternProperties: fc.dictionary(fc.constantFrom("^a", "b", "^x-", "\\d"), schema, { maxKeys: 2 }),
    additionalProperties: schema,
    propertyNames: schema,
    items: schema,
    prefixItems: schemas,
    additionalItems: schema,
    contains: schema,
    minContains: fc.nat(3),
    maxContains: fc.nat(3),
    allOf: schemas,
    anyOf: schemas,
    oneOf: schemas,
    not: schema,
    if: schema,
    then: schema,
    else: schema,
    dependentRequired: fc.dictionary(key, names, { maxKeys: 2 }),
    dependentSchemas: fc.dictionary(key, schema, { maxKeys: 2 }),
    dependencies: fc.dictionary(key, fc.oneof(names, schema), { maxKeys: 2 }),
    title: fc.constant("a title"),
    default: jsonValue,
    "x-vendor": fc.constant({ minimum: 100 }),
  };
}

/** References into the generated root's "$defs" (and to the root itself). */
const REF = fc.constantFrom({ $ref: "#/$defs/a" }, { $ref: "#/$defs/b" }, { $ref: "#" });

/** A schema: a boolean, a "$ref", or an object with a few keywords. */
const schema: fc.Arbitrary<JsonValue> = fc.letrec<{ schema: JsonValue; object: JsonValue }>((tie) => {
  const keywords = keywordArbitraries(tie("schema"));
  const names = Object.keys(keywords);
  return {
    schema: fc.oneof(
      { depthSize: "small", maxDepth: 3, depthIdentifier: "schema" },
      { arbitrary: fc.boolean(), weight: 1 },
      { arbitrary: REF, weight: 1 },
      { arbitrary: tie("object"), weight: 8 },
    ),
    object: fc
      .uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 })
      .chain((chosen) =>
        fc.record(Object.fromEntries(chosen.map((name) => [name, keywords[name] ?? fc.constant(null)]))),
      ),
  };
}).schema;

export type SchemaDraftName = "2020-12" | "7";

/** A whole document: a root schema with "$defs" for the references to land in, in a draft. */
export const documentArbitrary: fc.Arbitrary<{ draft: SchemaDraftName; schema: JsonValue }> = fc
  .record({ draft: fc.constantFrom<SchemaDraftName>("2020-12", "7"), root: schema, a: schema, b: schema })
  .map(({ draft, root, a, b }) => {
    if (!isJsonObject(root)) return { draft, schema: root };
    const document: JsonObject = Object.assign({}, root, { $defs: { a, b } });
    if (draft === "7") document.$schema = "http://json-schema.org/draft-07/schema#";
    return { draft, schema: document };
  });

// ---------------------------------------------------------------------------------------------
// Values likely to be valid: built from what the schema asks for, keyword by keyword.

const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  date: "2024-02-29",
  time: "23:59:59Z",
  "date-time": "2024-05-01T12:30:00+02:00",
  duration: "P3DT4H",
  uri: "https://example.com/a?b=c",
  "uri-reference": "../a/b#c",
  "uri-template": "https://example.com/{id}",
  url: "https://example.com/",
  email: "agent@example.com",
  hostname: "api.example.com",
  ipv4: "192.168.0.1",
  ipv6: "::1",
  regex: "^[a-z]+$",
  uuid: "2eb8aa08-aa98-11ea-b4aa-73b441d16380",
  "json-pointer": "/a/0/b~1c",
  "json-pointer-uri-fragment": "#/a/b",
  "relative-json-pointer": "1/a",
};

function numberOr(value: JsonValue | undefined, fallback: number): number {
  return typeof value === "number" ? value : fallback;
}

function resolve(ref: string, root: JsonObject): JsonValue {
  if (ref === "#") return root;
  const defs = root.$defs;
  const name = ref.replace("#/$defs/", "");
  return isJsonObject(defs) ? (defs[name] ?? true) : true;
}

function typeOf(schema: JsonObject): string | undefined {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return typeof type[0] === "string" ? type[0] : undefined;
  if (schema.properties !== undefined || schema.required !== undefined) return "object";
  if (schema.items !== undefined || schema.prefixItems !== undefined) return "array";
  if (schema.minLength !== undefined || schema.pattern !== undefined || schema.format !== undefined) return "string";
  if (schema.minimum !== undefined || schema.maximum !== undefined || schema.multipleOf !== undefined) return "number";
  return undefined;
}

function likelyString(schema: JsonObject): fc.Arbitrary<JsonValue> {
  const format = schema.format;
  if (typeof format === "string" && FORMAT_SAMPLES[format] !== undefined) return fc.constant(FORMAT_SAMPLES[format]);
  const pattern = schema.pattern;
  if (typeof pattern === "string") {
    const regex = new RegExp(pattern, "u");
    const matching = STRING_POOL.filter((s) => regex.test(s));
    if (matching.length > 0) return fc.constantFrom(...matching);
  }
  const minLength = numberOr(schema.minLength, 0);
  return fc.string({ minLength, maxLength: Math.max(minLength, numberOr(schema.maxLength, minLength + 3)) });
}

function likelyNumber(schema: JsonObject, integer: boolean): fc.Arbitrary<JsonValue> {
  const low = Math.ceil(Math.max(numberOr(schema.minimum, -5), numberOr(schema.exclusiveMinimum, -6) + 1));
  const high = Math.floor(Math.min(numberOr(schema.maximum, 10), numberOr(schema.exclusiveMaximum, 11) - 1));
  const divisor = schema.multipleOf;
  if (typeof divisor === "number")
    return fc.integer({ min: -4, max: 6 }).map((k) => (integer ? Math.round(k * divisor) : k * divisor));
  return high >= low ? fc.integer({ min: low, max: high }) : fc.integer({ min: -5, max: 10 });
}

function likelyObject(schema: JsonObject, root: JsonObject, depth: number): fc.Arbitrary<JsonValue> {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === "string")
    : [];
  const model: Record<string, fc.Arbitrary<JsonValue>> = {};
  for (const name of new Set([...Object.keys(properties), ...required]))
    model[name] = likelyValue(properties[name] ?? true, root, depth + 1);
  return fc.record(model, { requiredKeys: required.filter((k) => k in model) });
}

function likelyArray(schema: JsonObject, root: JsonObject, depth: number): fc.Arbitrary<JsonValue> {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const items = schema.items;
  const minItems = numberOr(schema.minItems, 0);
  const maxItems = Math.max(minItems, Math.min(numberOr(schema.maxItems, 3), 4));
  const head = fc.tuple(...prefix.map((s) => likelyValue(s, root, depth + 1)));
  const tail = fc.array(items === undefined || Array.isArray(items) ? jsonValue : likelyValue(items, root, depth + 1), {
    minLength: Math.max(0, minItems - prefix.length),
    maxLength: Math.max(0, maxItems - prefix.length),
  });
  return fc.tuple(head, tail).map(([h, t]): JsonValue => [...h, ...t]);
}

/** An arbitrary of values `schema` is likely to accept (no guarantee: it is a heuristic). */
export function likelyValue(schema: JsonValue, root: JsonObject, depth = 0): fc.Arbitrary<JsonValue> {
  if (depth > 4 || !isJsonObject(schema)) return jsonValue;
  if (schema.const !== undefined) return fc.constant(schema.const);
  const members = schema.enum;
  if (Array.isArray(members) && members.length > 0) return fc.constantFrom(...members);
  const ref = schema.$ref;
  if (typeof ref === "string") return likelyValue(resolve(ref, root), root, depth + 1);
  for (const keyword of ["anyOf", "oneOf", "allOf"]) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && branches.length > 0)
      return fc.oneof(...branches.map((b) => likelyValue(b, root, depth + 1)));
  }
  switch (typeOf(schema)) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return likelyNumber(schema, true);
    case "number":
      return likelyNumber(schema, false);
    case "string":
      return likelyString(schema);
    case "array":
      return likelyArray(schema, root, depth);
    case "object":
      return likelyObject(schema, root, depth);
    default:
      return jsonValue;
  }
}
