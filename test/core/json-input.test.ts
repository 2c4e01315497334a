import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonInputProblems, MAX_JSON_DEPTH, NOT_WELL_FORMED } from "../../src/core/json-input.js";
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
