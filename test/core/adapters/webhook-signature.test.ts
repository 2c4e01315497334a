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
