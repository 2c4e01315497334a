/**
 * validate through the port: paths are JSON Pointers into the value, messages say what was
 * expected, wrapper errors ("properties", "allOf", "$ref" umbrellas) never appear, every failing
 * property is reported, and both validators return the very same Problem array.
 */
import { describe, expect, it } from "vitest";
import type { Problem } from "../../../src/core/json.js";
import type { JsonSchema } from "../../../src/core/ports.js";
import { IMPLEMENTATIONS } from "./validators.js";

/** A tool input contract of the kind agents call: a weather lookup. */
const WEATHER: JsonSchema = {
  type: "object",
  required: ["city", "days"],
  additionalProperties: false,
  properties: {
    city: { type: "string", minLength: 2, maxLength: 40 },
    days: { type: "integer", minimum: 1, maximum: 14 },
    units: { enum: ["metric", "imperial"] },
    when: { type: "string", format: "date-time" },
    email: { type: "string", format: "email" },
    tags: { type: "array", items: { type: "string", pattern: "^[a-z-]+$" }, maxItems: 3, uniqueItems: true },
    filter: { anyOf: [{ type: "string" }, { type: "null" }] },
    shape: {
      oneOf: [
        {
          type: "object",
          required: ["kind", "radius"],
          properties: { kind: { const: "circle" }, radius: { type: "number", exclusiveMinimum: 0 } },
        },
        {
          type: "object",
          required: ["kind", "side"],
          properties: { kind: { const: "square" }, side: { type: "number", exclusiveMinimum: 0 } },
        },
      ],
    },
    meta: {
      type: "object",
      propertyNames: { pattern: "^[a-z]+$" },
      maxProperties: 2,
      additionalProperties: { type: "string" },
    },
    ratio: { type: "number", multipleOf: 0.25 },
    "a/b~c": { type: "boolean" },
  },
};
const OK = { city: "Paris", days: 3 };

