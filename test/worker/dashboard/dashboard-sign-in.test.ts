import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeNext } from "../../../src/worker/dashboard/sign-in.js";
import { env } from "cloudflare:test";
import { sha256Hex } from "../../../src/adapters/crypto.js";
import { revokeKey } from "../../../src/adapters/d1/api-keys.js";
import { createSession } from "../../../src/adapters/d1/dashboard-sessions.js";
import { cookiesOf, fetchPage, hiddenField, readPage, signInWith, visibleText } from "../dashboard-helpers.js";
import { db, keyWith, newTenant } from "../helpers.js";

describe("dashboard sign-in", () => {
  it("signs in with a key, keeps only a session id in a strict cookie, and shows the tenant's pages", async () => {
    const tenant = await newTenant();
    const form = await fetchPage("GET", "/sign-in");
    expect(form.status).toBe(200);
    const cookie = cookiesOf(form);
    const token = hiddenField(await form.text(), "csrf_token") ?? "";
    const signedIn = await fetchPage("POST", "/sign-in", {
      cookie,
      form: { csrf_token: token, api_key: tenant.key, next: "/policies" },
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe("/policies");
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith("tp_session="));
    expect(session).toMatch(
      /^tp_session=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect(session).not.toContain(tenant.key);
    const page = await fetchPage("GET", "/policies", { cookie: cookiesOf(signedIn, cookie) });
    expect(page.status).toBe(200);
    expect(visibleText(await page.text())).toBe(
      `Skip to content toolproof Runs Tools Policies Judges Datasets Sign out Tenant ${tenant.name} Policies Reviewed tool policies. Every change is kept as a new version. No policies yet. Store one with PUT /api/policies/:name.`,
    );
  });

  it("keeps only the session id's hash and the key's hash in D1, never either in clear", async () => {
    const tenant = await newTenant();
    const browser = await signInWith(tenant.key);
    const id = /tp_session=([^;]+)/.exec(browser.cookie)?.[1] ?? "";
    const rows = await env.DB.prepare("select * from dashboard_sessions where tenant_id = ?").bind(tenant.id).all();
    expect(rows.results).toEqual([
      {
        id_hash: sha256Hex(id),
        key_hash: sha256Hex(tenant.key),
        tenant_id: tenant.id,
        csrf_token: browser.csrf,
        created_at: expect.any(String),
        expires_at: expect.any(String),
      },
    ]);
    const row = rows.results[0] as { created_at: string; expires_at: string };
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBeGreaterThan(8 * 3600 * 1000 - 5000);
    expect(JSON.stringify(rows.results)).not.toContain(id);
    expect(JSON.stringify(rows.results)).not.toContain(tenant.key);
  });

  it("opens nothing with an expired session, though the same session unexpired opens the pages", async () => {
    const tenant = await newTenant();
    const open = async (expiresAt: string) => {
      const id = crypto.randomUUID();
      await createSession(db(), {
        id_hash: sha256Hex(id),
        key_hash: sha256Hex(tenant.key),
        tenant_id: tenant.id,
        csrf_token: "t".repeat(32),
        expires_at: expiresAt,
      });
      return (await fetchPage("GET", "/tools", { cookie: `tp_session=${id}` })).status;
    };
    expect(await open(new Date(Date.now() + 60_000).toISOString())).toBe(200);
    expect(await open(new Date(Date.now() - 1000).toISOString())).toBe(303);
  });

  it("leaves out Secure only over plain http to a loopback host", async () => {
    const tenant = await newTenant();
    const base = "http://127.0.0.1:8787";
    const form = await fetchPage("GET", "/sign-in", { base });
    const cookie = cookiesOf(form);
    const token = hiddenField(await form.text(), "csrf_token") ?? "";
    const signedIn = await fetchPage("POST", "/sign-in", {
      base,
      cookie,
      form: { csrf_token: token, api_key: tenant.key },
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.getSetCookie().find((c) => c.startsWith("tp_session="))).toMatch(
      /^tp_session=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/,
    );
  });

  it("refuses an unknown key, a missing token and another origin, and sets no session", async () => {
    const tenant = await newTenant();
    const form = await fetchPage("GET", "/sign-in");
    const cookie = cookiesOf(form);
    const token = hiddenField(await form.text(), "csrf_token") ?? "";
    const cases: Array<{ form: Record<string, string>; origin: string | undefined; status: number; says: string }> = [
      {
        form: { csrf_token: token, api_key: "tpk_not-a-key" },
        origin: undefined,
        status: 403,
        says: "Not signed in: unknown or revoked API key.",
      },
      {
        form: { api_key: tenant.key },
        origin: undefined,
        status: 403,
        says: "Not signed in: this form's security token is missing or out of date: reload the page and send it again.",
      },
      {
        form: { csrf_token: token, api_key: tenant.key },
        origin: "https://evil.example",
        status: 403,
        says: "Not signed in: this form was sent from another origin (https://evil.example).",
      },
    ];
    for (const c of cases) {
      const response = await fetchPage("POST", "/sign-in", { cookie, form: c.form, origin: c.origin });
      const text = visibleText(await response.text());
      expect({
        status: response.status,
        notice: text.includes(c.says),
        session: response.headers.getSetCookie().some((h) => h.startsWith("tp_session=")),
      }).toEqual({ status: c.status, notice: true, session: false });
    }
  });

  it("sends a visitor without a session to the sign-in form, coming back afterwards", async () => {
    const response = await fetchPage("GET", "/tools?cursor=x");
    expect({ status: response.status, location: response.headers.get("location") }).toEqual({
      status: 303,
      location: "/sign-in?next=%2Ftools%3Fcursor%3Dx",
    });
    const form = await fetchPage("GET", "/sign-in?next=%2F%2Fevil.example");
    expect(hiddenField(await form.text(), "next")).toBe("/runs");
  });

  it("signs out only with the session's token, and then the cookie opens nothing", async () => {
    const tenant = await newTenant();
    const browser = await signInWith(tenant.key);
    const refused = await fetchPage("POST", "/sign-out", { cookie: browser.cookie, form: { csrf_token: "wrong" } });
    expect({
      status: refused.status,
      text: visibleText(await refused.text()).split(`Tenant ${tenant.name} `)[1],
    }).toEqual({
      status: 403,
      text: "Not signed out this form's security token is missing or out of date: reload the page and send it again.",
    });
    expect((await readPage(browser, "/tools")).status).toBe(200);
    const crossSite = await fetchPage("POST", "/sign-out", {
      cookie: browser.cookie,
      form: { csrf_token: browser.csrf },
      origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(403);
    const out = await fetchPage("POST", "/sign-out", { cookie: browser.cookie, form: { csrf_token: browser.csrf } });
    expect({
      status: out.status,
      location: out.headers.get("location"),
      cleared: out.headers.getSetCookie().some((h) => /^tp_session=;/.test(h)),
    }).toEqual({ status: 303, location: "/sign-in", cleared: true });
    const after = await fetchPage("GET", "/tools", { cookie: browser.cookie });
    expect(after.status).toBe(303);
  });

  it("ends the session when its key is revoked", async () => {
    const tenant = await newTenant();
    const browser = await signInWith(tenant.key);
    expect((await readPage(browser, "/tools")).status).toBe(200);
    expect(await revokeKey(db(), tenant.id, tenant.keyId)).toBe(true);
    const after = await fetchPage("GET", "/tools", { cookie: browser.cookie });
    expect({ status: after.status, location: after.headers.get("location") }).toEqual({
      status: 303,
      location: "/sign-in?next=%2Ftools",
    });
  });

  it("says which permission a page needs when the key lacks it", async () => {
    const tenant = await newTenant();
    const browser = await signInWith(await keyWith(tenant.id, ["AIManager:ManageTools"]));
    const judges = await readPage(browser, "/judges");
    expect({ status: judges.status, text: judges.text.split(`Tenant ${tenant.name} `)[1] }).toEqual({
      status: 403,
      text: "Permission needed This page needs the permission AIManager:RunEvals , and the API key you signed in with lacks it. Sign out and sign in with a key that has it (or an Admin key).",
    });
  });

  it("answers any sign-in form with a page, never a 5xx, and signs in with none of them", {
    timeout: 30_000,
  }, async () => {
    const form = await fetchPage("GET", "/sign-in");
    const cookie = cookiesOf(form);
    const token = hiddenField(await form.text(), "csrf_token") ?? "";
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom("api_key", "csrf_token", "next", "other"), fc.string({ maxLength: 40 })),
        fc.boolean(),
        async (fields, withToken) => {
          const response = await fetchPage("POST", "/sign-in", {
            cookie,
            form: withToken ? { ...fields, csrf_token: token } : fields,
          });
          expect([400, 403]).toContain(response.status);
          expect(response.headers.get("content-type")).toBe("text/html; charset=UTF-8");
          expect(response.headers.getSetCookie().some((h) => h.startsWith("tp_session="))).toBe(false);
        },
      ),
      { numRuns: 40 },
    );
  });

  // fast-check's URL generators are slow on a loaded machine: a generous timeout, bounded runs.
  it("sends people back only to a path on this site", { timeout: 30_000 }, () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.webUrl(),
          fc.webPath(),
          fc.constantFrom(
            "//evil.example",
            "/\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/sign-in",
            "javascript:alert(1)",
          ),
        ),
        (next) => {
          const target = safeNext(next);
          expect(target.startsWith("/") && !target.startsWith("//") && !target.startsWith("/\\")).toBe(true);
          expect(new URL(target, "http://toolproof.test").origin).toBe("http://toolproof.test");
        },
      ),
      { numRuns: 100 },
    );
    expect([safeNext("/judges/invoicedesk?x=1"), safeNext("https://evil.example/"), safeNext(undefined)]).toEqual([
      "/judges/invoicedesk?x=1",
      "/runs",
      "/runs",
    ]);
  });

  it("serves the stylesheet to anyone", async () => {
    const response = await fetchPage("GET", "/dashboard.css");
    expect({ status: response.status, type: response.headers.get("content-type") }).toEqual({
      status: 200,
      type: "text/css; charset=utf-8",
    });
  });
});
