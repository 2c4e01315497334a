import { describe, expect, it } from "vitest";
import { LIMITS, parseDefinition } from "../../../src/core/contract/index.js";
import { utf8Length } from "../../../src/core/utf8.js";
import type { Problem } from "../../../src/core/json.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";

function base(): JsonObject {
  return {
    schema_version: 1,
    default_variant: "ok",
    variants: { ok: { result: { reference: "R-1" } } },
    examples: [{ variant: "ok", input: {}, expected: { reference: "R-1" } }],
  };
}

/** The parse errors of `raw` ([] when it parses). */
function errorsOf(raw: unknown): Problem[] {
  const result = parseDefinition(raw);
  return result.ok ? [] : result.errors;
}

function withVariant(variant: JsonValue): JsonObject {
  return { ...base(), variants: { ok: variant } };
}

function rule(overrides: JsonObject = {}): JsonObject {
  return { when: [{ source: "input", path: "id", op: "eq", value: "x" }], ...overrides };
}

function condition(overrides: JsonObject): JsonObject {
  return withVariant({
    result: 1,
    rules: [{ when: [{ source: "input", path: "id", op: "eq", value: "x", ...overrides }] }],
  });
}

const P = "/variants/ok/rules/0/when/0";

describe("parseDefinition accepts", () => {
  it("a valid definition, as a fresh copy", () => {
    const raw = base();
    const result = parseDefinition(raw);
    expect(result).toEqual({ ok: true, definition: raw });
    if (result.ok) expect(result.definition).not.toBe(raw);
  });

  it("the seed's example", () => {
    const seed = {
      schema_version: 1,
      default_variant: "success",
      initial_state: { reference: "TEST-742" },
      variants: {
        success: {
          result: { reference: { $state: "reference" } },
          set_state: { booked: true },
          delay_ms: 0,
          rules: [],
        },
      },
      examples: [{ variant: "success", input: {}, expected: { reference: "TEST-742" } }],
    };
    expect(parseDefinition(seed)).toEqual({ ok: true, definition: seed });
  });

  it.each<[string, JsonValue]>([
    ["an object with two keys, one an operator (literal)", { $input: "a", other: 1 }],
    ["an unknown $ key (literal)", { $foo: "bar" }],
    ["an empty path for the whole value", { $input: "" }],
    ["a key that merely contains __proto__", { $state: "a.__proto__x" }],
    // SAFETY: JSON.parse of a JSON text literal.
    ["a __proto__ key as data", JSON.parse('{"__proto__": 1}') as JsonValue],
  ])("%s", (_name, result) => {
    expect(errorsOf(withVariant({ result }))).toEqual([]);
  });
});

