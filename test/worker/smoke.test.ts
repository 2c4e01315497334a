import { exports } from "cloudflare:workers";
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
it("answers", async () => {
  const res = await exports.default.fetch("http://x/health");
  expect(await res.json()).toEqual({ ok: true });
  expect((await env.DB.prepare("select 1 as one").first())).toEqual({ one: 1 });
});
