import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatPointer, lookupPointer, parsePointer } from "../../../src/core/datasets/pointer.js";
import type { JsonValue } from "../../../src/core/json.js";

// Tokens made of the characters that need escaping, and others, so "~01" and "/~" both come up.
const token = fc.string({ unit: fc.constantFrom("~", "/", "0", "1", "a", "#", "%", " ", "é"), maxLength: 6 });

describe("parsePointer and formatPointer", () => {
  it("round-trips any list of tokens", () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 5 }), (tokens) => {
        expect(parsePointer(formatPointer(tokens))).toEqual({ ok: true, tokens });
      }),
    );
  });

  it("reads the RFC 6901 examples", () => {
    expect(parsePointer("")).toEqual({ ok: true, tokens: [] });
    expect(parsePointer("/")).toEqual({ ok: true, tokens: [""] });
    expect(parsePointer("/a~1b")).toEqual({ ok: true, tokens: ["a/b"] });
    expect(parsePointer("/m~0n")).toEqual({ ok: true, tokens: ["m~n"] });
    // "~01" is "~1" unescaped once, never "/": ~1 is replaced first, then ~0.
    expect(parsePointer("/~01")).toEqual({ ok: true, tokens: ["~1"] });
    expect(parsePointer("/orders/#W123")).toEqual({ ok: true, tokens: ["orders", "#W123"] });
  });

  it("refuses a pointer without a leading slash and a bare or unknown escape", () => {
    expect(parsePointer("orders")).toEqual({
      ok: false,
      message: 'expected a JSON Pointer starting with "/" (or "" for the whole document), got "orders"',
    });
    expect(parsePointer("/a~2")).toEqual({
      ok: false,
      message: '"~" must be followed by 0 (for "~") or 1 (for "/") in a JSON Pointer; "a~2" has "~2"',
    });
    expect(parsePointer("/a/b~")).toEqual({
      ok: false,
      message: '"~" must be followed by 0 (for "~") or 1 (for "/") in a JSON Pointer; "b~" has "~"',
    });
  });
});

describe("lookupPointer", () => {
  const document: JsonValue = JSON.parse(
    '{"orders": {"#W1": {"items": [{"id": "a"}, {"id": "b"}]}}, "a/b": 1, "m~n": 2, "__proto__": {"x": 3}, "": 4}',
  );

  it("finds what a pointer names, keys with / and ~ and empty keys included", () => {
    expect(lookupPointer(document, ["orders", "#W1", "items", "1"])).toEqual({ found: true, value: { id: "b" } });
    expect(lookupPointer(document, ["a/b"])).toEqual({ found: true, value: 1 });
    expect(lookupPointer(document, ["m~n"])).toEqual({ found: true, value: 2 });
    expect(lookupPointer(document, ["__proto__", "x"])).toEqual({ found: true, value: 3 });
    expect(lookupPointer(document, [""])).toEqual({ found: true, value: 4 });
    expect(lookupPointer(document, [])).toEqual({ found: true, value: document });
  });

  it("says where the path stops: a missing key, an inherited name, an index the RFC does not allow", () => {
    expect(lookupPointer(document, ["orders", "#W2", "items"])).toEqual({
      found: false,
      parent: "/orders",
      missing: "#W2",
    });
    expect(lookupPointer(document, ["constructor"])).toEqual({ found: false, parent: "", missing: "constructor" });
    expect(lookupPointer(document, ["orders", "#W1", "items", "01"])).toEqual({
      found: false,
      parent: "/orders/#W1/items",
      missing: "01",
    });
    expect(lookupPointer(document, ["orders", "#W1", "items", "-"])).toEqual({
      found: false,
      parent: "/orders/#W1/items",
      missing: "-",
    });
    expect(lookupPointer(document, ["orders", "#W1", "items", "2"])).toEqual({
      found: false,
      parent: "/orders/#W1/items",
      missing: "2",
    });
    expect(lookupPointer(document, ["a/b", "x"])).toEqual({ found: false, parent: "/a~1b", missing: "x" });
  });

  it("finds every value of a generated document at the pointer formatted from its path", () => {
    fc.assert(
      fc.property(fc.dictionary(token, fc.dictionary(token, fc.jsonValue({ maxDepth: 2 }))), (generated) => {
        // SAFETY: fast-check's dictionaries of JSON values are JSON objects.
        const doc = JSON.parse(JSON.stringify(generated)) as JsonValue;
        for (const [outer, inner] of Object.entries(generated))
          for (const [key, value] of Object.entries(inner)) {
            const parsed = parsePointer(formatPointer([outer, key]));
            if (!parsed.ok) throw new Error(parsed.message);
            expect(lookupPointer(doc, parsed.tokens)).toEqual({
              found: true,
              value: JSON.parse(JSON.stringify(value)),
            });
          }
      }),
    );
  });
});
