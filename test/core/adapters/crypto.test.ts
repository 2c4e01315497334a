/** The hashing and comparison helpers every token and API key check goes through. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base64url, constantTimeEqual, newId, sha256Hex } from "../../../src/adapters/crypto.js";

describe("constantTimeEqual", () => {
  it("agrees with === on any two strings, near misses and unicode included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
        expect(constantTimeEqual(a, `${a}x`)).toBe(false);
      }),
    );
    expect([
      constantTimeEqual("", ""),
      constantTimeEqual("a", ""),
      constantTimeEqual("ab", "ac"),
      constantTimeEqual("é", "e"),
    ]).toEqual([true, false, false, false]);
  });
});

describe("sha256Hex", () => {
  it("is the hex SHA-256 of the UTF-8 text, as WebCrypto computes it", async () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme" }), async (text) => {
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
        expect(sha256Hex(text)).toBe(Buffer.from(digest).toString("hex"));
      }),
    );
  });
});

describe("ids and secrets", () => {
  it("are base64url with the given prefix", () => {
    expect(base64url(new Uint8Array([251, 255, 191]))).toBe("-_-_");
    expect(newId("att")).toMatch(/^att_[A-Za-z0-9_-]{22}$/);
  });
});
