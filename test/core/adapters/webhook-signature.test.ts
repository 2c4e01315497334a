/**
 * The webhook signatures (WebCrypto) against node:crypto's HMAC, written from the two formats'
 * specs: for any id, timestamp and body, what a sender signs verifies, and any change to the body,
 * the id, the timestamp or the secret does not.
 */
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  signStandard,
  STANDARD_SECRET,
  timestampFresh,
  verifyGithub,
  verifyStandard,
  webhookSecret,
} from "../../../src/adapters/webhook-signature.js";

const RUNS = 60;
const encoder = new TextEncoder();
const secretArb = fc
  .uint8Array({ minLength: 24, maxLength: 64 })
  .map((bytes) => `whsec_${Buffer.from(bytes).toString("base64")}`);
const idArb = fc.string({ minLength: 1, maxLength: 40 }).filter((id) => !id.includes(" "));
const timestampArb = fc.integer({ min: 0, max: 4_000_000_000 }).map(String);

function standardSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

describe("Standard Webhooks", () => {
  it("verifies what a sender signs, and nothing changed", async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        secretArb,
        idArb,
        timestampArb,
        fc.string({ maxLength: 200 }),
        fc.string({ minLength: 1, maxLength: 5 }),
        async (secret, other, id, timestamp, body, extra) => {
          const header = standardSignature(secret, id, timestamp, body);
          expect(await verifyStandard(secret, id, timestamp, encoder.encode(body), header)).toBe(true);
          expect(await verifyStandard(secret, id, timestamp, encoder.encode(body + extra), header)).toBe(false);
          expect(await verifyStandard(secret, id + extra, timestamp, encoder.encode(body), header)).toBe(false);
          expect(await verifyStandard(secret, id, `${timestamp}1`, encoder.encode(body), header)).toBe(false);
          if (other !== secret)
            expect(await verifyStandard(other, id, timestamp, encoder.encode(body), header)).toBe(false);
          // Any entry of a space-separated list may match; other versions are skipped.
          expect(
            await verifyStandard(
              secret,
              id,
              timestamp,
              encoder.encode(body),
              `v1,bm9wZQ== v0,${header.slice(3)} ${header}`,
            ),
          ).toBe(true);
          expect(await verifyStandard(secret, id, timestamp, encoder.encode(body), `v2,${header.slice(3)}`)).toBe(
            false,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("signs what node:crypto computes, in the v1,<base64> form", async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        idArb,
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.string({ maxLength: 200 }),
        async (secret, id, timestamp, body) => {
          expect(await signStandard(secret, id, timestamp, body)).toBe(
            standardSignature(secret, id, String(timestamp), body),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("makes secrets in the whsec_<base64> form from base64url randomness", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => 250 - i * 7);
    const secret = webhookSecret(Buffer.from(bytes).toString("base64url"));
    expect(secret).toBe(`whsec_${Buffer.from(bytes).toString("base64")}`);
  });

  it("takes as a secret exactly whsec_ and the base64 an encoder writes for 24 to 64 bytes", () => {
    const canonical = (text: string) => {
      const bytes = Buffer.from(text, "base64");
      return bytes.toString("base64") === text && bytes.length >= 24 && bytes.length <= 64;
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ minLength: 20, maxLength: 68 }).map((bytes) => Buffer.from(bytes).toString("base64")),
          // The same, changed by one character: cut, lengthened, padded again, or any character replaced.
          fc
            .tuple(
              fc.uint8Array({ minLength: 20, maxLength: 68 }).map((bytes) => Buffer.from(bytes).toString("base64")),
              fc.nat(),
              fc.constantFrom("", "A", "B", "=", "-", "_", "Q", "w", "4"),
            )
            .map(([text, at, put]) => {
              const i = at % text.length;
              return text.slice(0, i) + put + text.slice(i + 1);
            }),
          fc.string({ unit: fc.constantFrom(..."AQgwBb01+/=-_") }),
        ),
        (text) => {
          expect(STANDARD_SECRET.test(`whsec_${text}`)).toBe(canonical(text));
        },
      ),
      { numRuns: 2000 },
    );
    // whsec_ is part of the rule.
    expect(STANDARD_SECRET.test(Buffer.alloc(32, 7).toString("base64"))).toBe(false);
  });

  it("signs a secret stored under the earlier, laxer rule as it always did", async () => {
    // Unpadded base64: decoded as if padded, the key Node's Buffer derives from it.
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => i * 5);
    const unpadded = `whsec_${Buffer.from(bytes).toString("base64").replace(/=+$/, "")}`;
    expect(await signStandard(unpadded, "msg_1", 1_800_000_000, "{}")).toBe(
      `v1,${createHmac("sha256", bytes).update("msg_1.1800000000.{}").digest("base64")}`,
    );
    // Not base64 at all (33 characters): the key is the whole text, whsec_ included.
    const text = `whsec_${"A".repeat(33)}`;
    expect(await signStandard(text, "msg_1", 1_800_000_000, "{}")).toBe(
      `v1,${createHmac("sha256", text).update("msg_1.1800000000.{}").digest("base64")}`,
    );
  });

  it("takes timestamps up to five minutes away, either way, and only whole seconds", () => {
    const now = 1_800_000_000_000;
    expect([-301, -300, 0, 300, 301].map((skew) => timestampFresh(String(now / 1000 + skew), now))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
    expect(["", "1.8e9", "-1", " 1800000000", "1800000000.5"].map((text) => timestampFresh(text, now))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("GitHub", () => {
  it("verifies sha256=<hex> of the raw body keyed with the secret's text, and nothing changed", async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        fc.string({ maxLength: 200 }),
        fc.string({ minLength: 1, maxLength: 5 }),
        async (secret, body, extra) => {
          const hex = createHmac("sha256", secret).update(body).digest("hex");
          expect(await verifyGithub(secret, encoder.encode(body), `sha256=${hex}`)).toBe(true);
          expect(await verifyGithub(secret, encoder.encode(body), `sha256=${hex.toUpperCase()}`)).toBe(true);
          expect(await verifyGithub(secret, encoder.encode(body + extra), `sha256=${hex}`)).toBe(false);
          expect(await verifyGithub(secret + extra, encoder.encode(body), `sha256=${hex}`)).toBe(false);
          expect(await verifyGithub(secret, encoder.encode(body), `sha1=${hex}`)).toBe(false);
          expect(await verifyGithub(secret, encoder.encode(body), `sha256=${hex.slice(2)}`)).toBe(false);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
