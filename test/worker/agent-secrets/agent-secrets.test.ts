/**
 * Agent secrets (PUT/GET/DELETE /api/agent-secrets) and what an external agent's suite needs to
 * be saved and run: a checked endpoint URL and an existing secret.
 */
import { describe, expect, it } from "vitest";
import { findAgentSecret } from "../../../src/adapters/d1/external-agents.js";
import { answer, call, db, invalidAnswer, keyWith, newTenant } from "../helpers.js";
import { GET, HOLD, invoiceWorld, QUERIES } from "../run-helpers.js";

const MINE = `whsec_${btoa("a secret of 32 bytes, chosen me!")}`;
/** What PUT answers for a secret that is not whsec_ and the padded base64 of 24 to 64 bytes. */
const SECRET_RULE =
  "expected a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 random bytes, padded with = to a multiple of 4 characters (openssl rand -base64 32 makes one)";

/** `whsec_` and the base64 (padded, as encoders write it) of `length` bytes. */
function secretOf(length: number): string {
  return `whsec_${Buffer.from(Uint8Array.from({ length }, (_, i) => (i * 37 + 11) % 256)).toString("base64")}`;
}

describe("agent secrets", () => {
  it("generates a secret shown once, stores one set by the client without echoing it, lists names only, and deletes", async () => {
    const tenant = await newTenant();
    const made = await call("PUT", "/api/agent-secrets/desk-jobs", { key: tenant.key, body: {} });
    const body = (await made.json()) as Record<string, unknown>;
    expect({ status: made.status, location: made.headers.get("location"), body }).toEqual({
      status: 201,
      location: "/api/agent-secrets/desk-jobs",
      body: {
        name: "desk-jobs",
        created_by: tenant.keyId,
        created_at: expect.stringMatching(/^\d{4}-/),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      },
    });
    // Stored sealed: the row never holds the secret's text.
    const row = await findAgentSecret(db(), tenant.id, "desk-jobs");
    expect(row?.sealed_secret.startsWith("v1.")).toBe(true);
    expect(row?.sealed_secret.includes(String(body.secret).slice(6))).toBe(false);

    const own = await call("PUT", "/api/agent-secrets/mine", { key: tenant.key, body: { secret: MINE } });
    expect(await answer(own)).toEqual({
      status: 201,
      body: { name: "mine", created_by: tenant.keyId, created_at: expect.stringMatching(/^\d{4}-/) },
    });
    // Putting a name again replaces its secret (the rotation): 200, as for any PUT of what exists.
    const rotated = await call("PUT", "/api/agent-secrets/mine", { key: tenant.key, body: {} });
    expect({ status: rotated.status, body: await rotated.json() }).toEqual({
      status: 200,
      body: {
        name: "mine",
        created_by: tenant.keyId,
        created_at: expect.stringMatching(/^\d{4}-/),
        secret: expect.stringMatching(/^whsec_/),
      },
    });

    const list = await call("GET", "/api/agent-secrets", { key: tenant.key });
    expect(await answer(list)).toEqual({
      status: 200,
      body: {
        items: [
          { name: "desk-jobs", created_by: tenant.keyId, created_at: expect.any(String) },
          { name: "mine", created_by: tenant.keyId, created_at: expect.any(String) },
        ],
        next_cursor: null,
      },
    });
    expect(await answer(await call("DELETE", "/api/agent-secrets/mine", { key: tenant.key }))).toEqual({
      status: 200,
      body: { name: "mine", deleted: true },
    });
    expect(await answer(await call("DELETE", "/api/agent-secrets/mine", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "agent secret not found" } },
    });
  });

  it("refuses a secret that is not a Standard Webhooks secret, and a key without Admin", async () => {
    const tenant = await newTenant();
    expect(
      await answer(
        await call("PUT", "/api/agent-secrets/x", { key: tenant.key, body: { secret: "hunter2", extra: 1 } }),
      ),
    ).toEqual(
      invalidAnswer(
        { path: "/secret", message: SECRET_RULE },
        { path: "/extra", message: 'unknown field "extra"; expected one of: secret' },
      ),
    );
    const runner = await keyWith(tenant.id, ["AIManager:RunEvals"]);
    expect(await answer(await call("PUT", "/api/agent-secrets/x", { key: runner, body: {} }))).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "this API key lacks the permission AIManager:Admin",
          details: { required_permission: "AIManager:Admin" },
        },
      },
    });
  });

  it("refuses a secret that Standard Webhooks libraries would not all read as the same key, and keeps the stored one", async () => {
    const tenant = await newTenant();
    const kept = await call("PUT", "/api/agent-secrets/kept", { key: tenant.key, body: { secret: MINE } });
    expect(kept.status).toBe(201);
    const before = await findAgentSecret(db(), tenant.id, "kept");
    const refused = {
      // The fuzzer's: 33 characters, so not base64 at all (the signer keyed jobs with the text).
      "33 characters": `whsec_${"A".repeat(33)}`,
      "no padding": secretOf(32).replace(/=+$/, ""),
      "padding past a multiple of 4": `${secretOf(33)}=`,
      "bits past the last byte": `whsec_${"A".repeat(42)}B=`,
      "23 bytes": secretOf(23),
      "65 bytes": secretOf(65),
      base64url: `whsec_${"_-".repeat(22)}`,
    };
    const answers: Record<string, unknown> = {};
    for (const [name, secret] of Object.entries(refused))
      answers[name] = await answer(await call("PUT", "/api/agent-secrets/kept", { key: tenant.key, body: { secret } }));
    expect(answers).toEqual(
      Object.fromEntries(
        Object.keys(refused).map((name) => [name, invalidAnswer({ path: "/secret", message: SECRET_RULE })]),
      ),
    );
    // Nothing was stored: the same secret, sealed as before, and no other name.
    expect(await findAgentSecret(db(), tenant.id, "kept")).toEqual(before);
    expect(await answer(await call("GET", "/api/agent-secrets", { key: tenant.key }))).toEqual({
      status: 200,
      body: {
        items: [{ name: "kept", created_by: tenant.keyId, created_at: before?.created_at }],
        next_cursor: null,
      },
    });

    // The edges of the rule: 24 and 64 bytes, and both paddings.
    for (const length of [24, 25, 26, 64]) {
      const put = await call("PUT", `/api/agent-secrets/bytes-${length}`, {
        key: tenant.key,
        body: { secret: secretOf(length) },
      });
      expect({ length, status: put.status }).toEqual({ length, status: 201 });
    }
  });
});