describe("limits, at and just past their bounds", () => {
  function sized(bytes: number, filler = "a"): JsonObject {
    const raw = { ...base(), initial_state: { pad: "" } };
    const overhead = utf8Length(JSON.stringify(raw));
    const fill = bytes - overhead;
    const unit = utf8Length(filler);
    // SAFETY: initial_state was set to an object two lines above.
    (raw.initial_state as JsonObject).pad = filler.repeat(Math.floor(fill / unit)) + "a".repeat(fill % unit);
    expect(utf8Length(JSON.stringify(raw))).toBe(bytes);
    return raw;
  }

  it.each([
    ["ASCII", "a"],
    ["two-byte UTF-8", "é"],
    ["four-byte UTF-8", "😀"],
  ])("size: 102,400 bytes of %s JSON pass, 102,401 fail", (_name, filler) => {
    expect(errorsOf(sized(LIMITS.maxDefinitionBytes, filler))).toEqual([]);
    expect(errorsOf(sized(LIMITS.maxDefinitionBytes + 1, filler))).toEqual([
      { path: "", message: "expected at most 102400 bytes of UTF-8 JSON; the definition is 102401 bytes" },
    ]);
  });

  function variants(count: number): JsonObject {
    const names = Array.from({ length: count }, (_, i) => `v${i}`);
    return {
      schema_version: 1,
      default_variant: "v0",
      variants: Object.fromEntries(names.map((name) => [name, { result: name }])),
      examples: names.map((name) => ({ variant: name, input: {}, expected: name })),
    };
  }

  it("variants: 1 and 30 pass, 0 and 31 fail", () => {
    expect(errorsOf(variants(1))).toEqual([]);
    expect(errorsOf(variants(30))).toEqual([]);
    expect(errorsOf(variants(31))).toEqual([{ path: "/variants", message: "expected 1 to 30 variants; found 31" }]);
    expect(errorsOf({ ...variants(1), variants: {} })).toEqual([
      { path: "/variants", message: "expected 1 to 30 variants; found 0" },
      { path: "/default_variant", message: 'expected the name of one of the variants (); got "v0"' },
      { path: "/examples/0/variant", message: 'expected the name of one of the variants; there is no variant "v0"' },
    ]);
  });

  it.each<[string, boolean]>([
    ["a", true],
    ["x".repeat(64), true],
    ["x".repeat(65), false],
    ["A-z_0.9", true],
    ["has space", false],
    ["ünïcode", false],
    ["a/b", false],
  ])("variant name %j valid: %s", (name, valid) => {
    const raw = {
      ...base(),
      default_variant: name,
      variants: { [name]: { result: 1 } },
      examples: [{ variant: name, input: {}, expected: 1 }],
    };
    const path = `/variants/${name.replace(/\//g, "~1")}`;
    expect(errorsOf(raw)).toEqual(
      valid
        ? []
        : [
            {
              path,
              message: `expected a variant name of 1 to 64 characters from A-Z a-z 0-9 _ . -; got ${JSON.stringify(name)}`,
            },
          ],
    );
  });

  it("the empty variant name is refused", () => {
    const raw = {
      ...base(),
      default_variant: "",
      variants: { "": { result: 1 } },
      examples: [{ variant: "", input: {}, expected: 1 }],
    };
    expect(errorsOf(raw)).toEqual([
      { path: "/variants/", message: 'expected a variant name of 1 to 64 characters from A-Z a-z 0-9 _ . -; got ""' },
    ]);
  });

  it("rules: 0 and 100 pass, 101 fail", () => {
    const rules = (n: number) => withVariant({ result: 1, rules: Array.from({ length: n }, () => rule()) });
    expect(errorsOf(rules(0))).toEqual([]);
    expect(errorsOf(rules(100))).toEqual([]);
    expect(errorsOf(rules(101))).toEqual([
      { path: "/variants/ok/rules", message: "expected at most 100 rules per variant; found 101" },
    ]);
  });

  it("conditions: 1 and 20 pass, 0 and 21 fail", () => {
    const when = (n: number) =>
      withVariant({
        result: 1,
        rules: [{ when: Array.from({ length: n }, () => ({ source: "input", path: "a", op: "exists", value: true })) }],
      });
    expect(errorsOf(when(1))).toEqual([]);
    expect(errorsOf(when(20))).toEqual([]);
    expect(errorsOf(when(0))).toEqual([
      { path: "/variants/ok/rules/0/when", message: "expected 1 to 20 conditions; found 0" },
    ]);
    expect(errorsOf(when(21))).toEqual([
      { path: "/variants/ok/rules/0/when", message: "expected 1 to 20 conditions; found 21" },
    ]);
  });

  it("examples: 1 and 100 pass, 0 and 101 fail", () => {
    const examples = (n: number) => ({
      ...base(),
      examples: Array.from({ length: n }, () => ({ variant: "ok", input: {}, expected: 1 })),
    });
    expect(errorsOf(examples(1))).toEqual([]);
    expect(errorsOf(examples(100))).toEqual([]);
    expect(errorsOf(examples(101))).toEqual([{ path: "/examples", message: "expected 1 to 100 examples; found 101" }]);
    expect(errorsOf(examples(0))).toEqual([
      { path: "/examples", message: "expected 1 to 100 examples; found 0" },
      {
        path: "/variants/ok",
        message: 'expected at least one example with "variant": "ok" (every variant needs a checked example)',
      },
    ]);
  });

  it.each<[JsonValue, boolean]>([
    [0, true],
    [30000, true],
    [-1, false],
    [30001, false],
    [1.5, false],
    ["10", false],
    [null, false],
  ])("delay_ms %j valid: %s (on variants and rules)", (delay, valid) => {
    const message = `expected an integer number of milliseconds from 0 to 30000; got ${JSON.stringify(delay)}`;
    expect(errorsOf(withVariant({ result: 1, delay_ms: delay }))).toEqual(
      valid ? [] : [{ path: "/variants/ok/delay_ms", message }],
    );
    expect(errorsOf(withVariant({ result: 1, rules: [rule({ delay_ms: delay })] }))).toEqual(
      valid ? [] : [{ path: "/variants/ok/rules/0/delay_ms", message }],
    );
  });

  it.each<["days" | "hours", JsonValue, boolean]>([
    ["days", -3660, true],
    ["days", 3660, true],
    ["days", -3661, false],
    ["days", 3661, false],
    ["days", 1.5, false],
    ["days", "1", false],
    ["days", { $input: "n" }, false],
    ["hours", -24, true],
    ["hours", 24, true],
    ["hours", -25, false],
    ["hours", 25, false],
    ["hours", 0.5, false],
  ])("$dateAdd %s %j valid: %s", (key, value, valid) => {
    const range = key === "days" ? "from -3660 to 3660" : "from -24 to 24";
    expect(errorsOf(withVariant({ result: { $dateAdd: { value: { $input: "d" }, [key]: value } } }))).toEqual(
      valid
        ? []
        : [
            {
              path: `/variants/ok/result/$dateAdd/${key}`,
              message: `expected an integer ${range}; got ${JSON.stringify(value)}`,
            },
          ],
    );
  });
});

