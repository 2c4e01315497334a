/**
 * The fast path keyword by keyword at its edges: each table row is checked against a verdict
 * written out here AND against cfworker through the slow path, so a row documents both what
 * JSON Schema says and that the fast path copies cfworker. Then what falls back, values that are
 * not JSON, nesting limits, and a guard that no keyword cfworker reads goes unnoticed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  compileFastPath,
  FALLBACK_KEYWORDS,
  IMPLEMENTED_KEYWORDS,
} from "../../../src/adapters/json-schema/fast-path.js";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { REPO_ROOT } from "../../conformance/suite.js";
import { asSchema, fastPathFor, slowValidator, validateWarm } from "./fast-path-harness.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const slow = slowValidator();
const withFastPath = createRuntimeValidator();

function fastVerdict(schema: unknown, value: unknown): boolean {
  const fast = fastPathFor(schema);
  if (fast === undefined) throw new Error(`the fast path does not compile ${JSON.stringify(schema)}`);
  return fast(value);
}

function slowVerdict(schema: unknown, value: unknown): boolean {
  return slow.validate(asSchema(schema), value).length === 0;
}

/** [what, schema, value, valid]: values are written as JSON text where the spelling matters (1.0). */
type Row = [what: string, schema: unknown, value: unknown, valid: boolean];

