import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { storedKeyProblems } from "../../../src/core/simulation/stored-keys.js";

const message = "expected well-formed Unicode text: this string has a lone UTF-16 surrogate, which cannot be stored";

describe("storedKeyProblems", () => {
  it("names every stored key with a lone surrogate, and only those", () => {
    expect(storedKeyProblems({ tool: "\ud800", operation_id: "ok", call_id: "x\udbffy", arguments: {} })).toEqual([
      { path: "/tool", message },
      { path: "/call_id", message },
    ]);
    expect(storedKeyProblems({ tool: "counter 🚀", operation_id: "\udc00", arguments: {} })).toEqual([{ path: "/operation_id", message }]);
    expect(storedKeyProblems({ tool: "counter", arguments: { text: "\ud800" } })).toEqual([]);
  });

  it("accepts any well-formed text and refuses any text around a lone surrogate", () => {
    const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), loneSurrogate, (before, after, lone) => {
        expect(storedKeyProblems({ tool: before + after, call_id: after, arguments: {} })).toEqual([]);
        expect(storedKeyProblems({ tool: "t", call_id: before + lone + after, arguments: {} })).toEqual([{ path: "/call_id", message }]);
      }),
      { numRuns: 300 },
    );
  });
});