describe("structure", () => {
  it.each<[string, unknown, Problem[]]>([
    ["null", null, [{ path: "", message: "expected a JSON object (the mock definition); got null" }]],
    ["an array", [], [{ path: "", message: "expected a JSON object (the mock definition); got array" }]],
    ["a string", "{}", [{ path: "", message: "expected a JSON object (the mock definition); got string" }]],
    [
      "an empty object",
      {},
      [
        { path: "/schema_version", message: "required: expected 1 or 2" },
        { path: "/variants", message: "required: expected an object of named variants" },
        { path: "/default_variant", message: "required: expected the name of one of the variants" },
        { path: "/examples", message: "required: expected an array of 1 to 100 checked examples" },
      ],
    ],
  ])("%s", (_name, raw, errors) => {
    expect(errorsOf(raw)).toEqual(errors);
  });

  it.each<[JsonValue, string]>([
    [3, "expected 1 or 2; got 3"],
    ["1", 'expected 1 or 2; got "1"'],
    [null, "expected 1 or 2; got null"],
  ])("schema_version %j", (version, message) => {
    expect(errorsOf({ ...base(), schema_version: version })).toEqual([{ path: "/schema_version", message }]);
  });

  it.each<[string, JsonObject, Problem]>([
    [
      "root",
      { ...base(), extra: 1 },
      {
        path: "/extra",
        message:
          'unknown key "extra"; expected only schema_version, default_variant, initial_state, dataset, variants, examples',
      },
    ],
    [
      "variant",
      withVariant({ result: 1, reslt: 2 }),
      { path: "/variants/ok/reslt", message: 'unknown key "reslt"; expected only result, set_state, delay_ms, rules' },
    ],
    [
      "rule",
      withVariant({ result: 1, rules: [rule({ then: 1 })] }),
      {
        path: "/variants/ok/rules/0/then",
        message: 'unknown key "then"; expected only when, result, set_state, delay_ms',
      },
    ],
    [
      "condition",
      condition({ negate: true }),
      { path: `${P}/negate`, message: 'unknown key "negate"; expected only source, path, op, value' },
    ],
    [
      "example",
      { ...base(), examples: [{ variant: "ok", input: {}, expected: { reference: "R-1" }, name: "x" }] },
      { path: "/examples/0/name", message: 'unknown key "name"; expected only variant, input, state, expected' },
    ],
    [
      "$dateAdd",
      withVariant({ result: { $dateAdd: { value: "2024-01-01", weeks: 1 } } }),
      {
        path: "/variants/ok/result/$dateAdd/weeks",
        message: 'unknown key "weeks" in $dateAdd; expected only value, days and hours',
      },
    ],
  ])("unknown keys are refused in the %s", (_name, raw, problem) => {
    expect(errorsOf(raw)).toEqual([problem]);
  });

  it.each<[string, JsonObject, Problem[]]>([
    [
      "default_variant naming nothing",
      { ...base(), default_variant: "nope" },
      [{ path: "/default_variant", message: 'expected the name of one of the variants (ok); got "nope"' }],
    ],
    [
      "default_variant not a string",
      { ...base(), default_variant: 1 },
      [{ path: "/default_variant", message: "expected a variant name (string); got number" }],
    ],
    [
      "initial_state not an object",
      { ...base(), initial_state: [] },
      [{ path: "/initial_state", message: "expected an object; got array" }],
    ],
    [
      "variant not an object",
      { ...base(), variants: { ok: 1 } },
      [
        {
          path: "/variants/ok",
          message: "expected a variant object {result, set_state?, delay_ms?, rules?}; got number",
        },
      ],
    ],
    [
      "variant without result",
      withVariant({}),
      [{ path: "/variants/ok/result", message: "required: expected the result template (any JSON value)" }],
    ],
    [
      "rules not an array",
      withVariant({ result: 1, rules: {} }),
      [{ path: "/variants/ok/rules", message: "expected an array of rules; got object" }],
    ],
    [
      "rule without when",
      withVariant({ result: 1, rules: [{ result: 2 }] }),
      [{ path: "/variants/ok/rules/0/when", message: "required: expected an array of 1 to 20 conditions" }],
    ],
    [
      "rule not an object",
      withVariant({ result: 1, rules: [[]] }),
      [
        {
          path: "/variants/ok/rules/0",
          message: "expected a rule object {when, result?, set_state?, delay_ms?}; got array",
        },
      ],
    ],
    [
      "example variant unknown",
      {
        ...base(),
        examples: [
          { variant: "ok", input: {}, expected: 1 },
          { variant: "gone", input: {}, expected: 1 },
        ],
      },
      [
        {
          path: "/examples/1/variant",
          message: 'expected the name of one of the variants; there is no variant "gone"',
        },
      ],
    ],
    [
      "example input not an object",
      { ...base(), examples: [{ variant: "ok", input: [], expected: 1 }] },
      [{ path: "/examples/0/input", message: "expected an arguments object; got array" }],
    ],
    [
      "example state not an object",
      { ...base(), examples: [{ variant: "ok", input: {}, state: 1, expected: 1 }] },
      [{ path: "/examples/0/state", message: "expected an object (the pre-call state); got number" }],
    ],
    [
      "example without expected",
      { ...base(), examples: [{ variant: "ok", input: {} }] },
      [{ path: "/examples/0/expected", message: "required: expected the exact result the call must render" }],
    ],
    [
      "example without input",
      { ...base(), examples: [{ variant: "ok", expected: 1 }] },
      [{ path: "/examples/0/input", message: "required: expected the arguments object of the example call" }],
    ],
    [
      "variant without an example",
      { ...base(), variants: { ok: { result: 1 }, other: { result: 2 } } },
      [
        {
          path: "/variants/other",
          message: 'expected at least one example with "variant": "other" (every variant needs a checked example)',
        },
      ],
    ],
  ])("%s", (_name, raw, errors) => {
    expect(errorsOf(raw)).toEqual(errors);
  });
});

