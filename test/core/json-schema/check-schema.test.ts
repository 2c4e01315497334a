/**
 * checkSchema through the port, the same answers from both validators: is the document a valid
 * JSON Schema of its draft (checked against the official meta-schema), do its "$ref"s resolve
 * inside it, and does it avoid what the runtime validator cannot follow.
 */
import { describe, expect, it } from "vitest";
import type { Problem } from "../../../src/core/json.js";
import type { SchemaProblem } from "../../../src/core/ports.js";
import { IMPLEMENTATIONS } from "./validators.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const TYPE_NAMES = '["array","boolean","integer","null","number","object","string"]';
const badType = (path: string, got: string): Problem => ({
  path,
  message: `must match at least one of the "anyOf" alternatives (must be one of ${TYPE_NAMES}; or must be array, got ${got})`,
});
// Refused, not invalid: a valid JSON Schema that toolproof will not store.
const exponential = (path: string, pattern: string): SchemaProblem => ({
  path,
  message: `toolproof refuses the pattern ${JSON.stringify(pattern)}: it can take exponential time to match (a repeated group that itself repeats, or more than 25 repetitions): rewrite it without nested repetition`,
  refused: true,
});
const unresolved = (path: string, ref: string): Problem => ({
  path,
  message: `$ref "${ref}" cannot be resolved inside this document (remote schemas are not fetched)`,
});

