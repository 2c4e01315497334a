import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTextProblems, jsonInputProblems, MAX_JSON_DEPTH, NOT_WELL_FORMED } from "../../src/core/json-input.js";
import { walkJsonText } from "../../src/core/json-text-walk.js";
import { canonicalJson, jsonEqual } from "../../src/core/json.js";
import { parseText } from "../../src/core/policy/parse-text.js";

const tooDeep = (what: string) =>
  `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (the limit for ${what})`;

function nested(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = { k: value };
  return value;
}

describe("jsonInputProblems", () => {
  it("accepts any JSON value within the depth limit", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), (value) => {
        // fc.jsonValue may produce -0, which is finite: nothing to refuse.
        expect(jsonInputProblems(value, { wellFormed: true })).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("bounds nesting iteratively, at any depth, naming the first place past the limit", () => {
    expect(jsonInputProblems(nested(MAX_JSON_DEPTH))).toEqual([]);
    for (const levels of [MAX_JSON_DEPTH + 1, 5_000, 200_000]) {
      expect(jsonInputProblems(nested(levels))).toEqual([
        { path: "/k".repeat(MAX_JSON_DEPTH), message: tooDeep("a JSON document") },
      ]);
    }
  });

  it("refuses non-finite numbers, non-JSON values and (when asked) lone surrogates in strings and keys", () => {
    const value = {
      n: Number.POSITIVE_INFINITY,
      list: [1, Number.NaN],
      f: () => 1,
      d: new Date(0),
      s: "\ud800",
      "k\udfff": 1,
      ok: "😀",
    };
    expect(jsonInputProblems(value)).toEqual([
      {
        path: "/n",
        message:
          "expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)",
      },
      { path: "/f", message: "expected a JSON value; got function" },
      { path: "/d", message: "expected a JSON value; got an instance of a class" },
      {
        path: "/list/1",
        message: "expected a finite number; this one is out of the range a JSON number can carry (it reads as NaN)",
      },
    ]);
    expect(jsonInputProblems(value, { wellFormed: true })).toEqual([
      {
        path: "/n",
        message:
          "expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)",
      },
      { path: "/f", message: "expected a JSON value; got function" },
      { path: "/d", message: "expected a JSON value; got an instance of a class" },
      { path: "/s", message: NOT_WELL_FORMED },
      { path: "/k\udfff", message: `${NOT_WELL_FORMED} (in the key)` },
      {
        path: "/list/1",
        message: "expected a finite number; this one is out of the range a JSON number can carry (it reads as NaN)",
      },
    ]);
  });

  it("refuses a value that contains itself without walking it exponentially", () => {
    const cycle: unknown[] = [];
    cycle.push(cycle, cycle);
    expect(jsonInputProblems({ a: cycle })).toEqual([
      {
        path: "/a/0",
        message: "expected a JSON value; this value contains itself (a YAML alias inside its own anchor)",
      },
      {
        path: "/a/1",
        message: "expected a JSON value; this value contains itself (a YAML alias inside its own anchor)",
      },
    ]);
    // A shared (but acyclic) value is fine: YAML aliases make those.
    const shared = { x: 1 };
    expect(jsonInputProblems([shared, shared, { s: shared }])).toEqual([]);
  });

  it("stops at 20 problems", () => {
    expect(jsonInputProblems(Array.from({ length: 10_000 }, () => Number.POSITIVE_INFINITY))).toHaveLength(20);
  });
});

describe("parseText hygiene", () => {
  it("refuses a YAML alias inside its own anchor instead of building a cyclic value", () => {
    expect(parseText("&a [*a]", "yaml")).toEqual({
      ok: false,
      message: "/0: expected a JSON value; this value contains itself (a YAML alias inside its own anchor)",
    });
    expect(parseText("tools: &t\n  x: *t\n", "yaml")).toEqual({
      ok: false,
      message: "/tools/x: expected a JSON value; this value contains itself (a YAML alias inside its own anchor)",
    });
  });

  it("refuses deep YAML and JSON with the limit, however deep", () => {
    for (const levels of [MAX_JSON_DEPTH + 1, 5_000, 60_000]) {
      const flow = `${"[".repeat(levels)}${"]".repeat(levels)}`;
      for (const syntax of ["yaml", "json"] as const) {
        const parsed = parseText(flow, syntax);
        expect(parsed.ok).toBe(false);
        if (!parsed.ok) expect(parsed.message.endsWith(tooDeep("a JSON document"))).toBe(true);
      }
    }
  });

  it("refuses YAML whose aliases expand past the size limit", () => {
    const items = Array.from({ length: 1000 }, () => "x".repeat(48));
    const text = `a: &a ${JSON.stringify(items)}\nb: [${Array(40).fill("*a").join(", ")}]\n`;
    expect(text.length).toBeLessThan(64 * 1024);
    const bytes = JSON.stringify({ a: items, b: Array(40).fill(items) }).length;
    expect(parseText(text, "yaml", { maxJsonBytes: 128 * 1024 })).toEqual({
      ok: false,
      message: `the document stands for ${bytes} bytes of JSON (YAML aliases repeat what they name); the limit is 131072 bytes`,
    });
  });

  it("refuses a whole number past 2^53 in JSON text and in YAML, naming where it is", () => {
    const lost =
      "the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992, so it would be kept as another number; send it as a string";
    expect(parseText('{"rules": [{"max": 9007199254740993}]}', "json")).toEqual({
      ok: false,
      message: `/rules/0/max: ${lost}`,
    });
    expect(parseText("rules:\n  - max: 9007199254740993\n", "yaml")).toEqual({
      ok: false,
      message: `/rules/0/max: ${lost}`,
    });
    expect(parseText("[1, {a: [2, -9007199254740993]}]", "yaml")).toEqual({
      ok: false,
      message: `/1/a/1: ${lost.replaceAll("9007199254740993", "-9007199254740993").replace("9007199254740992", "-9007199254740992")}`,
    });
  });

  it("reads YAML whole numbers a double holds as numbers, and whole-number keys as their exact text", () => {
    expect(
      parseText(
        "small: 42\nlimit: 9007199254740992\nhex: 0x10\nbig: 18014398509481984\n9007199254740993: key\n",
        "yaml",
      ),
    ).toEqual({
      ok: true,
      value: { small: 42, limit: 9007199254740992, hex: 16, big: 18014398509481984, "9007199254740993": "key" },
    });
  });

  it("refuses lone surrogates and non-finite numbers in JSON text", () => {
    expect(parseText('{"a": "\\ud800", "n": 1e400}', "json")).toEqual({
      ok: false,
      message: `/a: ${NOT_WELL_FORMED} (and 1 more problem)`,
    });
  });
});

describe("json.ts walks never overflow the stack", () => {
  it("compares and serializes 200,000 levels", () => {
    const text = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const a: unknown = JSON.parse(text);
    expect(jsonEqual(a, JSON.parse(text))).toBe(true);
    expect(jsonEqual(a, JSON.parse(`${"[".repeat(200_000)}1${"]".repeat(200_000)}`))).toBe(false);
    expect(canonicalJson(a)).toBe(text);
  });

  it("refuses a value that contains itself, and writes a value shared by two places twice", () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic };
    expect(() => canonicalJson(cyclic)).toThrow(new TypeError("not a JSON value: circular structure"));
    const shared = { b: [1] };
    expect(canonicalJson({ y: shared, x: [shared, shared] })).toBe('{"x":[{"b":[1]},{"b":[1]}],"y":{"b":[1]}}');
  });

  it("agree with the recursive definitions on any JSON value", () => {
    const sortedStringify = (value: unknown): string => {
      if (value === null || typeof value !== "object") return JSON.stringify(value);
      if (Array.isArray(value)) return `[${value.map(sortedStringify).join(",")}]`;
      const record = value as Record<string, unknown>;
      return `{${Object.keys(record)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${sortedStringify(record[k])}`)
        .join(",")}}`;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.jsonValue({ maxDepth: 6 }), (a, b) => {
        expect(canonicalJson(a)).toBe(sortedStringify(a));
        expect(jsonEqual(a, b)).toBe(sortedStringify(a) === sortedStringify(b));
        expect(jsonEqual(a, JSON.parse(JSON.stringify(a)))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("jsonTextProblems: whole numbers", () => {
  const message = (literal: string, read: string) =>
    `the whole number ${literal} is past 2^53 and reads as ${read}, so it would be kept as another number; send it as a string`;

  it("names each whole number that reads as another, at its place, and passes every other number", () => {
    const text = `{"a": [9007199254740991, 9007199254740992, 9007199254740993], "b": {"c~/": -90071992547409931},
      "exact": 18014398509481984, "as written by JSON.stringify": 123456789012345680000,
      "decimal": 9007199254740993.5, "exponent": 90071992547409931e0,
      "quoted": "9007199254740993", "9007199254740993": 1}`;
    expect(jsonTextProblems(text)).toEqual([
      { path: "/a/2", message: message("9007199254740993", "9007199254740992") },
      { path: "/b/c~0~1", message: message("-90071992547409931", "-90071992547409940") },
    ]);
    expect(jsonTextProblems("12345678901234567890")).toEqual([
      { path: "", message: message("12345678901234567890", "12345678901234567000") },
    ]);
  });

  it("agrees with BigInt on any whole number, wherever it stands in a document", () => {
    const big = fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), big, (document, whole) => {
        // The number goes in as the last item of an array at the top, beside any other JSON.
        const text = `[${JSON.stringify(document)}, ${whole}]`;
        const read = Number(whole);
        // A double as JavaScript writes it reads back as itself, exact or not.
        const kept = BigInt(read) === whole || String(read) === String(whole);
        const expected = kept ? [] : [{ path: "/1", message: message(String(whole), String(read)) }];
        expect(jsonTextProblems(text)).toEqual([
          ...jsonTextProblems(JSON.stringify(document)).map((p) => ({ ...p, path: `/0${p.path}` })),
          ...expected,
        ]);
      }),
    );
  });
});

describe("walkJsonText", () => {
  it("visits every key and number of any JSON text with the path JSON.parse would put it at", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.boolean(), (value, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined);
        const numbers: Array<[string, unknown]> = [];
        walkJsonText(text, {
          number(literal, at) {
            numbers.push([literal, at()]);
            return false;
          },
        });
        const expected: Array<[string, unknown]> = [];
        const collect = (item: unknown, path: Array<string | number>): void => {
          if (typeof item === "number") expected.push([JSON.stringify(item), path]);
          else if (Array.isArray(item)) for (const [i, inner] of item.entries()) collect(inner, [...path, i]);
          else if (item !== null && typeof item === "object")
            for (const [key, inner] of Object.entries(item)) collect(inner, [...path, key]);
        };
        collect(JSON.parse(text), []);
        expect(numbers).toEqual(expected);
      }),
    );
  });

  it("says when an object writes a key twice, after unescaping, and stops when asked", () => {
    const keys: unknown[] = [];
    walkJsonText('{"a": {"s": 1, "\\u0073": 2, "t": 3}, "b": 4}', {
      key(key, repeated, holder) {
        keys.push([key, repeated, holder()]);
        return repeated;
      },
    });
    expect(keys).toEqual([
      ["a", false, []],
      ["s", false, ["a"]],
      ["s", true, ["a"]],
    ]);
  });
});

describe("jsonTextProblems and doubles as JavaScript writes them", () => {
  it("passes every double JSON.stringify writes, whatever its size", () => {
    // Weighted to where it matters: from 2^53 to 1e21 JavaScript writes whole doubles without an exponent.
    const doubles = fc.oneof(
      fc.double({ min: 2 ** 53, max: 1e21 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    fc.assert(
      fc.property(doubles, (double) => {
        expect(jsonTextProblems(JSON.stringify({ n: double }))).toEqual([]);
      }),
    );
  });
});

describe("jsonTextProblems: keys given twice", () => {
  const twice = (key: string) =>
    `the key "${key}" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word`;

  it("names every key an object gives twice, after unescaping, at its own path", () => {
    const text = '{"a": 1, "b": [{"s": 1, "\\u0073": 2}], "a": 3, "c~/": {"k": 1, "k": 2, "k": 3}}';
    expect(jsonTextProblems(text)).toEqual([
      { path: "/b/0/s", message: twice("s") },
      { path: "/a", message: twice("a") },
      { path: "/c~0~1/k", message: twice("k") },
      { path: "/c~0~1/k", message: twice("k") },
    ]);
    // The same key in two objects is no repeat.
    expect(jsonTextProblems('[{"a": 1}, {"a": 2}, {"x": {"a": 3}}]')).toEqual([]);
  });

  it("finds nothing in any text JSON.stringify writes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonTextProblems(JSON.stringify(value))).toEqual([]);
      }),
    );
  });
});