describe("conditions", () => {
  it.each<[string, JsonObject, Problem[]]>([
    ["in with an array", { op: "in", value: ["a"] }, []],
    [
      "in without an array",
      { op: "in", value: "a" },
      [{ path: `${P}/value`, message: 'expected an array for op "in"; got string' }],
    ],
    ["exists with a boolean", { op: "exists", value: false }, []],
    [
      "exists without a boolean",
      { op: "exists", value: "yes" },
      [{ path: `${P}/value`, message: 'expected true or false for op "exists"; got string' }],
    ],
    ["eq with any value", { op: "eq", value: { deep: [1] } }, []],
    ["an unknown op", { op: "gt" }, [{ path: `${P}/op`, message: 'expected one of eq, ne, in, exists; got "gt"' }]],
    [
      "an unknown source",
      { source: "env" },
      [{ path: `${P}/source`, message: 'expected "input" or "state"; got "env"' }],
    ],
    [
      "a non-string path",
      { path: 1 },
      [{ path: `${P}/path`, message: "expected a dot-separated path string; got number" }],
    ],
    [
      "an empty segment",
      { path: "a..b" },
      [{ path: `${P}/path`, message: 'expected dot-separated keys without empty segments; got "a..b"' }],
    ],
    [
      "__proto__",
      { path: "__proto__.x" },
      [
        {
          path: `${P}/path`,
          message: 'path segment "__proto__" is not allowed (__proto__, prototype and constructor are reserved)',
        },
      ],
    ],
    [
      "prototype",
      { path: "a.prototype" },
      [
        {
          path: `${P}/path`,
          message: 'path segment "prototype" is not allowed (__proto__, prototype and constructor are reserved)',
        },
      ],
    ],
    [
      "constructor",
      { path: "constructor" },
      [
        {
          path: `${P}/path`,
          message: 'path segment "constructor" is not allowed (__proto__, prototype and constructor are reserved)',
        },
      ],
    ],
  ])("%s", (_name, overrides, errors) => {
    expect(errorsOf(condition(overrides))).toEqual(errors);
  });

  it("every field is required", () => {
    expect(errorsOf(withVariant({ result: 1, rules: [{ when: [{}] }] }))).toEqual([
      { path: `${P}/source`, message: 'required: expected "input" or "state"' },
      { path: `${P}/path`, message: 'required: expected a dot-separated path ("" for the whole value)' },
      { path: `${P}/op`, message: "required: expected one of eq, ne, in, exists" },
      { path: `${P}/value`, message: "required: expected a JSON value to compare with" },
    ]);
  });
});