const TREE = {
  $defs: {
    node: {
      type: "object",
      required: ["value"],
      properties: { value: { type: "number" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
      additionalProperties: false,
    },
  },
  $ref: "#/$defs/node",
};
const LINKED = { type: "object", properties: { next: { $ref: "#" }, n: { type: "integer" } } };
const LINKED_07 = {
  $schema: DRAFT_07,
  definitions: { list: { type: ["object", "null"], properties: { next: { $ref: "#/definitions/list" } } } },
  $ref: "#/definitions/list",
};
const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { next: nested(depth - 1, leaf) });

const ROWS: Row[] = [
  // Lengths count code points, not UTF-16 units.
  ["minLength 2: one astral character is one", { type: "string", minLength: 2 }, "😀", false],
  ["minLength 2: two astral characters", { type: "string", minLength: 2 }, "😀😀", true],
  ["minLength 3: two astral characters are four units but two code points", { minLength: 3 }, "😀😀", false],
  ["maxLength 1: one astral character", { maxLength: 1 }, "😀", true],
  ["maxLength 2: astral + ASCII", { maxLength: 2 }, "😀a", true],
  ["maxLength 2: three characters", { maxLength: 2 }, "😀ab", false],
  ["maxLength 1: a lone surrogate is one", { maxLength: 1 }, "\ud83d", true],
  ["minLength 1: empty string", { minLength: 1 }, "", false],
  ["minLength ignores non-strings", { minLength: 5 }, 12, true],
  // "integer" is a number without a fractional part, whatever its spelling.
  ["integer: 1.0", { type: "integer" }, JSON.parse("1.0"), true],
  ["integer: 1e2", { type: "integer" }, JSON.parse("1e2"), true],
  ["integer: -0", { type: "integer" }, JSON.parse("-0"), true],
  ["integer: 1.5", { type: "integer" }, 1.5, false],
  ["integer: a numeric string", { type: "integer" }, "1", false],
  ["integer or string: 2.0", { type: ["integer", "string"] }, JSON.parse("2.0"), true],
  ["number accepts integers", { type: "number" }, 7, true],
  ["type list: null", { type: ["string", "null"] }, null, true],
  ["type list: boolean", { type: ["string", "null"] }, false, false],
  ["an unknown type name matches nothing", { type: "any" }, 1, false],
  // enum and const compare JSON values: key order ignored, 1 and 1.0 equal, types never mixed.
  ["enum of objects: other key order", { enum: [{ a: 1, b: [1, 2] }, "x"] }, { b: [1, 2], a: 1 }, true],
  ["enum of objects: a missing key", { enum: [{ a: 1, b: 2 }] }, { a: 1 }, false],
  ["enum of objects: an extra key", { enum: [{ a: 1 }] }, { a: 1, b: 2 }, false],
  ["enum of arrays: order matters", { enum: [[1, 2]] }, [2, 1], false],
  ["enum: 1.0 is 1", { enum: [1, "a"] }, JSON.parse("1.0"), true],
  ["enum: '1' is not 1", { enum: [1] }, "1", false],
  ["enum: false is not 0", { enum: [0] }, false, false],
  ["enum: {} is not []", { enum: [{}] }, [], false],
  ["enum: null", { enum: [null] }, null, true],
  [
    "const: nested object, other key order",
    { const: { a: [1, { b: null, c: "x" }] } },
    { a: [1, { c: "x", b: null }] },
    true,
  ],
  ["const: -0 is 0", { const: 0 }, JSON.parse("-0"), true],
  ["const null: not {}", { const: null }, {}, false],
  ["const false: not 0", { const: false }, 0, false],
  // uniqueItems uses the same equality.
  ["uniqueItems: 1 and 1.0 are equal", { uniqueItems: true }, JSON.parse("[1, 1.0]"), false],
  [
    "uniqueItems: objects in other key order are equal",
    { uniqueItems: true },
    [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ],
    false,
  ],
  ["uniqueItems: 0 and false differ", { uniqueItems: true }, [0, false, null, "0", [], {}], true],
  ["uniqueItems: [1] and [true] differ", { uniqueItems: true }, [[1], [true]], true],
  [
    "uniqueItems: a late duplicate in a long array",
    { uniqueItems: true },
    [...Array.from({ length: 30 }, (_, i) => i), 29],
    false,
  ],
  [
    "uniqueItems: a long array without duplicates",
    { uniqueItems: true },
    Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? i : { i })),
    true,
  ],
  [
    "uniqueItems: equal objects in a long array",
    { uniqueItems: true },
    [...Array.from({ length: 20 }, (_, i) => i), { a: [1] }, { a: [1] }],
    false,
  ],
  ["uniqueItems false allows duplicates", { uniqueItems: false }, [1, 1], true],
  // Numbers.
  ["exclusiveMinimum 0: 0", { exclusiveMinimum: 0 }, 0, false],
  ["exclusiveMaximum 1: 0.999", { exclusiveMaximum: 1 }, 0.999, true],
  ["minimum 1: 1.0", { minimum: 1 }, JSON.parse("1.0"), true],
  ["maximum -1: 0", { maximum: -1 }, 0, false],
  ["multipleOf 0.1: 0.3 (not 3 in binary floating point)", { multipleOf: 0.1 }, 0.3, true],
  ["multipleOf 0.01: 19.99", { multipleOf: 0.01 }, 19.99, true],
  ["multipleOf 0.01: 0.075", { multipleOf: 0.01 }, 0.075, false],
  ["multipleOf 3: -9", { multipleOf: 3 }, -9, true],
  ["multipleOf 2: 1e300", { multipleOf: 2 }, 1e300, true],
  ["multipleOf 1.5: 4.5", { multipleOf: 1.5 }, 4.5, true],
  ["multipleOf 1e-8: 3e-7", { multipleOf: 1e-8 }, 3e-7, true],
  // Strings.
  ["pattern is unanchored", { pattern: "b+" }, "abbc", true],
  ["pattern with a Unicode property escape", { pattern: "^\\p{Lu}" }, "Émile", true],
  ["pattern: \\w is ASCII only", { pattern: "^\\w+$" }, "café", false],
  ["format date: leap day", { format: "date" }, "2024-02-29", true],
  ["format date: not a leap year", { format: "date" }, "2023-02-29", false],
  ["format email", { format: "email" }, "agent@example.com", true],
  ["format email: no domain", { format: "email" }, "agent@", false],
  ["format date-time", { format: "date-time" }, "2024-05-01T12:30:00+02:00", true],
  ["format uuid: too short", { format: "uuid" }, "2eb8aa08-aa98-11ea-b4aa", false],
  ["an unknown format is an annotation", { format: "x-ticket-id" }, "anything", true],
  ["formats ignore non-strings", { format: "email" }, 12, true],
  // Objects.
  ["required: a missing property", { required: ["a", "b"] }, { a: 1 }, false],
  ["required ignores non-objects", { required: ["a"] }, [1], true],
  [
    "additionalProperties false: only named ones",
    { properties: { a: {} }, additionalProperties: false },
    { a: 1, b: 2 },
    false,
  ],
  [
    "additionalProperties: patterns count as named",
    { patternProperties: { "^x-": {} }, additionalProperties: false },
    { "x-a": 1 },
    true,
  ],
  [
    "additionalProperties schema",
    { properties: { a: {} }, additionalProperties: { type: "string" } },
    { a: 1, b: "s" },
    true,
  ],
  [
    "patternProperties and properties both apply",
    { properties: { ab: { type: "string" } }, patternProperties: { "^a": { minLength: 3 } } },
    { ab: "xy" },
    false,
  ],
  ["propertyNames", { propertyNames: { pattern: "^[a-z]+$" } }, { ok: 1, "Not-ok": 2 }, false],
  ["minProperties / maxProperties", { minProperties: 1, maxProperties: 2 }, { a: 1, b: 2, c: 3 }, false],
  [
    "a property named __proto__",
    { properties: { ["__proto__"]: { type: "string" } } },
    JSON.parse('{"__proto__": 1}'),
    false,
  ],
  ["dependentRequired", { dependentRequired: { card: ["cvc"] } }, { card: "4242" }, false],
  ["dependentSchemas", { dependentSchemas: { card: { required: ["cvc"] } } }, { card: "4242", cvc: "1" }, true],
  ["dependencies (cfworker applies it in 2020-12 too)", { dependencies: { card: ["cvc"] } }, { card: "4242" }, false],
  // Arrays.
  ["items: every item", { items: { type: "integer" } }, [1, 2, 3.5], false],
  ["prefixItems then items", { prefixItems: [{ type: "string" }], items: { type: "integer" } }, ["a", 1, 2], true],
  [
    "prefixItems then items: a bad tail",
    { prefixItems: [{ type: "string" }], items: { type: "integer" } },
    ["a", "b"],
    false,
  ],
  [
    "draft-07 items array and additionalItems",
    { $schema: DRAFT_07, items: [{ type: "string" }], additionalItems: false },
    ["a", 1],
    false,
  ],
  [
    "draft-07 items array: shorter arrays",
    { $schema: DRAFT_07, items: [{ type: "string" }, { type: "number" }], additionalItems: false },
    ["a"],
    true,
  ],
  ["minItems / maxItems", { minItems: 2, maxItems: 3 }, [1], false],
  ["contains", { contains: { const: 2 } }, [1, 2, 3], true],
  ["contains: an empty array", { contains: {} }, [], false],
  ["contains with maxContains", { contains: { type: "integer" }, maxContains: 1 }, [1, 2], false],
  ["contains with minContains 0 on an empty array", { contains: { type: "integer" }, minContains: 0 }, [], true],
  // Applicators.
  ["anyOf: nullable string", { anyOf: [{ type: "string" }, { type: "null" }] }, null, true],
  ["anyOf: neither", { anyOf: [{ type: "string" }, { type: "null" }] }, 1, false],
  ["oneOf: two matches", { oneOf: [{ type: "integer" }, { minimum: 0 }] }, 1, false],
  ["oneOf: exactly one", { oneOf: [{ type: "integer" }, { minimum: 0 }] }, -1, true],
  ["allOf", { allOf: [{ minimum: 0 }, { maximum: 1 }] }, 2, false],
  ["not", { not: { type: "string" } }, 1, true],
  [
    "if/then: then applies",
    { if: { properties: { kind: { const: "card" } } }, then: { required: ["token"] } },
    { kind: "card" },
    false,
  ],
  [
    "if/else: else applies",
    { if: { required: ["a"] }, then: { required: ["b"] }, else: { required: ["c"] } },
    {},
    false,
  ],
  ["then without if is ignored", { then: false }, 1, true],
  // References.
  [
    "recursive $ref: a valid tree",
    TREE,
    { value: 1, children: [{ value: 2, children: [{ value: 3 }] }, { value: 4 }] },
    true,
  ],
  [
    "recursive $ref: a bad leaf deep down",
    TREE,
    { value: 1, children: [{ value: 2, children: [{ value: "3" }] }] },
    false,
  ],
  ["recursive $ref: an unknown property deep down", TREE, { value: 1, children: [{ value: 2, extra: true }] }, false],
  ['$ref "#": a linked list', LINKED, nested(20, { n: 1 }), true],
  ['$ref "#": a bad node', LINKED, nested(20, { n: 1.5 }), false],
  [
    "2020-12: $ref beside other keywords (both apply)",
    { $defs: { s: { type: "string" } }, $ref: "#/$defs/s", maxLength: 2 },
    "abc",
    false,
  ],
  ["draft-07: definitions and a recursive $ref", LINKED_07, nested(10, null), true],
  [
    "draft-07: keywords beside $ref are ignored",
    { $schema: DRAFT_07, definitions: { s: { type: "string" } }, $ref: "#/definitions/s", maxLength: 2 },
    "abc",
    true,
  ],
  ["$ref to the draft-07 meta-schema", { $ref: "http://json-schema.org/draft-07/schema#" }, { type: 12 }, false],
  // Boolean schemas, annotations and unknown keywords.
  ["true", true, { anything: [1] }, true],
  ["false", false, null, false],
  [
    "annotations and unknown keywords do nothing",
    {
      title: "t",
      description: "d",
      default: 1,
      examples: [2],
      $comment: "c",
      readOnly: true,
      deprecated: true,
      contentMediaType: "application/json",
      "x-vendor": { minimum: 5 },
      nullable: true,
    },
    1,
    true,
  ],
];

