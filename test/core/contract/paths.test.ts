import { describe, expect, it } from "vitest";
import { pathProblem, resolvePath, setPath, splitPath } from "../../../src/core/contract/paths.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";

const doc: JsonObject = {
  patient: { id: "P-1", tags: ["a", "b"], nothing: null },
  items: [{ sku: "X" }, { sku: "Y" }],
  "01": "key with digits",
  zero: 0,
};

describe("resolvePath", () => {
  it.each<[string, JsonValue | undefined]>([
    ["", doc],
    ["patient.id", "P-1"],
    ["patient.tags.1", "b"],
    ["patient.tags.2", undefined],
    ["patient.nothing", null],
    ["patient.nothing.deeper", undefined],
    ["items.0.sku", "X"],
    ["items.01.sku", "Y"],
    ["items.length", undefined],
    ["items.-1", undefined],
    ["01", "key with digits"],
    ["zero", 0],
    ["zero.x", undefined],
    ["missing", undefined],
    ["patient.id.length", undefined],
    ["toString", undefined],
    ["constructor", undefined],
    ["__proto__", undefined],
    ["patient.hasOwnProperty", undefined],
  ])("%j resolves to %j", (path, expected) => {
    expect(resolvePath(doc, splitPath(path))).toEqual(expected);
  });

  it("never reads through the prototype chain, even a polluted one", () => {
    // SAFETY: deliberately writing to Object.prototype to simulate prototype pollution.
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = "yes";
    try {
      expect(resolvePath({}, ["polluted"])).toBeUndefined();
      expect(resolvePath({ a: {} }, ["a", "polluted"])).toBeUndefined();
    } finally {
      delete proto.polluted;
    }
  });

  it("reads an own __proto__ key as data", () => {
    const value: unknown = JSON.parse('{"__proto__": {"x": 1}}');
    expect(resolvePath(value, ["__proto__", "x"])).toBe(1);
  });
});

describe("pathProblem", () => {
  it.each<[string, boolean, string | null]>([
    ["", true, null],
    ["", false, "expected a non-empty dot-separated path"],
    ["a.b.0", false, null],
    ["a..b", true, 'expected dot-separated keys without empty segments; got "a..b"'],
    [".a", true, 'expected dot-separated keys without empty segments; got ".a"'],
    ["a.", true, 'expected dot-separated keys without empty segments; got "a."'],
    ["__proto__", true, 'path segment "__proto__" is not allowed (__proto__, prototype and constructor are reserved)'],
    [
      "a.prototype",
      true,
      'path segment "prototype" is not allowed (__proto__, prototype and constructor are reserved)',
    ],
    [
      "a.constructor.b",
      true,
      'path segment "constructor" is not allowed (__proto__, prototype and constructor are reserved)',
    ],
    ["a.__proto__x", true, null],
  ])("%j (allowEmpty %s)", (path, allowEmpty, expected) => {
    expect(pathProblem(path, allowEmpty)).toBe(expected);
  });
});

describe("setPath", () => {
  it.each<[string, JsonObject, string, JsonValue, JsonObject]>([
    ["sets a top-level key", {}, "a", 1, { a: 1 }],
    ["creates intermediate objects", {}, "a.b.c", true, { a: { b: { c: true } } }],
    ["replaces a scalar intermediate with an object", { a: 5 }, "a.b", 1, { a: { b: 1 } }],
    ["replaces a null intermediate with an object", { a: null }, "a.b", 1, { a: { b: 1 } }],
    ["keeps siblings", { a: { x: 1 } }, "a.y", 2, { a: { x: 1, y: 2 } }],
    ["replaces an array element", { a: [1, 2] }, "a.1", 9, { a: [1, 9] }],
    ["appends at the array length", { a: [1, 2] }, "a.2", 3, { a: [1, 2, 3] }],
    ["descends into an array element", { a: [{ x: 1 }] }, "a.0.y", 2, { a: [{ x: 1, y: 2 }] }],
    ["uses a digit key on an object as a key", { a: {} }, "a.0", "zero", { a: { "0": "zero" } }],
  ])("%s", (_name, state, path, value, expected) => {
    expect(setPath(state, splitPath(path), value)).toBeNull();
    expect(state).toEqual(expected);
  });

  it.each<[string, JsonObject, string, string]>([
    [
      "an index past the end",
      { a: [1] },
      "a.5",
      'cannot write "a.5": the state holds an array of length 1 at "a", which "5" does not index (use an existing index or the length to append)',
    ],
    [
      "a key on an array",
      { a: [1] },
      "a.x",
      'cannot write "a.x": the state holds an array of length 1 at "a", which "x" does not index (use an existing index or the length to append)',
    ],
    ["the whole state", {}, "", "the whole state cannot be replaced; name a key"],
  ])("refuses %s", (_name, state, path, message) => {
    expect(setPath(state, splitPath(path), 1)).toBe(message);
  });
});
