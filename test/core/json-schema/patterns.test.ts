/**
 * How patterns run (pattern-engine.ts, pattern-translate.ts): the linear-time engine answers
 * exactly as RegExp with the "u" flag does, on the dialect differences one by one and on random
 * patterns; what cannot run in linear time is refused when saved, and a stored one that would
 * backtrack catastrophically is not run at all.
 */
import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { backtracksLinearly } from "../../../src/adapters/json-schema/pattern-backtracking.js";
import {
  compilePattern,
  patternRefusal,
  UnsafePatternError,
} from "../../../src/adapters/json-schema/pattern-engine.js";
import { translatePattern } from "../../../src/adapters/json-schema/pattern-translate.js";

const native = (pattern: string, text: string): boolean => new RegExp(pattern, "u").test(text);
/** The translation run on re2js directly (compilePattern keeps RegExp for the simplest patterns). */
const linear = (pattern: string, text: string): boolean => {
  const translation = translatePattern(pattern);
  if ("unsupported" in translation) throw new Error(`not translated: ${translation.unsupported}`);
  return RE2JS.compile(translation.re2).test(text);
};

describe("the linear-time engine reads ECMAScript, not RE2", () => {
  // Each row is a place where RE2 syntax passed through unchanged would answer differently.
  it.each<[string, string]>([
    ["\\s", "\u00a0"],
    ["\\s", "\ufeff"],
    ["\\s", "\u2028"],
    ["^\\S$", "\u00a0"],
    ["[\\S]", " "],
    ["[^\\s]", "\u3000"],
    ["^.$", "\r"],
    ["^.$", "\u2028"],
    ["^.$", "😀"],
    ["^..$", "😀"],
    ["^\\u0041$", "A"],
    ["^\\u{1F600}$", "😀"],
    ["^\\x41$", "A"],
    ["\\cJ", "\n"],
    ["[^]", "\n"],
    ["[]", "a"],
    ["^[^]$", ""],
    ["^a$", "a\n"],
    ["a$", "a\n"],
    ["^\\d+$", "٣"],
    ["^\\w+$", "é"],
    ["\\bé", "é"],
    ["\\Ba", "ba"],
    ["^\\p{L}+$", "éa"],
    ["^\\p{Letter}+$", "éa"],
    ["^\\p{Lu}$", "a"],
    ["^\\P{Lu}$", "a"],
    ["^\\p{gc=Nd}$", "٣"],
    ["^\\p{LC}$", "ǅ"],
    ["^\\p{Script=Greek}+$", "αβ"],
    ["^[\\p{Script=Greek}\\d]+$", "α1"],
    ["^\\p{ASCII}+$", "abc"],
    ["^\\P{ASCII}$", "é"],
    ["^\\p{Any}$", "\n"],
    ["^[\\P{Any}]$", "a"],
    ["^[^\\P{Any}]$", "a"],
    ["^(?<word>\\w+)-\\w+$", "ab-cd"],
    ["^a{2,3}?$", "aaa"],
    ["^(?:ab|cd)*$", "abcdab"],
    ["[\\uD800]", "\ud800"],
    ["^\\/[\\-]?$", "/-"],
    ["^\\0$", "\0"],
    ["^[\\b]$", "\b"],
    ["^\\v\\t\\f$", "\v\t\f"],
    ["", "anything"],
  ])("%j on %j answers as RegExp", (pattern, text) => {
    expect(linear(pattern, text)).toBe(native(pattern, text));
  });

  it("answers as RegExp on random patterns and strings (fast-check)", () => {
    const alphabet = ["a", "b", "é", " ", "\u00a0", "\n", "\r", "1", "_", "😀", "A", "-"];
    const char = fc.constantFrom(...alphabet);
    const atom = fc.constantFrom(
      "a",
      "b",
      "é",
      "\\d",
      "\\D",
      "\\w",
      "\\W",
      "\\s",
      "\\S",
      ".",
      "[a-c]",
      "[^a\\s]",
      "[\\S1]",
      "\\u00e9",
      "\\u{1F600}",
      "\\p{L}",
      "\\P{Ll}",
      "[\\p{Lu}_]",
      "[\\-a]",
      "[^]",
    );
    const pattern = fc.letrec<{ node: string; seq: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        atom,
        fc
          .tuple(tie("seq"), fc.constantFrom("*", "+", "?", "{2}", "{1,2}", "*?", "{0,}"))
          .map(([s, q]) => `(?:${s})${q}`),
        fc.tuple(tie("seq"), tie("seq")).map(([a, b]) => `(${a}|${b})`),
        fc.constantFrom("^", "$", "\\b", "\\B"),
      ),
      seq: fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((parts) => parts.join("")),
    })).seq;
    fc.assert(
      fc.property(
        pattern,
        fc.array(char, { maxLength: 8 }).map((cs) => cs.join("")),
        (p, text) => {
          expect(linear(p, text)).toBe(native(p, text));
        },
      ),
      { numRuns: 500, seed: 9 },
    );
  }, 30_000);
});