describe("set_state", () => {
  it.each<[string, JsonObject, Problem[]]>([
    ["nested paths", { "a.b": 1, "a.c": 2, d: 3 }, []],
    [
      "one key a prefix of another",
      { a: 1, "a.b": 2 },
      [
        {
          path: "/variants/ok/set_state/a.b",
          message: 'expected keys that are not prefixes of one another; "a" already sets a value containing "a.b"',
        },
      ],
    ],
    [
      "a deeper prefix",
      { "x.y.z": 1, "x.y": 2 },
      [
        {
          path: "/variants/ok/set_state/x.y.z",
          message: 'expected keys that are not prefixes of one another; "x.y" already sets a value containing "x.y.z"',
        },
      ],
    ],
    ["a string prefix that is not a path prefix", { a: 1, ab: 2, "a_b.c": 3 }, []],
    [
      "an empty key",
      { "": 1 },
      [{ path: "/variants/ok/set_state/", message: "expected a non-empty dot-separated path" }],
    ],
    [
      "__proto__",
      { "__proto__.x": 1 },
      [
        {
          path: "/variants/ok/set_state/__proto__.x",
          message: 'path segment "__proto__" is not allowed (__proto__, prototype and constructor are reserved)',
        },
      ],
    ],
    [
      "constructor",
      { "a.constructor": 1 },
      [
        {
          path: "/variants/ok/set_state/a.constructor",
          message: 'path segment "constructor" is not allowed (__proto__, prototype and constructor are reserved)',
        },
      ],
    ],
    [
      "a bad template value",
      { a: { $input: 5 } },
      [{ path: "/variants/ok/set_state/a/$input", message: "expected a dot-separated path string for $input; got 5" }],
    ],
  ])("%s", (_name, setState, errors) => {
    expect(errorsOf(withVariant({ result: 1, set_state: setState }))).toEqual(errors);
  });

  it("is checked on rules too, and must be an object", () => {
    expect(
      errorsOf(withVariant({ result: 1, rules: [rule({ set_state: { b: 1, "b.c": 1 } })], set_state: [] })),
    ).toEqual([
      { path: "/variants/ok/set_state", message: "expected an object of state paths to value templates; got array" },
      {
        path: "/variants/ok/rules/0/set_state/b.c",
        message: 'expected keys that are not prefixes of one another; "b" already sets a value containing "b.c"',
      },
    ]);
  });
});

