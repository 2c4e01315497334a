/**
 * Redaction of secrets an endpoint echoes back: every common spelling of each secret is gone from
 * the text, whatever surrounds it, and text without a secret is left as it was.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, redactionList, redactJson, redactText, secretSpellings } from "../../src/core/secret-redaction.js";

const params = (numRuns: number) => ({ seed: 9, numRuns: numRuns * Number(process.env.FC_RUNS ?? 1) });

/** The ways an endpoint may echo a secret, computed with Node's own encoders (not the module's). */
const echoes: Array<[string, (secret: string) => string]> = [
  ["as is", (s) => s],
  ["upper-cased", (s) => s.toUpperCase()],
  ["lower-cased", (s) => s.toLowerCase()],
  ["percent-encoded", (s) => encodeURIComponent(s)],
  ["percent-encoded, lower-case hex", (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
  ["form-encoded", (s) => new URLSearchParams({ k: s }).toString().slice(2)],
  ["JSON-escaped", (s) => JSON.stringify(s).slice(1, -1)],
  ["hex", (s) => Buffer.from(s).toString("hex")],
  ["base64", (s) => Buffer.from(s).toString("base64")],
  ["base64 without padding", (s) => Buffer.from(s).toString("base64").replace(/=+$/, "")],
  ["base64url", (s) => Buffer.from(s).toString("base64url")],
  ["base64url with padding", (s) => Buffer.from(s).toString("base64").replaceAll("+", "-").replaceAll("/", "_")],
  ["base64 of a bearer header", (s) => Buffer.from(`Bearer ${s}`).toString("base64")],
  ["base64 inside JSON at any offset", (s) => Buffer.from(`{"authorization":"Bearer ${s}","x":1}`).toString("base64")],
];

/** What may be left of a blanked base64 text: at most the few characters that also depend on the bytes around the secret. */
function leftOver(text: string, secret: string): boolean {
  const lower = text.toLowerCase();
  const plain = [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString("hex"),
  ].map((s) => s.toLowerCase());
  return plain.some((s) => lower.includes(s));
}

const secretArb = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=:@ é"\\'),
  minLength: 8,
  maxLength: 60,
});

describe("redactText", () => {
  it("blanks every common spelling of the secret, in any surrounding text", () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.constantFrom(...echoes),
        fc.string(),
        fc.string(),
        (secret, [, echo], before, after) => {
          const spellings = redactionList([secret]);
          const echoed = echo(secret);
          const text = `${before}${echoed}${after}`;
          const redacted = redactText(text, spellings);
          expect(redacted).toContain(REDACTED);
          expect(leftOver(redacted, secret)).toBe(false);
          // Base64 of a longer text keeps at most two characters beside the blank on each side.
          const b64 = Buffer.from(secret).toString("base64").replace(/=+$/, "");
          expect(redacted.includes(b64.slice(1, -1)) && b64.length > 10).toBe(false);
        },
      ),
      params(1500),
    );
  });

  it("leaves text without the secret as it was", () => {
    fc.assert(
      fc.property(secretArb, fc.string({ maxLength: 200 }), (secret, text) => {
        fc.pre(!text.toLowerCase().includes(secret.toLowerCase().slice(0, 4)));
        expect(redactText(text, redactionList([secret]))).toBe(text);
      }),
      params(500),
    );
  });

  it("blanks the probe's echoes of a connection key and a header value, and nothing else", () => {
    const key = "sk-proj-VERY-SECRET-0123456789";
    const header = "hdr SECRET/value+987";
    const spellings = redactionList([key, header]);
    const said = [
      `Incorrect API key provided: ${key}.`,
      `got ${encodeURIComponent(key)} and ${encodeURIComponent(header)}`,
      `b64 ${Buffer.from(key).toString("base64")} b64url ${Buffer.from(key).toString("base64url")}`,
      `upper ${key.toUpperCase()} lower ${key.toLowerCase()} form ${new URLSearchParams({ h: header }).toString()}`,
    ].join(" | ");
    expect(redactText(said, spellings)).toBe(
      "Incorrect API key provided: [redacted]. | got [redacted] and [redacted] | b64 [redacted] b64url [redacted] | upper [redacted] lower [redacted] form h=[redacted]",
    );
  });

  it("does not blank secrets too short to tell from ordinary text", () => {
    expect([secretSpellings("abc"), redactText("abc abcd", redactionList(["abc", "abcd"]))]).toEqual([
      [],
      "abc [redacted]",
    ]);
  });

  it("spells base64 as Node does, in both alphabets", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 4, maxLength: 40 }), (secret) => {
        const spellings = secretSpellings(secret);
        expect(spellings).toContain(Buffer.from(secret).toString("base64").toLowerCase());
        expect(spellings).toContain(Buffer.from(secret).toString("base64url").toLowerCase());
      }),
      params(300),
    );
  });
});

describe("redactJson", () => {
  it("blanks strings and keys at any depth, and keeps everything else", () => {
    const key = "the-api-token";
    const answer = {
      echo: `Bearer ${key}`,
      nested: [{ [key]: 1, b64: Buffer.from(key).toString("base64"), n: 2, ok: true, none: null }],
    };
    expect(redactJson(answer, redactionList([key, `Bearer ${key}`]))).toEqual({
      echo: "[redacted]",
      nested: [{ "[redacted]": 1, b64: "[redacted]", n: 2, ok: true, none: null }],
    });
  });
});
