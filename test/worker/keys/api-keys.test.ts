/**
 * API keys over HTTP (POST, GET, DELETE /api/keys): what a deployment that has only its HTTP
 * surface uses after POST /api/bootstrap, through the Worker's own fetch handler.
 */
import { describe, expect, it } from "vitest";
import { answer, call, invalidAnswer, keyWith, newTenant } from "../helpers.js";

const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d/);
const NEW_KEY = expect.stringMatching(/^tpk_[A-Za-z0-9_-]{43}$/);

interface MintedKey {
  key: string;
  id: string;
  prefix: string;
}

async function mint(adminKey: string, body: unknown): Promise<MintedKey> {
  const created = await answer(await call("POST", "/api/keys", { key: adminKey, body }));
  if (created.status !== 201)
    throw new Error(`POST /api/keys answered ${created.status}: ${JSON.stringify(created.body)}`);
  // SAFETY: a 201 answer of POST /api/keys (its whole shape is asserted in the first test).
  return created.body as MintedKey;
}

describe("POST /api/keys", () => {
  it("mints a key shown once, which opens exactly the routes of its permissions", async () => {
    const tenant = await newTenant();
    const created = await answer(
      await call("POST", "/api/keys", {
        key: tenant.key,
        body: { name: "ci", permissions: ["AIManager:RunEvals", "AIManager:RunEvals"] },
      }),
    );
    const key = (created.body as { key: string }).key;
    expect(created).toEqual({
      status: 201,
      body: {
        key: NEW_KEY,
        id: expect.stringMatching(/^key_/),
        name: "ci",
        prefix: key.slice(0, 12),
        permissions: ["AIManager:RunEvals"],
        created_at: TIME,
        last_used_at: null,
        revoked_at: null,
      },
    });
    expect((await call("GET", "/api/runs", { key })).status).toBe(200);
    expect(await answer(await call("GET", "/api/keys", { key }))).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "this API key lacks the permission AIManager:Admin",
          details: { required_permission: "AIManager:Admin" },
        },
      },
    });
    expect((await call("POST", "/api/tools", { key, body: {} })).status).toBe(403);
  });

  it("refuses unknown permissions and bad names, naming each field", async () => {
    const tenant = await newTenant();
    const allowed =
      "expected one of: AIManager:ManageTools, AIManager:RunEvals, AIManager:Admin, AIManager:RunRealTools";
    expect(
      await answer(
        await call("POST", "/api/keys", {
          key: tenant.key,
          body: { name: "x", permissions: ["AIManager:RunEvals", "AIManager:Root"] },
        }),
      ),
    ).toEqual(invalidAnswer({ path: "/permissions/1", message: allowed }));
    expect(
      await answer(await call("POST", "/api/keys", { key: tenant.key, body: { name: "", permissions: [] } })),
    ).toEqual(
      invalidAnswer(
        { path: "/name", message: "expected 1 to 100 characters" },
        { path: "/permissions", message: `expected at least one of: ${allowed.slice("expected one of: ".length)}` },
      ),
    );
    const missing = await answer(
      await call("POST", "/api/keys", {
        key: tenant.key,
        body: { permissions: ["AIManager:RunEvals"], tenant: "other" },
      }),
    );
    expect(
      (missing.body as { error: { details: { problems: Array<{ path: string }> } } }).error.details.problems.map(
        (problem) => problem.path,
      ),
    ).toEqual(["/name", "/tenant"]);
  });

  it("grants only what the calling key holds: an Admin key without RunRealTools cannot hand it on", async () => {
    const tenant = await newTenant();
    const admin = await keyWith(tenant.id, ["AIManager:Admin"]);
    expect(
      await answer(
        await call("POST", "/api/keys", {
          key: admin,
          body: { name: "real", permissions: ["AIManager:ManageTools", "AIManager:RunRealTools"] },
        }),
      ),
    ).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "a key grants only permissions it holds: this API key does not hold AIManager:RunRealTools",
          details: {
            problems: [
              {
                path: "/permissions/1",
                message: "this API key does not hold AIManager:RunRealTools, so it cannot grant it",
              },
            ],
          },
        },
      },
    });
    // What Admin implies it may grant, Admin itself included.
    expect(
      (
        await mint(admin, {
          name: "tools",
          permissions: ["AIManager:ManageTools", "AIManager:RunEvals", "AIManager:Admin"],
        })
      ).key,
    ).toEqual(NEW_KEY);
    // A key holding RunRealTools (the test tenant's key holds every permission) hands it on.
    expect((await mint(tenant.key, { name: "real", permissions: ["AIManager:RunRealTools"] })).key).toEqual(NEW_KEY);
  });
});

