/**
 * arithmetic(): Python's arithmetic on numbers, + - * / // ** and parentheses, without running
 * code (src/core/contract/arithmetic.ts). Every expression of the committed CPython corpus
 * (test/fixtures/arithmetic/cpython.json, written by scripts/tau-bench/arithmetic-corpus.py with
 * CPython 3.11) gives what CPython gave, value or error message; the bounds hold; and the CEL
 * function charges the call's cost budget.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arithmetic,
  floatRepr,
  MAX_ARITHMETIC_LENGTH,
  MAX_INTEGER_BITS,
} from "../../../src/core/contract/arithmetic.js";
import { Meter, compileExpression, evaluateExpression } from "../../../src/core/contract/cel.js";
import { executeCall, type CallOutcome } from "../../../src/core/contract/index.js";
import type { JsonObject } from "../../../src/core/json.js";
import { acceptAll, parsed } from "./helpers.js";

interface Entry {
  expression: string;
  value?: string;
  error?: string;
}

const corpus = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "../../fixtures/arithmetic/cpython.json"), "utf8"),
) as { python: string; entries: Entry[] };

/** What arithmetic() answers, in the corpus's terms: Python's repr of the float, or the message. */
function asCorpus(expression: string): Entry {
  const result = arithmetic(expression);
  return "error" in result ? { expression, error: result.error } : { expression, value: floatRepr(result.value) };
}

describe("arithmetic() against CPython", () => {
  it("was computed by CPython 3.11 and covers the hand-picked cases, a grammar and random strings", () => {
    expect(corpus.python.startsWith("3.11.")).toBe(true);
    expect(corpus.entries.length).toBeGreaterThan(4000);
    const errors = new Set(corpus.entries.flatMap((e) => (e.error === undefined ? [] : [e.error])));
    // Every kind of answer calculate can give is in the corpus at least once.
    for (const message of [
      "division by zero",
      "float division by zero",
      "integer division or modulo by zero",
      "float floor division by zero",
      "0.0 cannot be raised to a negative power",
      "int too large to convert to float",
      "(34, 'Numerical result out of range')",
      "float() argument must be a string or a real number, not 'tuple'",
      "float() argument must be a string or a real number, not 'complex'",
      "complex division by zero",
      "invalid syntax (<string>, line 0)",
      "invalid syntax (<string>, line 1)",
      "invalid syntax. Perhaps you forgot a comma? (<string>, line 1)",
      "'(' was never closed (<string>, line 1)",
      "unmatched ')' (<string>, line 1)",
      "too many nested parentheses (<string>, line 1)",
      "cannot use starred expression here (<string>, line 1)",
      "'int' object is not callable",
    ]) {
      expect(errors).toContain(message);
    }
    expect(corpus.entries.map((e) => e.value)).toContain("inf");
  });

  it("answers every expression of the corpus exactly as CPython did", () => {
    const mismatches = corpus.entries
      .map((entry) => ({ entry, ours: asCorpus(entry.expression) }))
      .filter(({ entry, ours }) => entry.value !== ours.value || entry.error !== ours.error);
    expect(mismatches).toEqual([]);
  });

  it("answers τ-bench's calculate probes as Python does", () => {
    expect(arithmetic("1319.43 - 302.67 + 271.89")).toEqual({ value: 1319.43 - 302.67 + 271.89 });
    expect(arithmetic("2 ** 10000")).toEqual({ error: "int too large to convert to float" });
    expect(arithmetic("(")).toEqual({ error: "'(' was never closed (<string>, line 1)" });
    expect(arithmetic("   ")).toEqual({ error: "invalid syntax (<string>, line 0)" });
    expect(arithmetic("3 // 2")).toEqual({ value: 1 });
    expect(arithmetic(`${"9".repeat(400)}.0 * 10`)).toEqual({ value: Number.POSITIVE_INFINITY });
  });

  it("writes floats as Python's repr does", () => {
    expect([1e16, 1e-5, 0.0001, 123.5, -0, 5e-324, 1.7976931348623157e308, 100].map(floatRepr)).toEqual([
      "1e+16",
      "1e-05",
      "0.0001",
      "123.5",
      "-0.0",
      "5e-324",
      "1.7976931348623157e+308",
      "100.0",
    ]);
  });
});