describe("expressions", () => {
  const R = "/variants/ok/result";
  it.each<[string, JsonValue, Problem[]]>([
    [
      "$input with a number",
      { $input: 1 },
      [{ path: `${R}/$input`, message: "expected a dot-separated path string for $input; got 1" }],
    ],
    [
      "$state with null",
      { $state: null },
      [{ path: `${R}/$state`, message: "expected a dot-separated path string for $state; got null" }],
    ],
    [
      "$input through __proto__",
      { $input: "__proto__" },
      [
        {
          path: `${R}/$input`,
          message: 'path segment "__proto__" is not allowed (__proto__, prototype and constructor are reserved)',
        },
      ],
    ],
    [
      "$state through constructor",
      { x: { $state: "a.constructor.prototype" } },
      [
        {
          path: `${R}/x/$state`,
          message: 'path segment "constructor" is not allowed (__proto__, prototype and constructor are reserved)',
        },
      ],
    ],
    [
      "$number of an object",
      { $number: { a: 1 } },
      [
        {
          path: `${R}/$number`,
          message: `$number expects a finite JSON number or a decimal string such as "12.50" (no exponent, sign "+", spaces or hex); got {"a":1}`,
        },
      ],
    ],
    [
      "$number of an object holding an expression",
      { $number: { a: { $input: "x" } } },
      [
        {
          path: `${R}/$number`,
          message: `$number expects a finite JSON number or a decimal string such as "12.50" (no exponent, sign "+", spaces or hex); got an object`,
        },
      ],
    ],
    [
      "$number of a $dateAdd",
      { $number: { $dateAdd: { value: { $input: "d" } } } },
      [{ path: `${R}/$number`, message: "$number expects a number, but $dateAdd produces a timestamp string" }],
    ],
    [
      "$dateAdd of a string",
      { $dateAdd: "2024-01-01" },
      [
        {
          path: `${R}/$dateAdd`,
          message: 'expected an object {"value": ..., "days"?: integer, "hours"?: integer} for $dateAdd',
        },
      ],
    ],
    [
      "$dateAdd without value",
      { $dateAdd: { days: 1 } },
      [{ path: `${R}/$dateAdd/value`, message: "required: the date or timestamp to add to" }],
    ],
    [
      "$dateAdd of a $number",
      { $dateAdd: { value: { $number: { $input: "n" } } } },
      [
        {
          path: `${R}/$dateAdd/value`,
          message:
            "$dateAdd expects an ISO date YYYY-MM-DD or an ISO-8601 timestamp with Z or an offset (YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)); got a $number",
        },
      ],
    ],
    [
      "$dateAdd of an invalid literal date",
      { $dateAdd: { value: "2023-02-30" } },
      [{ path: `${R}/$dateAdd/value`, message: '$dateAdd: 2023-02-30 is not a calendar date; got "2023-02-30"' }],
    ],
    [
      "nested problems inside $number",
      { $number: { $input: "a..b" } },
      [{ path: `${R}/$number/$input`, message: 'expected dot-separated keys without empty segments; got "a..b"' }],
    ],
  ])("%s", (_name, result, errors) => {
    expect(errorsOf(withVariant({ result }))).toEqual(errors);
  });
});