describe("fast path: keywords at their edges", () => {
  it.each(ROWS)("%s", (_what, schema, value, valid) => {
    expect(fastVerdict(schema, value)).toBe(valid);
    expect(slowVerdict(schema, value)).toBe(valid);
    // Through the runtime validator too: the fast path on or off, the same problems.
    expect(validateWarm(withFastPath, asSchema(schema), value)).toEqual(slow.validate(asSchema(schema), value));
  });
});

describe("fast path: what falls back to cfworker", () => {
  const FALLBACKS: Array<[what: string, schema: unknown]> = [
    ["$dynamicRef", { $dynamicAnchor: "a", $dynamicRef: "#a" }],
    ["$recursiveRef", { $recursiveAnchor: true, properties: { a: { $recursiveRef: "#" } } }],
    ["unevaluatedProperties", { properties: { a: {} }, unevaluatedProperties: false }],
    ["unevaluatedItems deep inside", { properties: { list: { prefixItems: [{}], unevaluatedItems: false } } }],
    ["an unresolvable $ref", { $ref: "#/$defs/missing" }],
    ["a remote $ref nothing provides", { $ref: "https://example.com/schemas/thing.json" }],
    ["a pattern cfworker cannot compile", { pattern: "(" }],
    ["a pattern property cfworker cannot compile", { patternProperties: { "[": {} } }],
    ["minLength given as a string", { minLength: "2" }],
    ["draft-04 boolean exclusiveMinimum", { $schema: DRAFT_07, minimum: 1, exclusiveMinimum: true }],
    ["multipleOf 0", { multipleOf: 0 }],
    ['a format named like an Object.prototype member ("toString")', { format: "toString" }],
    ["a format that is not a string", { format: ["date"] }],
    ["enum that is not a list", { enum: "abc" }],
    ["required that is not a list of names", { required: "a" }],
    ["uniqueItems that is not a boolean", { uniqueItems: 1 }],
    ["a subschema that is a number", { items: 5 }],
    ["a subschema applied to the same value endlessly", { anyOf: [{ type: "string" }, { $ref: "#" }] }],
    [
      "a $ref cycle through $defs",
      { $defs: { a: { allOf: [{ $ref: "#/$defs/b" }] }, b: { not: { $ref: "#/$defs/a" } } }, $ref: "#/$defs/a" },
    ],
    ["a chain of 40 subschemas on the same value", chainSchema(40)],
    ["an unsupported $schema (unusable)", { $schema: "http://json-schema.org/draft-04/schema#" }],
  ];

  it.each(FALLBACKS)("%s", (_what, schema) => {
    const reasons: string[] = [];
    expect(fastPathFor(schema, "2020-12", undefined, (reason) => reasons.push(reason))).toBeUndefined();
    expect(reasons).toHaveLength(1);
  });

  it("still validates those schemas through cfworker, with the same problems", () => {
    for (const [, schema] of FALLBACKS) {
      for (const value of [1, "(", { a: 1 }, [1, 2]]) {
        expect(validateWarm(withFastPath, asSchema(schema), value)).toEqual(slow.validate(asSchema(schema), value));
      }
    }
  });

  it("compiles a deeply nested schema, and leaves values nested beyond its budget to cfworker", () => {
    const schema = nestedSchema(200);
    const fast = fastPathFor(schema);
    expect(fast?.(nested(40, {}))).toBe(true);
    expect(fast?.(nested(40, { next: "x" }))).toBe(false);
    expect(slowVerdict(schema, nested(200, 1))).toBe(true);
    expect(fast?.(nested(200, 1))).toBe(false);
    expect(validateWarm(withFastPath, asSchema(schema), nested(200, 1))).toEqual(
      slow.validate(asSchema(schema), nested(200, 1)),
    );
  });

  it("compiles a chain of subschemas on the same value within MAX_CHAIN", () => {
    expect(fastPathFor(chainSchema(20))?.("x")).toBe(true);
  });
});