describe.each(IMPLEMENTATIONS)("%s validator: checkSchema", (_name, create) => {
  const validator = create();

  it.each<[string, unknown]>([
    [
      "a realistic tool input schema",
      {
        type: "object",
        required: ["city"],
        additionalProperties: false,
        properties: {
          city: { type: "string", minLength: 1 },
          units: { enum: ["metric", "imperial"], default: "metric" },
          days: { type: "integer", minimum: 1, maximum: 14 },
          when: { type: "string", format: "date-time" },
          tags: { type: "array", items: { $ref: "#/$defs/tag" }, uniqueItems: true },
        },
        $defs: { tag: { type: "string", pattern: "^[a-z-]+$" } },
      },
    ],
    ["a recursive schema", { type: "object", properties: { children: { type: "array", items: { $ref: "#" } } } }],
    ["a chain of $refs", { $defs: { a: { $ref: "#/$defs/b" }, b: { type: "string" } }, $ref: "#/$defs/a" }],
    ["a property named $ref", { type: "object", properties: { $ref: { type: "string" } } }],
    ["$ref-looking data in examples", { examples: [{ $ref: "#/nope" }] }],
    ["an unknown format (an annotation)", { type: "string", format: "x-unknown" }],
    ["an unknown keyword", { type: "string", "x-display": { order: 1 } }],
    ["the schema true", true],
    ["the schema false", false],
    [
      "a draft-07 schema with definitions",
      { $schema: DRAFT_07, definitions: { s: { type: "string" } }, items: [{ $ref: "#/definitions/s" }] },
    ],
    ["a 2020-12 keyword in a draft-07 schema (an unknown keyword there)", { $schema: DRAFT_07, prefixItems: 3 }],
  ])("accepts %s", (_what, schema) => {
    expect(validator.checkSchema(schema)).toEqual([]);
  });

  it.each<[string, unknown, Problem[]]>([
    ['{"type": 12}', { type: 12 }, [badType("/type", "number")]],
    ['{"type": "strin"}', { type: "strin" }, [badType("/type", "string")]],
    ['{"minimum": "x"}', { minimum: "x" }, [{ path: "/minimum", message: "must be number, got string" }]],
    ['{"required": "a"}', { required: "a" }, [{ path: "/required", message: "must be array, got string" }]],
    [
      "duplicate required names",
      { required: ["a", "a"] },
      [{ path: "/required", message: "must not contain duplicate items (items 0 and 1 are equal)" }],
    ],
    [
      "a negative minLength deep inside",
      { properties: { a: { items: { minLength: -1 } } } },
      [{ path: "/properties/a/items/minLength", message: "must be >= 0" }],
    ],
    ["an empty anyOf", { anyOf: [] }, [{ path: "/anyOf", message: "must have at least 1 item, got 0" }]],
    [
      "additionalProperties that is not a schema",
      { additionalProperties: 5 },
      [{ path: "/additionalProperties", message: "must be object or boolean, got number" }],
    ],
    ["an invalid pattern", { pattern: "(" }, [{ path: "/pattern", message: 'must be a valid "regex" string' }]],
    [
      "an invalid patternProperties pattern",
      { patternProperties: { "[": { type: "string" } } },
      [{ path: "/patternProperties", message: 'property name "[" is invalid: must be a valid "regex" string' }],
    ],
    // Ordered by path (then message), whatever order the validator found them in.
    [
      "several problems at once",
      { type: 12, properties: { a: { minimum: "x" }, b: { maxItems: 1.5 } } },
      [
        { path: "/properties/a/minimum", message: "must be number, got string" },
        { path: "/properties/b/maxItems", message: "must be integer, got number" },
        badType("/type", "number"),
      ],
    ],
    [
      "draft-07: checked against the draft-07 meta-schema",
      { $schema: DRAFT_07, type: 12 },
      [badType("/type", "number")],
    ],
    [
      "draft-07: keywords beside $ref are still checked",
      { $schema: DRAFT_07, $ref: "#/definitions/a", definitions: { a: {} }, minimum: "x" },
      [{ path: "/minimum", message: "must be number, got string" }],
    ],
  ])("rejects %s", (_what, schema, problems) => {
    expect(validator.checkSchema(schema)).toEqual(problems);
  });

  it.each<[string, unknown, SchemaProblem[]]>([
    [
      "a dangling local $ref",
      { properties: { a: { $ref: "#/$defs/missing" } } },
      [unresolved("/properties/a/$ref", "#/$defs/missing")],
    ],
    [
      "a dangling draft-07 $ref",
      { $schema: DRAFT_07, items: { $ref: "#/definitions/nope" } },
      [unresolved("/items/$ref", "#/definitions/nope")],
    ],
    [
      "a remote $ref (never fetched)",
      { $ref: "https://example.com/remote.json" },
      [unresolved("/$ref", "https://example.com/remote.json")],
    ],
    ["a relative $ref to another document", { $ref: "other.json" }, [unresolved("/$ref", "other.json")]],
    [
      "a dangling $ref inside unused $defs",
      { $defs: { unused: { $ref: "#/$defs/gone" } } },
      [unresolved("/$defs/unused/$ref", "#/$defs/gone")],
    ],
    [
      "$dynamicRef (the runtime validator cannot follow it)",
      { $defs: { x: { $dynamicRef: "#meta" } } },
      [
        {
          path: "/$defs/x/$dynamicRef",
          message:
            "$dynamicRef is not supported by toolproof (its runtime validator cannot follow dynamic references); use $ref",
          refused: true,
        },
      ],
    ],
    [
      "two subschemas with one $id",
      { $id: "https://x.test/a", $defs: { b: { $id: "https://x.test/a" } } },
      [{ path: "", message: 'Duplicate schema URI "https://x.test/a".' }],
    ],
    // Patterns are tenant input: see pattern-engine.ts and patterns.test.ts.
    [
      "a pattern that can backtrack catastrophically, wherever it sits",
      {
        properties: { x: { pattern: "^(a+)+$" } },
        patternProperties: { "(\\d+)*": {} },
        propertyNames: { pattern: "^([a-z]*)*$" },
        items: { anyOf: [{ pattern: "^[a-z]+$" }, { pattern: "^(\\w+\\s?)*$" }] },
      },
      [
        // In the order of the walk over subschemas (schema-walk.ts), as reference problems are.
        exponential("/patternProperties/(\\d+)*", "(\\d+)*"),
        exponential("/items/anyOf/1/pattern", "^(\\w+\\s?)*$"),
        exponential("/propertyNames/pattern", "^([a-z]*)*$"),
        exponential("/properties/x/pattern", "^(a+)+$"),
      ],
    ],
    [
      "a pattern the linear-time engine cannot run",
      { properties: { x: { pattern: "^(a)\\1$" } } },
      [
        {
          path: "/properties/x/pattern",
          message:
            'toolproof refuses the pattern "^(a)\\\\1$": it uses a backreference, which toolproof\'s linear-time pattern engine cannot run',
          refused: true,
        },
      ],
    ],
    [
      "draft-07: a pattern beside $ref is ignored by the draft, so not refused",
      { $schema: DRAFT_07, $ref: "#/definitions/a", definitions: { a: { pattern: "(a*)*" } }, pattern: "(b*)*" },
      [exponential("/definitions/a/pattern", "(a*)*")],
    ],
  ])("rejects %s", (_what, schema, problems) => {
    expect(validator.checkSchema(schema)).toEqual(problems);
  });

  it.each<[unknown, string]>([
    [3, "number"],
    [null, "null"],
    ["{}", "string"],
    [[], "array"],
    [undefined, "undefined"],
  ])("rejects %j, which is not a schema at all, at the root", (schema, type) => {
    expect(validator.checkSchema(schema)).toEqual([
      { path: "", message: `a JSON Schema must be an object or a boolean, got ${type}` },
    ]);
  });

  it("rejects an unknown $schema at /$schema", () => {
    expect(validator.checkSchema({ $schema: "https://json-schema.org/draft/2019-09/schema" })).toEqual([
      {
        path: "/$schema",
        message:
          'unsupported $schema "https://json-schema.org/draft/2019-09/schema": use "https://json-schema.org/draft/2020-12/schema" (the default) or "http://json-schema.org/draft-07/schema#"',
      },
    ]);
  });

  it("rejects a document JSON cannot carry", () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic };
    expect(validator.checkSchema(cyclic)).toEqual([
      { path: "", message: 'not a JSON document: circular structure at "/properties/self"' },
    ]);
    expect(validator.checkSchema({ minimum: Number.NaN })).toEqual([
      { path: "", message: 'not a JSON document: not a JSON number at "/minimum"' },
    ]);
  });

  it("leaves the caller's schema untouched (no annotations, works on frozen objects)", () => {
    const schema = Object.freeze({
      type: "object",
      properties: Object.freeze({ a: Object.freeze({ $ref: "#/$defs/a" }) }),
      $defs: Object.freeze({ a: Object.freeze({ type: "string" }) }),
    });
    const before = JSON.stringify(schema);
    expect(validator.checkSchema(schema)).toEqual([]);
    expect(validator.validate(schema, { a: 1 })).toEqual([{ path: "/a", message: "must be string, got number" }]);
    expect(JSON.stringify(schema)).toBe(before);
    expect(Object.getOwnPropertyNames(schema.properties.a)).toEqual(["$ref"]);
  });
});