describe("arithmetic() is bounded", () => {
  it("refuses an expression longer than its cap, and characters outside its alphabet, saying so", () => {
    expect(arithmetic("1+".repeat(MAX_ARITHMETIC_LENGTH))).toEqual({
      error: `expression longer than ${MAX_ARITHMETIC_LENGTH} characters`,
    });
    expect(arithmetic("1e5")).toEqual({ error: "arithmetic() reads only digits, + - * / ( ) . and spaces" });
  });

  it("refuses integers past its bit cap instead of computing them (9 ** 9 ** 9 would take Python minutes)", () => {
    const tooLarge = { error: `integer too large to evaluate here (more than ${MAX_INTEGER_BITS} bits)` };
    expect(arithmetic("9 ** 9 ** 9")).toEqual(tooLarge);
    expect(arithmetic("2 ** 70000")).toEqual(tooLarge);
    expect(arithmetic(`${"9".repeat(300)} * ${"9".repeat(300)}`)).toEqual({
      error: "int too large to convert to float",
    });
    // Below the cap, Python's answer: a big integer divided back into a float's range.
    expect(arithmetic("2 ** 60000 // 2 ** 59990")).toEqual({ value: 1024 });
  });

  it("answers any string of its alphabet without throwing (a value or a message)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9+\-*/(). ]{0,40}$/), (text) => {
        const result = arithmetic(text);
        expect("value" in result ? typeof result.value : typeof result.error).toMatch(/number|string/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("docs/mock-definition.md", () => {
  it("states arithmetic()'s bounds as the code has them", () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, "../../../docs/mock-definition.md"), "utf8");
    const fmt = (n: number): string => n.toLocaleString("en-US");
    expect(doc).toContain(`| characters \`arithmetic()\` reads | ${fmt(MAX_ARITHMETIC_LENGTH)} |`);
    expect(doc).toContain(`| bits of an integer inside \`arithmetic()\` | ${fmt(MAX_INTEGER_BITS)} |`);
    expect(doc).toContain(`compares it with ${fmt(corpus.entries.length)} expressions CPython evaluated`);
  });
});

describe("arithmetic() in a version-2 definition", () => {
  const definition = parsed({
    schema_version: 2,
    default_variant: "ok",
    variants: { ok: { result: { $expr: "arithmetic(input.e)" } } },
    examples: [{ variant: "ok", input: { e: "1 + 1" }, expected: { value: 2 } }],
  });
  const call = (e: string): CallOutcome =>
    executeCall({
      input_schema: { type: "object" },
      output_schema: true,
      definition,
      args: { e } as JsonObject,
      state: {},
      validator: acceptAll,
    });

  it("gives a map with the value or the error", () => {
    expect(call("10 / 4")).toMatchObject({ kind: "result", result: { value: 2.5 } });
    expect(call("10 / 0")).toMatchObject({ kind: "result", result: { error: "division by zero" } });
  });

  it("charges the cost budget by the length and the nodes evaluated, so a budget can stop it", () => {
    const expression = compileExpression("arithmetic(input.e)", [], "/e", null);
    if (typeof expression === "string") throw new Error(expression);
    const source = `${"1+".repeat(499)}1`; // 999 characters, 999 nodes (500 numbers, 499 additions)
    const meter = new Meter(10_000);
    expect(evaluateExpression(expression, { input: { e: source } }, meter)).toEqual({
      kind: "value",
      value: { value: 500 },
    });
    // One for the expression, the length, one per node, and two values handed back (the map and its number).
    expect(meter.spent).toBe(1 + 999 + 999 + 2);
    expect(() => evaluateExpression(expression, { input: { e: source } }, new Meter(1500))).toThrow(
      /exceeded its cost budget of 1500 units/,
    );
    // Past the function's cap the answer is its refusal, not a walk.
    expect(call("1+".repeat(600))).toMatchObject({
      kind: "result",
      result: { error: `expression longer than ${MAX_ARITHMETIC_LENGTH} characters` },
    });
  });

  it("is refused at save time when given something other than a string", () => {
    expect(() =>
      parsed({
        schema_version: 2,
        default_variant: "ok",
        variants: { ok: { result: { $expr: "arithmetic(1)" } } },
        examples: [{ variant: "ok", input: {}, expected: null }],
      }),
    ).toThrow(/does not type-check/);
  });
});
