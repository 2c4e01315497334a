import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/adapters/crypto.js";
import { attempts, simulations } from "../../../src/adapters/d1/schema.js";
import type { AttemptObject } from "../../../src/worker/attempts/object.js";
import { answer, call, db, keyWith, newTenant } from "../helpers.js";
import { counterTool, createSimulation, dispatch, dispatchJson, readAttempt, stubOf } from "../simulation-helpers.js";

const tenantPromise = newTenant();
const unauthorized = { error: { code: "unauthorized", message: "this token does not grant access to this attempt" } };
const apiKeyRefused = {
  error: {
    code: "unauthorized",
    message:
      "this route is opened by the attempt's capability token (tpa_…, from the simulation's 201 answer), not by an API key (tpk_…)",
  },
};

async function twoAttempts() {
  const tenant = await tenantPromise;
  const simulation = await createSimulation(tenant, { tools: [{ inline: counterTool }], attempts: 2 });
  const [a, b] = simulation.attempts;
  if (!a || !b) throw new Error("two attempts expected");
  return { tenant, simulation, a, b };
}

describe("capability tokens", () => {
  it("a token of attempt A opens nothing of attempt B", async () => {
    const { a, b } = await twoAttempts();
    const asA = { id: b.id, token: a.token };
    const answers = await Promise.all([
      dispatch(asA, { tool: "counter", arguments: { n: 1 } }),
      call("GET", `/api/attempts/${b.id}`, { key: a.token }),
      call("GET", `/api/attempts/${b.id}/evidence`, { key: a.token }),
      call("POST", `/api/attempts/${b.id}/complete`, { key: a.token, body: { output: "x" } }),
      call("POST", `/api/attempts/${b.id}/mcp`, {
        key: a.token,
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
        headers: { accept: "application/json, text/event-stream" },
      }),
    ]);
    // MCP refuses with 403: MCP clients start OAuth on a 401 (docs/simulations.md).
    expect(await Promise.all(answers.map(async (r) => ({ status: r.status, body: await r.json() })))).toEqual(
      [401, 401, 401, 401, 403].map((status) => ({ status, body: unauthorized })),
    );
    // B was not touched.
    expect((await readAttempt(b)).body).toMatchObject({ calls: 0, status: "active", state: { counter: { last: 0 } } });
  });

  it("checks the token before the body on complete: another attempt's token with a bad body answers 401, not the body's 400", async () => {
    const { a, b } = await twoAttempts();
    const bodies: unknown[] = ["{not json", {}, { output: "x", unknown_field: 1 }, { output: "x", messages: [] }];
    const answers = await Promise.all(
      bodies.map((body) => call("POST", `/api/attempts/${b.id}/complete`, { key: a.token, body })),
    );
    expect(await Promise.all(answers.map(answer))).toEqual(bodies.map(() => ({ status: 401, body: unauthorized })));
    // With its own token, the same bad body gets the body's 400.
    expect((await call("POST", `/api/attempts/${b.id}/complete`, { key: b.token, body: {} })).status).toBe(400);
  });

  it("refuses a missing token, an API key, a made-up token and a made-up attempt id alike", async () => {
    const { tenant, a } = await twoAttempts();
    const body = { tool: "counter", arguments: { n: 1 } };
    const answers = await Promise.all([
      call("POST", `/api/attempts/${a.id}/dispatch`, { body }),
      dispatch(a, body, tenant.key),
      dispatch(a, body, `tpa_${"A".repeat(43)}`),
      dispatch({ id: "att_AAAAAAAAAAAAAAAAAAAAAA", token: a.token }, body),
      dispatch({ id: "not-an-attempt", token: a.token }, body),
    ]);
    expect(await Promise.all(answers.map(async (r) => ({ status: r.status, body: await r.json() })))).toEqual([
      {
        status: 401,
        body: {
          error: {
            code: "unauthorized",
            message: "missing capability token: send Authorization: Bearer <attempt token>",
          },
        },
      },
      { status: 401, body: apiKeyRefused },
      { status: 401, body: unauthorized },
      { status: 401, body: unauthorized },
      { status: 401, body: unauthorized },
    ]);
    expect((await readAttempt(a)).body).toMatchObject({ calls: 0 });
  });

  it("an API key on a route only the attempt token opens says which token is needed (dispatch, complete, MCP)", async () => {
    const { tenant, a } = await twoAttempts();
    const answers = await Promise.all([
      dispatch(a, { tool: "counter", arguments: { n: 1 } }, tenant.key),
      call("POST", `/api/attempts/${a.id}/complete`, { key: tenant.key, body: { output: "x" } }),
      call("POST", `/api/attempts/${a.id}/mcp`, {
        key: tenant.key,
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
        headers: { accept: "application/json, text/event-stream" },
      }),
    ]);
    expect(await Promise.all(answers.map(async (r) => ({ status: r.status, body: await r.json() })))).toEqual(
      [401, 401, 403].map((status) => ({ status, body: apiKeyRefused })),
    );
    expect((await readAttempt(a)).body).toMatchObject({ calls: 0, status: "active" });
  });

  it("grants nothing on the management API", async () => {
    const { a } = await twoAttempts();
    const answers = await Promise.all([
      call("GET", "/api/tools", { key: a.token }),
      call("POST", "/api/simulations", { key: a.token, body: { tools: [{ inline: counterTool }] } }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([401, 401]);
  });

  it("an expired token is refused: reads and completion answer 401, calls answer the lease_expired harness error", async () => {
    const { tenant, a } = await twoAttempts();
    const stub = stubOf(a);
    await runInDurableObject<AttemptObject, void>(stub, (_instance, state) => {
      state.storage.sql.exec(`UPDATE attempt SET expires_at = ?`, Date.now() - 1000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const expired = {
      error: {
        code: "token_expired",
        message: "the attempt's lease has ended, and its token with it; read it with an API key instead",
      },
    };
    const reads = await Promise.all([
      call("GET", `/api/attempts/${a.id}`, { key: a.token }),
      call("GET", `/api/attempts/${a.id}/evidence`, { key: a.token }),
    ]);
    expect(await Promise.all(reads.map(async (r) => ({ status: r.status, body: await r.json() })))).toEqual([
      { status: 401, body: expired },
      { status: 401, body: expired },
    ]);
    const complete = await call("POST", `/api/attempts/${a.id}/complete`, { key: a.token, body: { output: "late" } });
    expect({ status: complete.status, body: await complete.json() }).toEqual({
      status: 401,
      body: { error: { code: "token_expired", message: "the attempt's lease has ended, and its token with it" } },
    });
    expect(await dispatchJson(a, { tool: "counter", arguments: { n: 1 } })).toMatchObject({
      status: 500,
      body: { error: { code: "harness_error", kind: "lease_expired" } },
    });
    // The tenant's API key still reads it.
    expect((await readAttempt(a, tenant.key)).body).toMatchObject({ status: "expired", lease_ended: true });
  });

  it("a token past its expiry time in D1 is refused for reads even before the alarm has run", async () => {
    const { a } = await twoAttempts();
    await db()
      .update(attempts)
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where(eq(attempts.id, a.id));
    const response = await call("GET", `/api/attempts/${a.id}`, { key: a.token });
    expect(response.status).toBe(401);
  });

  it("is stored only as its SHA-256, in D1 and in the attempt object", async () => {
    const { simulation, a } = await twoAttempts();
    const row = await db().select().from(attempts).where(eq(attempts.id, a.id)).get();
    const sim = await db().select().from(simulations).where(eq(simulations.id, simulation.id)).get();
    const stored = await runInDurableObject<AttemptObject, string>(stubOf(a), (_instance, state) =>
      JSON.stringify([
        state.storage.sql.exec(`SELECT * FROM attempt`).toArray(),
        state.storage.sql.exec(`SELECT * FROM attempt_setup`).toArray(),
      ]),
    );
    expect({
      hash: row?.token_hash,
      inD1: JSON.stringify(row).includes(a.token) || JSON.stringify(sim).includes(a.token),
      inObject: stored.includes(a.token),
      hashInObject: stored.includes(sha256Hex(a.token)),
      shape: /^tpa_[A-Za-z0-9_-]{43}$/.test(a.token),
    }).toEqual({ hash: sha256Hex(a.token), inD1: false, inObject: false, hashInObject: true, shape: true });
  });
});

describe("reading attempts with an API key", () => {
  it("another tenant's key finds nothing, and a key without AIManager:RunEvals is forbidden", async () => {
    const { tenant, a } = await twoAttempts();
    const other = await newTenant();
    const toolsOnly = await keyWith(tenant.id, ["AIManager:ManageTools"]);
    const answers = await Promise.all([
      call("GET", `/api/attempts/${a.id}`, { key: other.key }),
      call("GET", `/api/attempts/${a.id}/evidence`, { key: other.key }),
      call("GET", `/api/attempts/${a.id}`, { key: toolsOnly }),
    ]);
    expect(await Promise.all(answers.map(async (r) => ({ status: r.status, body: await r.json() })))).toEqual([
      { status: 404, body: { error: { code: "not_found", message: "attempt not found" } } },
      { status: 404, body: { error: { code: "not_found", message: "attempt not found" } } },
      {
        status: 403,
        body: {
          error: {
            code: "forbidden",
            message: "this API key lacks the permission AIManager:RunEvals",
            details: { required_permission: "AIManager:RunEvals" },
          },
        },
      },
    ]);
  });
});