function nestedSchema(depth: number): unknown {
  return depth === 0 ? { type: "integer" } : { type: "object", properties: { next: nestedSchema(depth - 1) } };
}

function chainSchema(length: number): unknown {
  return length === 0 ? { type: "string" } : { allOf: [chainSchema(length - 1)] };
}

describe("fast path: values that are not JSON", () => {
  // A function and undefined inside values, a hole in an array: cfworker throws wherever it
  // meets one with an object schema, and accepts it where it never looks.
  const fn = () => 1;
  const holes: unknown[] = [1];
  holes[2] = 3;
  const hidden: Record<string, unknown> = { b: 1 };
  Object.defineProperty(hidden, "a", { value: undefined, enumerable: false });
  const CASES: Array<[what: string, schema: unknown, value: unknown]> = [
    ["undefined at the top, schema true", true, undefined],
    ["a function at the top", {}, fn],
    ["a bigint at the top", { type: "integer" }, 10n],
    ["undefined under a property schema", { properties: { a: { type: "string" } } }, { a: undefined }],
    ["undefined under a boolean property schema", { properties: { a: true } }, { a: undefined }],
    ["undefined where no schema looks", { type: "object" }, { a: undefined }],
    ["a hole in an array", { items: { type: "integer" } }, holes],
    [
      "hidden behind the anyOf branch that passed first",
      { anyOf: [{}, { properties: { a: { type: "string" } } }] },
      { a: undefined },
    ],
    [
      "hidden behind an anyOf branch that failed early",
      { anyOf: [{ type: "string", properties: { a: {} } }, { type: "object" }] },
      { a: fn },
    ],
    ["hidden behind a failing not", { not: { required: ["b"], properties: { a: {} } } }, { a: undefined }],
    ["hidden behind a failing if", { if: { required: ["b"], properties: { a: {} } }, else: true }, { a: undefined }],
    [
      "hidden behind an oneOf branch",
      { oneOf: [{ type: "object" }, { type: "string", properties: { a: {} } }] },
      { a: undefined },
    ],
    ["an item contains does not match", { contains: { type: "integer" } }, [1, undefined]],
    [
      "a nested function, schema that never looks",
      { anyOf: [{ type: "string" }, { type: "object" }] },
      { a: { b: fn } },
    ],
    [
      "a non-enumerable property a skipped branch names",
      { anyOf: [{ required: ["b"] }, { properties: { a: {} } }] },
      hidden,
    ],
    ["a non-enumerable property a property schema names", { properties: { a: { type: "string" } } }, hidden],
  ];

  it.each(CASES)("%s: same problems with and without the fast path", (_what, schema, value) => {
    expect(validateWarm(withFastPath, asSchema(schema), value)).toEqual(slow.validate(asSchema(schema), value));
  });

  it("never calls such a value valid where cfworker would throw", () => {
    for (const [, schema, value] of CASES) {
      const problems = slow.validate(asSchema(schema), value);
      if (problems.length > 0) expect(fastPathFor(schema)?.(value) ?? false).toBe(false);
    }
  });
});

