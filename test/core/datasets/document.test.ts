import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { datasetContentHash, readDatasetDocument } from "../../../src/core/datasets/document.js";
import { datasetCollections } from "../../../src/core/datasets/summary.js";

describe("readDatasetDocument", () => {
  it("keeps the document's key order and drops whitespace", () => {
    expect(readDatasetDocument('{\n  "users": {"b": 1, "a": 2},\n  "orders": [ 3, 1 ]\n}')).toEqual({
      ok: true,
      document: { users: { b: 1, a: 2 }, orders: [3, 1] },
      canonical: '{"users":{"b":1,"a":2},"orders":[3,1]}',
    });
  });

  it("says where a text stops being JSON", () => {
    expect(readDatasetDocument('{"orders": {"a": 1,}}')).toEqual({
      ok: false,
      kind: "malformed",
      message: "Expected double-quoted property name in JSON at position 19 (line 1 column 20)",
    });
  });

  it("refuses a top level that is not an object, naming what it is", () => {
    expect(readDatasetDocument("[1, 2]")).toEqual({
      ok: false,
      kind: "invalid",
      problems: [
        {
          path: "",
          message:
            'expected a JSON object at the top level (its members are the dataset\'s collections, e.g. {"orders": {...}}), got an array',
        },
      ],
    });
    expect(readDatasetDocument("null")).toMatchObject({
      ok: false,
      problems: [{ path: "", message: expect.stringMatching(/got null$/) }],
    });
  });

  it("refuses a key written twice, which JSON.parse would silently drop", () => {
    expect(readDatasetDocument('{"orders": {"#W1": {"a": 1}, "#W1": {"a": 2}}}')).toEqual({
      ok: false,
      kind: "invalid",
      problems: [
        {
          path: "/orders/#W1",
          message:
            'the key "#W1" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word',
        },
      ],
    });
  });

  it("refuses numbers JSON cannot carry and lone surrogates, at their places", () => {
    expect(readDatasetDocument('{"a": [1e400], "b": "\\ud800"}')).toEqual({
      ok: false,
      kind: "invalid",
      problems: [
        {
          path: "/b",
          message: "expected well-formed Unicode text: this string has a lone UTF-16 surrogate, which cannot be stored",
        },
        {
          path: "/a/0",
          message:
            "expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)",
        },
      ],
    });
  });
});

describe("datasetContentHash", () => {
  it("is the SHA-256 hex of the canonical text's UTF-8 bytes", async () => {
    const canonical = '{"users":{"é":"ü"}}';
    expect(await datasetContentHash(canonical)).toBe(createHash("sha256").update(canonical, "utf8").digest("hex"));
  });
});

describe("datasetCollections", () => {
  it("lists objects and arrays with their record counts, in document order, and leaves scalars out", () => {
    expect(
      datasetCollections({ users: { a: {}, b: {} }, version: "1", orders: [1, 2, 3], empty: {}, none: null }),
    ).toEqual([
      { name: "users", kind: "object", records: 2 },
      { name: "orders", kind: "array", records: 3 },
      { name: "empty", kind: "object", records: 0 },
    ]);
  });
});