describe("what is refused when a schema is saved", () => {
  const exponential =
    "can take exponential time to match (a repeated group that itself repeats, or more than 25 repetitions): rewrite it without nested repetition";
  it.each<[string, string | undefined]>([
    ["^(a+)+$", exponential],
    ["(\\d+)*", exponential],
    ["^([a-z]*)*$", exponential],
    ["^(\\w+\\s?)*$", exponential],
    [
      "^(?=.*\\d).{8,}$",
      'uses a lookahead, which toolproof\'s linear-time pattern engine cannot run: write each condition as its own "pattern" inside "allOf"',
    ],
    [
      "(?<!a)b",
      'uses a lookbehind, which toolproof\'s linear-time pattern engine cannot run: write each condition as its own "pattern" inside "allOf"',
    ],
    ["^(a)\\1$", "uses a backreference, which toolproof's linear-time pattern engine cannot run"],
    [
      "^[a-z]{1,2000}$",
      'uses what RE2 refuses (invalid repeat count: `{1,2000}`), which toolproof\'s linear-time pattern engine cannot run: for a length limit use "minLength"/"maxLength"',
    ],
    [
      "^\\p{sc=Grek}+\\d+$",
      "uses what RE2 refuses (invalid character class range: `\\p{Grek}`), which toolproof's linear-time pattern engine cannot run",
    ],
    [
      "^\\p{Alphabetic}+\\d+$",
      "uses the Unicode property \\p{Alphabetic}, which toolproof's linear-time pattern engine cannot run",
    ],
    // RE2 cannot express it, but RegExp provably runs it in linear time (see below).
    ["^\\p{Alphabetic}+$", undefined],
    ["(", undefined],
    ["^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", undefined],
    ["^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$", undefined],
    ["^(a|a)*$", undefined],
    ["^\\p{Lu}\\p{Ll}*$", undefined],
  ])("%j: %s", (pattern, why) => {
    expect(patternRefusal(pattern)).toBe(why);
  });
});

describe("which patterns keep RegExp (provably linear on a backtracking engine)", () => {
  it.each<[string, boolean]>([
    ["^[A-Z]{3}$", true],
    ["^L[0-9]{8}$", true],
    ["^\\+?[0-9 ()-]{7,20}$", true],
    ["^cus_[A-Za-z0-9]{8,24}$", true],
    ["^[a-z0-9-]+$", true],
    ["^R-", true],
    ["\\d{3}-\\d{4}", true],
    ["^\\p{Alphabetic}+$", true],
    ["", true],
    // Unbounded and unanchored: `a+b` on n "a"s is quadratic.
    ["[a-z]+$", false],
    ["^a*b*$", false],
    ["^[a-z]{0,20}[0-9]{0,20}$", false],
    ["^(?:ab)+$", false],
    ["^a|b$", false],
    ["^(a)$", false],
    ["^(?=a)a+$", false],
    ["(", false],
  ])("%j: %s", (pattern, keeps) => {
    expect(backtracksLinearly(pattern)).toBe(keeps);
  });

  it("compilePattern keeps RegExp for those, and uses re2js for the rest", () => {
    expect(
      ["^[A-Z]{3}$", "^[a-z0-9-]+$", "^(?:ab)+$", "[a-z]+$"].map((p) => compilePattern(p) instanceof RegExp),
    ).toEqual([true, true, false, false]);
  });
});

describe("how a pattern runs", () => {
  it("an accepted pattern that would backtrack exponentially answers a long input (linear time)", () => {
    // 2^5000 paths for a backtracking engine; this call returns at once.
    expect(compilePattern("^(a|a)*$").test(`${"a".repeat(5000)}b`)).toBe(false);
    expect(compilePattern("^(a+)+$").test(`${"a".repeat(100_000)}b`)).toBe(false);
    expect(compilePattern("^(a+)+$").test("a".repeat(100_000))).toBe(true);
  });

  it("a stored pattern only RegExp can run runs on RegExp when it cannot backtrack catastrophically", () => {
    expect([compilePattern("^(?=.*\\d)\\w+$").test("ab1"), compilePattern("^(?=.*\\d)\\w+$").test("abc")]).toEqual([
      true,
      false,
    ]);
  });

  it("a stored pattern only RegExp can run, and which could backtrack catastrophically, is not run", () => {
    expect(() => compilePattern("^(a+)+\\1$")).toThrow(
      new UnsafePatternError(
        'the pattern "^(a+)+\\\\1$" is not run: it uses a backreference and may backtrack catastrophically',
      ),
    );
  });

  it("a pattern RegExp refuses throws RegExp's own error", () => {
    expect(() => compilePattern("(")).toThrow(new SyntaxError("Invalid regular expression: /(/u: Unterminated group"));
  });
});
