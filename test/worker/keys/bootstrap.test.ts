/**
 * POST /api/bootstrap: the first Admin key of a deployed instance, through the Worker's own fetch
 * handler. This file's D1 starts with no API key at all (storage is isolated per test file), as a
 * fresh deployment does; the tests run in order and the mint in the middle shuts the door for the
 * ones after it.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bootstrapWithSecret } from "../bootstrap-helpers.js";
import { answer, call, invalidAnswer } from "../helpers.js";

const TOKEN = "bootstrap-token-for-tests-only-0123456789abcdef";

/** The Worker with TOOLPROOF_BOOTSTRAP_TOKEN set, as after `wrangler secret put TOOLPROOF_BOOTSTRAP_TOKEN`. */
async function bootstrap(options: {
  secret?: string | undefined;
  authorization?: string;
  body?: unknown;
}): Promise<{ status: number; body: unknown }> {
  return answer(await bootstrapWithSecret("secret" in options ? options.secret : TOKEN, options));
}

const SETUP =
  "set one with `openssl rand -hex 32 | npx wrangler secret put TOOLPROOF_BOOTSTRAP_TOKEN` (README, Deploy)";
const REFUSED = {
  status: 401,
  body: {
    error: {
      code: "unauthorized",
      message:
        "bootstrap refused: the token is not this deployment's TOOLPROOF_BOOTSTRAP_TOKEN, or the deployment has API keys already (bootstrap mints only the very first key)",
    },
  },
};

describe("POST /api/bootstrap before any key exists", () => {
  it("is off, and says how to turn it on, when the deployment has no bootstrap secret", async () => {
    // wrangler.toml sets no TOOLPROOF_BOOTSTRAP_TOKEN: the Worker as configured.
    expect(
      await answer(
        await call("POST", "/api/bootstrap", {
          body: { tenant: "acme" },
          headers: { authorization: `Bearer ${TOKEN}` },
        }),
      ),
    ).toEqual({
      status: 503,
      body: {
        error: {
          code: "secret_not_configured",
          message: `bootstrap is off: this deployment has no TOOLPROOF_BOOTSTRAP_TOKEN secret; ${SETUP}`,
        },
      },
    });
    expect(await bootstrap({ secret: "   ", authorization: `Bearer ${TOKEN}` })).toEqual({
      status: 503,
      body: {
        error: {
          code: "secret_not_configured",
          message: `bootstrap is off: this deployment has no TOOLPROOF_BOOTSTRAP_TOKEN secret; ${SETUP}`,
        },
      },
    });
  });

  it("is off while the secret is too short to withstand guessing", async () => {
    expect(await bootstrap({ secret: "short-secret", authorization: "Bearer short-secret" })).toEqual({
      status: 503,
      body: {
        error: {
          code: "secret_not_configured",
          message: `bootstrap is off: TOOLPROOF_BOOTSTRAP_TOKEN is shorter than 32 characters; ${SETUP}`,
        },
      },
    });
  });

  it("refuses a wrong token, a near miss, another scheme and no token alike", async () => {
    for (const authorization of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN.toUpperCase()}`,
      `Basic ${TOKEN}`,
      "Bearer",
      "",
    ]) {
      expect(await bootstrap({ authorization })).toEqual(REFUSED);
    }
    expect(await bootstrap({})).toEqual(REFUSED);
  });

  it("names the field of a bad body once the token is right", async () => {
    expect(
      await bootstrap({ authorization: `Bearer ${TOKEN}`, body: { tenant: "-acme", key_name: "", tenat: "x" } }),
    ).toEqual(
      invalidAnswer(
        {
          path: "/tenant",
          message: "expected 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit",
        },
        { path: "/key_name", message: "expected 1 to 100 characters" },
        { path: "/tenat", message: 'unknown field "tenat"; did you mean "tenant"?' },
      ),
    );
  });

  it("mints exactly one Admin key when two bootstraps race, and that key works", async () => {
    const [first, second] = await Promise.all([
      bootstrap({ authorization: `Bearer ${TOKEN}`, body: { tenant: "acme", key_name: "first admin" } }),
      bootstrap({ authorization: `Bearer ${TOKEN}`, body: { tenant: "other" } }),
    ]);
    const results = [first, second];
    const minted = results.filter((result) => result.status === 201);
    expect(minted).toHaveLength(1);
    expect(results.filter((result) => result.status !== 201)).toEqual([REFUSED]);
    const won = minted[0]?.body;
    const tenantName = first?.status === 201 ? "acme" : "other";
    const keyName = first?.status === 201 ? "first admin" : "bootstrap admin";
    expect(won).toEqual({
      tenant: { id: expect.stringMatching(/^tnt_/), name: tenantName },
      key: expect.stringMatching(/^tpk_[A-Za-z0-9_-]{43}$/),
      key_id: expect.stringMatching(/^key_/),
      name: keyName,
      prefix: String((won as { key: string }).key).slice(0, 12),
      // The root key holds every permission, RunRealTools too, so every permission can be handed on (POST /api/keys).
      permissions: ["AIManager:ManageTools", "AIManager:RunEvals", "AIManager:Admin", "AIManager:RunRealTools"],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const key = (won as { key: string }).key;
    // An Admin route (connections need AIManager:Admin) opens with it, for the tenant it named.
    expect(await answer(await call("GET", "/api/connections", { key }))).toEqual({
      status: 200,
      body: { items: [], next_cursor: null },
    });
    // And it hands RunRealTools on, which an Admin key without it could not.
    const granted = await answer(
      await call("POST", "/api/keys", { key, body: { name: "real tools", permissions: ["AIManager:RunRealTools"] } }),
    );
    expect({ status: granted.status, permissions: (granted.body as { permissions?: unknown }).permissions }).toEqual({
      status: 201,
      permissions: ["AIManager:RunRealTools"],
    });
    // The loser's tenant was not created either: the whole batch wrote nothing.
    const tenants = await env.DB.prepare("SELECT name FROM tenants ORDER BY name").all<{ name: string }>();
    expect(tenants.results).toEqual([{ name: tenantName }]);
  });
});

describe("POST /api/bootstrap once a key exists", () => {
  it("refuses the right token with the very answer a wrong one gets, whatever the body", async () => {
    expect(await bootstrap({ authorization: `Bearer ${TOKEN}`, body: { tenant: "acme" } })).toEqual(REFUSED);
    expect(await bootstrap({ authorization: `Bearer ${TOKEN}`, body: { tenant: "newcomer" } })).toEqual(REFUSED);
    expect(await bootstrap({ authorization: `Bearer ${TOKEN}`, body: { tenant: "-" } })).toEqual(REFUSED);
    expect(await bootstrap({ authorization: "Bearer wrong" })).toEqual(REFUSED);
    // The bootstrap key and the one it granted above: no refused bootstrap wrote a key.
    const keys = await env.DB.prepare("SELECT count(*) AS n FROM api_keys").first<{ n: number }>();
    expect(keys).toEqual({ n: 2 });
  });
});