describe("reports every error at once", () => {
  it("with JSON Pointer paths", () => {
    const raw = {
      schema_version: 3,
      default_variant: "missing",
      initial_state: "none",
      variants: {
        success: {
          result: { reference: { $state: "__proto__.x" }, when: { $dateAdd: { value: "2024-01-01", days: 9999 } } },
          delay_ms: 40000,
          rules: [
            rule(),
            rule(),
            rule(),
            { when: [{ source: "input", path: "a", op: "like", value: "x" }], set_state: { a: 1, "a.b": 2 } },
          ],
        },
        "bad name": { result: 1 },
      },
      examples: [{ variant: "nope", input: 1, expected: 1 }],
      comment: "typo",
    };
    expect(errorsOf(raw)).toEqual([
      {
        path: "/comment",
        message:
          'unknown key "comment"; expected only schema_version, default_variant, initial_state, dataset, variants, examples',
      },
      { path: "/schema_version", message: "expected 1 or 2; got 3" },
      {
        path: "/variants/success/result/reference/$state",
        message: 'path segment "__proto__" is not allowed (__proto__, prototype and constructor are reserved)',
      },
      {
        path: "/variants/success/result/when/$dateAdd/days",
        message: "expected an integer from -3660 to 3660; got 9999",
      },
      {
        path: "/variants/success/delay_ms",
        message: "expected an integer number of milliseconds from 0 to 30000; got 40000",
      },
      { path: "/variants/success/rules/3/when/0/op", message: 'expected one of eq, ne, in, exists; got "like"' },
      {
        path: "/variants/success/rules/3/set_state/a.b",
        message: 'expected keys that are not prefixes of one another; "a" already sets a value containing "a.b"',
      },
      {
        path: "/variants/bad name",
        message: 'expected a variant name of 1 to 64 characters from A-Z a-z 0-9 _ . -; got "bad name"',
      },
      {
        path: "/default_variant",
        message: 'expected the name of one of the variants (success, bad name); got "missing"',
      },
      { path: "/initial_state", message: "expected an object; got string" },
      { path: "/examples/0/variant", message: 'expected the name of one of the variants; there is no variant "nope"' },
      { path: "/examples/0/input", message: "expected an arguments object; got number" },
      {
        path: "/variants/success",
        message: 'expected at least one example with "variant": "success" (every variant needs a checked example)',
      },
      {
        path: "/variants/bad name",
        message: 'expected at least one example with "variant": "bad name" (every variant needs a checked example)',
      },
    ]);
  });
});

describe("input that JSON text could not have produced", () => {
  const cyclic: Record<string, unknown> = { ...base() };
  cyclic.initial_state = { self: cyclic };
  const deep: JsonValue = Array.from({ length: 200 }).reduce<JsonValue>((inner) => [inner], 1);
  it.each<[string, unknown, Problem[]]>([
    ["undefined", undefined, [{ path: "", message: "expected a JSON value; got undefined" }]],
    [
      "NaN inside",
      { ...base(), initial_state: { n: Number.NaN } },
      [{ path: "/initial_state/n", message: "expected a finite JSON number; got NaN" }],
    ],
    [
      "a function inside",
      { ...base(), initial_state: { f: () => 1 } },
      [{ path: "/initial_state/f", message: "expected a JSON value; got function" }],
    ],
    [
      "a Date inside",
      { ...base(), initial_state: { d: new Date(0) } },
      [{ path: "/initial_state/d", message: "expected a plain JSON object; got an instance of a class" }],
    ],
    ["a bigint", 1n, [{ path: "", message: "expected a JSON value; got bigint" }]],
    [
      "a cycle",
      cyclic,
      [{ path: "/initial_state/self", message: "expected a JSON value; this object contains itself" }],
    ],
    [
      "an array hole",
      // biome-ignore lint/suspicious/noSparseArray: the hole is the input under test
      { ...base(), initial_state: { a: [1, , 3] } },
      [{ path: "/initial_state/a/1", message: "expected a JSON value; the array has a hole here" }],
    ],
    [
      "nesting deeper than 64 levels",
      { ...base(), initial_state: { deep } },
      [{ path: `/initial_state/deep${"/0".repeat(62)}`, message: "expected at most 64 levels of nesting" }],
    ],
  ])("%s is refused without throwing", (_name, raw, errors) => {
    expect(errorsOf(raw)).toEqual(errors);
  });

  it("a throwing getter is refused without throwing", () => {
    const raw = { ...base() };
    Object.defineProperty(raw, "initial_state", {
      enumerable: true,
      get: () => {
        throw new Error("boom");
      },
    });
    expect(parseDefinition(raw)).toEqual({
      ok: false,
      errors: [{ path: "", message: "the definition could not be read as JSON: boom" }],
    });
  });
});
