/** Sealing connection secrets: round trips, and every way a sealed value must refuse to open. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { connectionContext, open, seal, sealingKey } from "../../../src/adapters/secret-box.js";

const SECRET = Buffer.alloc(32, 7).toString("base64url");
const OTHER_SECRET = Buffer.alloc(32, 8).toString("base64url");

async function keyOf(secret: string): Promise<CryptoKey> {
  const key = await sealingKey(secret);
  if (!key.ok) throw new Error(key.message);
  return key.key;
}

describe("seal and open", () => {
  it("round-trips any text for its own place, and refuses another place, another secret or any altered byte", async () => {
    const key = await keyOf(SECRET);
    const other = await keyOf(OTHER_SECRET);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme" }),
        fc.string(),
        fc.string(),
        fc.nat(),
        async (text, tenant, name, flip) => {
          const context = connectionContext(tenant, name);
          const sealed = await seal(key, text, context);
          expect(await open(key, sealed, context)).toBe(text);
          expect(await open(key, sealed, connectionContext(`${tenant}x`, name))).toBeUndefined();
          expect(await open(key, sealed, connectionContext(tenant, `${name}x`))).toBeUndefined();
          expect(await open(other, sealed, context)).toBeUndefined();
          const body = Buffer.from(sealed.slice(3), "base64url");
          const index = flip % body.length;
          body[index] = (body[index] ?? 0) ^ 1;
          expect(await open(key, `v1.${body.toString("base64url")}`, context)).toBeUndefined();
        },
      ),
      { numRuns: 50 },
    );
  });

  it("never seals the same text twice alike, and never shows it", async () => {
    const key = await keyOf(SECRET);
    const context = connectionContext("tenant", "agent");
    const [a, b] = [await seal(key, "sk-live-secret", context), await seal(key, "sk-live-secret", context)];
    expect(a).not.toBe(b);
    expect([
      a.startsWith("v1."),
      a.includes("sk-live"),
      Buffer.from(a.slice(3), "base64url").includes("sk-live"),
    ]).toEqual([true, false, false]);
  });

  it("refuses what is not a sealed value", async () => {
    const key = await keyOf(SECRET);
    const context = connectionContext("t", "n");
    expect(
      await Promise.all(["", "v1.", "v2.abc", "v1.!!!", "v1.AAAA", "plain text"].map((s) => open(key, s, context))),
    ).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it("keeps tenant and name apart whatever they contain", () => {
    expect(connectionContext("a", "b\u0000c")).not.toBe(connectionContext("a\u0000b", "c"));
    expect(connectionContext('a","b', "c")).not.toBe(connectionContext("a", 'b","c'));
  });
});

describe("sealingKey", () => {
  it("says how to set a missing or malformed deployment secret", async () => {
    const how =
      "set the deployment secret TOOLPROOF_SECRET (32 random bytes as base64url): `wrangler secret put TOOLPROOF_SECRET` for a deployed Worker (for example with the output of `node -e \"console.log(require('crypto').randomBytes(32).toString('base64url'))\"`); `npm start` makes one in its state folder";
    expect(
      await Promise.all(
        [undefined, "", "  ", "short", "not base64url!!", Buffer.alloc(31).toString("base64url")].map(sealingKey),
      ),
    ).toEqual([
      { ok: false, message: `the deployment secret TOOLPROOF_SECRET is not configured: ${how}` },
      { ok: false, message: `the deployment secret TOOLPROOF_SECRET is not configured: ${how}` },
      { ok: false, message: `the deployment secret TOOLPROOF_SECRET is not configured: ${how}` },
      { ok: false, message: `the deployment secret TOOLPROOF_SECRET is not at least 32 bytes of base64url: ${how}` },
      { ok: false, message: `the deployment secret TOOLPROOF_SECRET is not at least 32 bytes of base64url: ${how}` },
      { ok: false, message: `the deployment secret TOOLPROOF_SECRET is not at least 32 bytes of base64url: ${how}` },
    ]);
  });
});