describe("GET /api/keys", () => {
  it("lists the tenant's keys oldest first, never the key or its hash, one page at a time", async () => {
    const tenant = await newTenant();
    const ci = await mint(tenant.key, { name: "ci", permissions: ["AIManager:RunEvals"] });
    await newTenant(); // another tenant's keys never show
    const first = await answer(await call("GET", "/api/keys?limit=1", { key: tenant.key }));
    expect(first).toEqual({
      status: 200,
      body: {
        items: [
          {
            id: tenant.keyId,
            name: "test",
            prefix: tenant.key.slice(0, 12),
            permissions: ["AIManager:ManageTools", "AIManager:RunEvals", "AIManager:Admin", "AIManager:RunRealTools"],
            created_at: TIME,
            last_used_at: expect.toBeOneOf([null, TIME]),
            revoked_at: null,
          },
        ],
        next_cursor: expect.any(String),
      },
    });
    const cursor = (first.body as { next_cursor: string }).next_cursor;
    expect(await answer(await call("GET", `/api/keys?limit=1&cursor=${cursor}`, { key: tenant.key }))).toEqual({
      status: 200,
      body: {
        items: [
          {
            id: ci.id,
            name: "ci",
            prefix: ci.prefix,
            permissions: ["AIManager:RunEvals"],
            created_at: TIME,
            last_used_at: null,
            revoked_at: null,
          },
        ],
        next_cursor: null,
      },
    });
    const text = await (await call("GET", "/api/keys", { key: tenant.key })).text();
    expect({ key: text.includes(ci.key), hash: text.includes("key_hash") }).toEqual({ key: false, hash: false });
  });
});

describe("DELETE /api/keys/:id", () => {
  it("revokes a key, which is refused at once; revoking it again answers the same revocation", async () => {
    const tenant = await newTenant();
    const ci = await mint(tenant.key, { name: "ci", permissions: ["AIManager:RunEvals"] });
    expect((await call("GET", "/api/runs", { key: ci.key })).status).toBe(200);
    const revoked = await answer(await call("DELETE", `/api/keys/${ci.id}`, { key: tenant.key }));
    expect(revoked).toEqual({
      status: 200,
      body: {
        id: ci.id,
        name: "ci",
        prefix: ci.prefix,
        permissions: ["AIManager:RunEvals"],
        created_at: TIME,
        last_used_at: expect.toBeOneOf([null, TIME]),
        revoked_at: TIME,
      },
    });
    expect(await answer(await call("GET", "/api/runs", { key: ci.key }))).toEqual({
      status: 401,
      body: { error: { code: "unauthorized", message: "unknown or revoked API key" } },
    });
    expect(await answer(await call("DELETE", `/api/keys/${ci.id}`, { key: tenant.key }))).toEqual(revoked);
    expect(await answer(await call("GET", `/api/keys/${ci.id}`, { key: tenant.key }))).toEqual(revoked);
  });

  it("refuses to revoke the tenant's last unrevoked Admin key, naming why, and allows it once another exists", async () => {
    const tenant = await newTenant();
    const lastAdmin = (id: string) => ({
      status: 409,
      body: {
        error: {
          code: "last_admin_key",
          message: `key ${id} is this tenant's last unrevoked AIManager:Admin key: revoking it would leave no key that can mint or revoke keys; create another Admin key first (POST /api/keys), then revoke this one`,
          details: { key_id: id },
        },
      },
    });
    // A non-Admin key standing beside it does not count.
    await mint(tenant.key, { name: "tools", permissions: ["AIManager:ManageTools"] });
    expect(await answer(await call("DELETE", `/api/keys/${tenant.keyId}`, { key: tenant.key }))).toEqual(
      lastAdmin(tenant.keyId),
    );
    const second = await mint(tenant.key, { name: "second admin", permissions: ["AIManager:Admin"] });
    // Two revocations at once, each by the key the other revokes: one goes through, the other is
    // refused (409 if it saw the first's key standing when it checked, 401 if its own key was gone by then).
    const both = await Promise.all(
      [
        call("DELETE", `/api/keys/${tenant.keyId}`, { key: second.key }),
        call("DELETE", `/api/keys/${second.id}`, { key: tenant.key }),
      ].map(async (p) => (await p).status),
    );
    expect(both.filter((status) => status === 200)).toEqual([200]);
    const survivor = both[0] === 200 ? second.key : tenant.key;
    const listed = await answer(await call("GET", "/api/keys", { key: survivor }));
    const standing = (
      listed.body as { items: Array<{ permissions: string[]; revoked_at: string | null }> }
    ).items.filter((key) => key.revoked_at === null && key.permissions.includes("AIManager:Admin"));
    expect(standing).toHaveLength(1);
  });

  it("answers 404 for another tenant's key, exactly as for an unknown id", async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    const notFound = { status: 404, body: { error: { code: "not_found", message: "API key not found" } } };
    expect(await answer(await call("DELETE", `/api/keys/${other.keyId}`, { key: tenant.key }))).toEqual(notFound);
    expect(await answer(await call("DELETE", "/api/keys/key_missing", { key: tenant.key }))).toEqual(notFound);
    expect((await call("GET", "/api/tools", { key: other.key })).status).toBe(200);
  });
});