describe("fast path: nesting", () => {
  it("leaves values nested deeper than its budget to cfworker, which answers as before", () => {
    const fast = fastPathFor(LINKED);
    expect(fast?.(nested(30, { n: 1 }))).toBe(true);
    const deep = nested(1000, { n: 1 });
    expect(fast?.(deep)).toBe(false);
    expect(validateWarm(withFastPath, LINKED, deep)).toEqual(slow.validate(LINKED, deep));
  });

  it("gives up (invalid) on a cyclic value instead of overflowing", () => {
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic.next = cyclic;
    expect(fastPathFor(LINKED)?.(cyclic)).toBe(false);
    expect(fastPathFor({ anyOf: [{ type: "object" }, { properties: { next: {} } }] })?.(cyclic)).toBe(false);
  });
});

describe("fast path: no code generation", () => {
  it("compiles and runs with eval and Function taken away (as in a Workers request)", () => {
    const realFunction = globalThis.Function;
    // biome-ignore lint/security/noGlobalEval: kept to put back after the test takes eval away
    const realEval = globalThis.eval;
    const refuse = () => {
      throw new EvalError("code generation from strings disallowed");
    };
    let verdicts: boolean[];
    try {
      // SAFETY: a stand-in with the same call shapes, only for the duration of this block.
      globalThis.Function = refuse as unknown as FunctionConstructor;
      globalThis.eval = refuse;
      const fast = compileFastPath(TREE, "2020-12");
      verdicts = [fast?.({ value: 1, children: [{ value: 2 }] }) ?? false, fast?.({ value: "1" }) ?? true];
    } finally {
      globalThis.Function = realFunction;
      globalThis.eval = realEval;
    }
    expect(verdicts).toEqual([true, false]);
  });
});

describe("fast path: every keyword cfworker reads is accounted for", () => {
  it("implements or falls back on exactly the keywords cfworker's validate destructures", () => {
    // Read from cfworker's source, so an upgrade that starts reading a new keyword fails here
    // instead of letting the fast path ignore it.
    const source = readFileSync(
      path.join(REPO_ROOT, "node_modules/@cfworker/json-schema/dist/esm/validate.js"),
      "utf8",
    );
    const destructuring = /const \{([^}]*)\} = schema;/.exec(source)?.[1];
    expect(destructuring).toBeDefined();
    const read = (destructuring ?? "")
      .split(",")
      .map((entry) => entry.split(":")[0]?.trim() ?? "")
      .filter((name) => name !== "" && !name.startsWith("__absolute_"));
    expect([...read].sort()).toEqual(
      [...IMPLEMENTED_KEYWORDS, ...FALLBACK_KEYWORDS]
        .filter((k) => k !== "$dynamicRef" && k !== "$dynamicAnchor")
        .sort(),
    );
  });
});