describe("an external agent's suite", () => {
  const suiteWith = (toolId: string, connection: string, endpoint: string) => ({
    agent: {
      kind: "external",
      endpoint,
      secret: "jobs",
      tools: [
        { tool_id: toolId, operation_id: "get_invoice" },
        { tool_id: toolId, operation_id: "place_invoice_on_hold" },
      ],
    },
    scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }],
    judge: { connection },
  });

  it("is refused with an endpoint that is no http(s) URL or carries credentials", async () => {
    const world = await invoiceWorld("ext-suite-url");
    expect(
      await answer(
        await call("PUT", "/api/suites/desk", {
          key: world.tenant.key,
          body: suiteWith(world.toolId, world.connection, "ftp://agent.example.com/jobs"),
        }),
      ),
    ).toEqual(invalidAnswer({ path: "/agent/endpoint", message: "expected an http or https URL, got the scheme ftp" }));
    expect(
      await answer(
        await call("PUT", "/api/suites/desk", {
          key: world.tenant.key,
          body: suiteWith(world.toolId, world.connection, "https://u:p@agent.example.com/jobs"),
        }),
      ),
    ).toEqual(
      invalidAnswer({
        path: "/agent/endpoint",
        message:
          "must not carry credentials (user:password@): the job is authenticated by its signature (agent.secret)",
      }),
    );
  });

  it("does not start a run until its agent secret exists", async () => {
    const world = await invoiceWorld("ext-suite-secret");
    expect(
      (
        await call("PUT", "/api/suites/desk", {
          key: world.tenant.key,
          body: suiteWith(world.toolId, world.connection, "https://agent.example.com/jobs"),
        })
      ).status,
    ).toBe(201);
    expect(await answer(await call("POST", "/api/suites/desk/runs", { key: world.tenant.key }))).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: '/agent/secret: no agent secret named "jobs"',
          details: {
            problems: [
              { path: "/agent/secret", message: 'no agent secret "jobs" (PUT /api/agent-secrets/jobs first)' },
            ],
          },
        },
      },
    });
  });
});
