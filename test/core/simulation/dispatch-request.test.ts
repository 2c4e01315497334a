import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDispatchRequest, parseDispatchText } from "../../../src/core/simulation/dispatch-request.js";

describe("parseDispatchText", () => {
  it("accepts the four fields", () => {
    expect(parseDispatchText('{"tool":"crm","operation_id":"get","arguments":{"id":1},"call_id":"c-1"}')).toEqual({
      ok: true,
      request: { tool: "crm", operation_id: "get", arguments: { id: 1 }, call_id: "c-1" },
    });
    expect(parseDispatchText('{"tool":"crm","arguments":{}}')).toEqual({
      ok: true,
      request: { tool: "crm", arguments: {} },
    });
  });

  it("names every bad field", () => {
    expect(parseDispatchText('{"tool":"","operation_id":7,"arguments":[1],"call_id":"","extra":true}')).toEqual({
      ok: false,
      problems: [
        { path: "/extra", message: 'unknown field "extra"' },
        { path: "/tool", message: "expected a string of 1 to 200 characters" },
        { path: "/operation_id", message: "expected a string of 1 to 200 characters" },
        { path: "/call_id", message: "expected a string of 1 to 200 characters" },
        { path: "/arguments", message: "expected a JSON object" },
      ],
    });
    expect(parseDispatchText("{}")).toEqual({
      ok: false,
      problems: [
        { path: "/tool", message: "required" },
        { path: "/arguments", message: "required: the tool's arguments as a JSON object ({} when it takes none)" },
      ],
    });
  });

  it("refuses what is not a JSON object", () => {
    expect(parseDispatchText("[1]")).toEqual({
      ok: false,
      problems: [{ path: "", message: "expected a JSON object {tool, operation_id?, arguments, call_id?}" }],
    });
    expect(parseDispatchText("{")).toEqual({
      ok: false,
      malformed: expect.stringMatching(/^the request body is not valid JSON: /),
    });
  });
});

describe("parseDispatchText: input hygiene", () => {
  const lone = "expected well-formed Unicode text: this string has a lone UTF-16 surrogate, which cannot be stored";

  it("refuses lone surrogates in tool, operation_id and call_id (they would collide once stored)", () => {
    for (const surrogate of ["\\ud800", "\\udbff", "a\\udc00b"]) {
      expect(
        parseDispatchText(
          `{"tool":"t${surrogate}","operation_id":"${surrogate}","arguments":{},"call_id":"${surrogate}"}`,
        ),
      ).toEqual({
        ok: false,
        problems: [
          { path: "/tool", message: lone },
          { path: "/operation_id", message: lone },
          { path: "/call_id", message: lone },
        ],
      });
    }
    // A surrogate pair (an emoji) is well-formed and kept as sent.
    expect(parseDispatchText('{"tool":"t","arguments":{},"call_id":"\\ud83d\\ude00"}')).toEqual({
      ok: true,
      request: { tool: "t", arguments: {}, call_id: "😀" },
    });
  });

  it("accepts any well-formed name and refuses any name around a lone surrogate (the same parse serves HTTP and MCP)", () => {
    const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 20 }),
        fc.string({ unit: "grapheme", maxLength: 20 }),
        loneSurrogate,
        (before, after, surrogate) => {
          expect(parseDispatchRequest({ tool: `t${before}${after}`, call_id: `c${after}`, arguments: {} })).toEqual({
            ok: true,
            request: { tool: `t${before}${after}`, call_id: `c${after}`, arguments: {} },
          });
          expect(parseDispatchRequest({ tool: "t", call_id: `${before}${surrogate}${after}`, arguments: {} })).toEqual({
            ok: false,
            problems: [{ path: "/call_id", message: lone }],
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps lone surrogates inside argument values: they are the tool's data, stored escaped", () => {
    expect(parseDispatchText('{"tool":"t","arguments":{"s":"\\ud800"}}')).toEqual({
      ok: true,
      request: { tool: "t", arguments: { s: "\ud800" } },
    });
  });

  it("answers arguments nested past the limit as unusable (a tool input error), however deep, naming the limit", () => {
    for (const levels of [101, 8_000, 100_000]) {
      const text = `{"tool":"t","arguments":{"a":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}}`;
      const path = `/a${"/0".repeat(99)}`;
      expect(parseDispatchText(text)).toEqual({
        ok: false,
        unusableArguments: [
          { path, message: "nested deeper than 100 levels of arrays and objects (the limit for the arguments)" },
        ],
      });
    }
    const atLimit = `{"tool":"t","arguments":{"a":${"[".repeat(99)}${"]".repeat(99)}}}`;
    expect(parseDispatchText(atLimit).ok).toBe(true);
  });

  it("answers numbers JSON cannot carry (1e400 reads as Infinity) as unusable, never as null", () => {
    expect(parseDispatchText('{"tool":"t","arguments":{"n":1e400,"m":[-1e999]}}')).toEqual({
      ok: false,
      unusableArguments: [
        {
          path: "/n",
          message:
            "expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)",
        },
        {
          path: "/m/0",
          message:
            "expected a finite number; this one is out of the range a JSON number can carry (it reads as -Infinity)",
        },
      ],
    });
  });

  it("reports a wrong name before unusable arguments: the request is not a call at all", () => {
    expect(parseDispatchText('{"tool":"","arguments":{"n":1e400}}')).toEqual({
      ok: false,
      problems: [{ path: "/tool", message: "expected a string of 1 to 200 characters" }],
    });
  });
});