describe.each(IMPLEMENTATIONS)("%s validator: validate", (_name, create) => {
  const validator = create();

  it.each<[string, unknown, Problem[]]>([
    ["a valid call", OK, []],
    [
      "a valid call with every optional field",
      {
        ...OK,
        units: "metric",
        when: "2025-01-02T03:04:05Z",
        email: "a@b.co",
        tags: ["x"],
        filter: null,
        shape: { kind: "square", side: 2 },
        meta: { a: "b" },
        ratio: 0.75,
        "a/b~c": true,
      },
      [],
    ],
    [
      "both required properties missing",
      {},
      [
        { path: "", message: 'missing required property "city"' },
        { path: "", message: 'missing required property "days"' },
      ],
    ],
    [
      "every top-level failure, not only the first",
      { city: "P", days: 0, extra: true, other: 1 },
      [
        { path: "/city", message: "must be at least 2 characters long, got 1" },
        { path: "/days", message: "must be >= 1" },
        { path: "/extra", message: 'property "extra" is not allowed' },
        { path: "/other", message: 'property "other" is not allowed' },
      ],
    ],
    [
      "wrong types, the actual type named",
      { city: 3, days: 2.5 },
      [
        { path: "/city", message: "must be string, got number" },
        { path: "/days", message: "must be integer, got number" },
      ],
    ],
    [
      "enum and asserted formats",
      { ...OK, units: "kelvin", when: "tomorrow", email: "nope" },
      [
        { path: "/email", message: 'must be a valid "email" string' },
        { path: "/units", message: 'must be one of ["metric","imperial"]' },
        { path: "/when", message: 'must be a valid "date-time" string' },
      ],
    ],
    [
      "array bounds, duplicates and a bad item",
      { ...OK, tags: ["ok", "Bad Tag", "ok", "x"] },
      [
        { path: "/tags", message: "must have at most 3 items, got 4" },
        { path: "/tags", message: "must not contain duplicate items (items 0 and 2 are equal)" },
        { path: "/tags/1", message: 'must match the pattern "^[a-z-]+$"' },
      ],
    ],
    [
      "a nullable field: one message, not one per alternative",
      { ...OK, filter: 3 },
      [{ path: "/filter", message: "must be string or null, got number" }],
    ],
    [
      "a tagged union: why each alternative failed",
      { ...OK, shape: { kind: "circle", radius: -1 } },
      [
        {
          path: "/shape",
          message:
            'must match exactly one of the "oneOf" alternatives, but matched none (/radius: must be > 0; or missing required property "side"; or /kind: must be "square")',
        },
      ],
    ],
    [
      "property names, count and values of a map",
      { ...OK, meta: { a: "x", B: "y", c: 3 } },
      [
        { path: "/meta", message: "must have at most 2 properties, got 3" },
        { path: "/meta", message: 'property name "B" is invalid: must match the pattern "^[a-z]+$"' },
        { path: "/meta/c", message: "must be string, got number" },
      ],
    ],
    [
      "JSON Pointer escaping of '/' and '~' in a property name",
      { ...OK, ratio: 0.3, "a/b~c": "yes" },
      [
        { path: "/a~1b~0c", message: "must be boolean, got string" },
        { path: "/ratio", message: "must be a multiple of 0.25" },
      ],
    ],
    ["not an object at all", "not an object", [{ path: "", message: "must be object, got string" }]],
    ["null", null, [{ path: "", message: "must be object, got null" }]],
  ])("%s", (_what, value, problems) => {
    expect(validator.validate(WEATHER, value)).toEqual(problems);
  });

  it.each<[string, JsonSchema, unknown, Problem[]]>([
    [
      "array items with their indexes",
      { type: "array", items: { type: "object", required: ["id"], properties: { id: { type: "integer" } } } },
      [{ id: 1 }, {}, { id: "x" }],
      [
        { path: "/1", message: 'missing required property "id"' },
        { path: "/2/id", message: "must be integer, got string" },
      ],
    ],
    [
      "through $ref, without a '$ref' wrapper problem",
      {
        $defs: { pos: { type: "integer", minimum: 0 } },
        type: "object",
        properties: { a: { $ref: "#/$defs/pos" }, b: { $ref: "#/$defs/pos" } },
      },
      { a: -1, b: "x" },
      [
        { path: "/a", message: "must be >= 0" },
        { path: "/b", message: "must be integer, got string" },
      ],
    ],
    [
      "through allOf, without an 'allOf' wrapper problem",
      { allOf: [{ required: ["a"] }, { properties: { b: { type: "string" } } }] },
      { b: 1 },
      [
        { path: "", message: 'missing required property "a"' },
        { path: "/b", message: "must be string, got number" },
      ],
    ],
    [
      "dependentRequired",
      { dependentRequired: { card: ["cvv"] } },
      { card: "4111" },
      [{ path: "", message: 'property "card" requires property "cvv"' }],
    ],
    [
      "if/then, without an 'if' wrapper problem",
      { if: { properties: { mode: { const: "strict" } }, required: ["mode"] }, then: { required: ["reason"] } },
      { mode: "strict" },
      [{ path: "", message: 'missing required property "reason"' }],
    ],
    [
      "contains with bounds, stated as a range",
      { contains: { type: "string" }, minContains: 2, maxContains: 3 },
      ["a", 1],
      [{ path: "", message: 'must contain between 2 and 3 items matching the "contains" schema' }],
    ],
    [
      "contains alone",
      { contains: { type: "string" } },
      [1, 2],
      [{ path: "", message: 'must contain at least one item matching the "contains" schema' }],
    ],
    ["not", { not: { type: "null" } }, null, [{ path: "", message: 'must not match the "not" schema' }]],
    ["the schema false", false, 1, [{ path: "", message: "no value is allowed here (the schema is false)" }]],
    [
      "a property whose schema is false",
      { properties: { a: false } },
      { a: 1 },
      [{ path: "/a", message: 'property "a" is not allowed' }],
    ],
    [
      "unevaluatedProperties: false",
      { properties: { a: true }, unevaluatedProperties: false },
      { a: 1, b: 2 },
      [{ path: "/b", message: 'property "b" is not allowed' }],
    ],
    [
      "a structured enum",
      { enum: [{ a: 1 }, [1, 2]] },
      { a: 2 },
      [{ path: "", message: 'must be one of [{"a":1},[1,2]]' }],
    ],
    [
      "a structured const",
      { const: { deep: [1, { x: true }] } },
      { deep: [1, { x: false }] },
      [{ path: "", message: 'must be {"deep":[1,{"x":true}]}' }],
    ],
    [
      "string length in code points",
      { type: "string", minLength: 2 },
      "😀",
      [{ path: "", message: "must be at least 2 characters long, got 1" }],
    ],
    [
      "draft-07 tuple with additionalItems: false",
      { $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }], additionalItems: false },
      ["a", "b"],
      [{ path: "/1", message: "item 1 is not allowed (the array has too many items)" }],
    ],
    [
      "draft-07 dependencies, both forms",
      { $schema: "http://json-schema.org/draft-07/schema#", dependencies: { a: ["b"], c: { required: ["d"] } } },
      { a: 1, c: 2 },
      [
        { path: "", message: 'missing required property "d"' },
        { path: "", message: 'property "a" requires property "b"' },
      ],
    ],
    [
      "a huge enum is shortened in the message",
      { enum: Array.from({ length: 100 }, (_, i) => `value-${i}`) },
      "x",
      [
        {
          path: "",
          message: `must be one of ${JSON.stringify(Array.from({ length: 100 }, (_, i) => `value-${i}`)).slice(0, 199)}…`,
        },
      ],
    ],
  ])("%s", (_what, schema, value, problems) => {
    expect(validator.validate(schema, value)).toEqual(problems);
  });

  it("answers for values JSON cannot carry instead of throwing", () => {
    expect(validator.validate({ type: "string" }, undefined)).toEqual([
      { path: "", message: "must be a JSON value, got undefined" },
    ]);
    expect(validator.validate({ type: "string" }, () => 1)).toEqual([
      { path: "", message: "must be a JSON value, got function" },
    ]);
  });

  it("answers for a schema that should have failed checkSchema instead of throwing", () => {
    const problems = validator.validate({ $ref: "#/$defs/missing" }, 1);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe("");
    expect(problems[0]?.message).toMatch(/missing/);
  });
});
