/**
 * A simulation whose attempt object refuses its setup leaves nothing in D1. The refusal is real:
 * the object that the route's second attempt id names already holds another attempt (the
 * object's "conflict" answer). Only the ids are steered, through the app's Ids service.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { eq, inArray, or } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { newId, randomSecret } from "../../../src/adapters/crypto.js";
import { attempts, simulations } from "../../../src/adapters/d1/schema.js";
import type { AttemptSetup } from "../../../src/core/simulation/setup.js";
import { createApp } from "../../../src/worker/app.js";
import { db, newTenant } from "../helpers.js";
import { counterTool, stubOf } from "../simulation-helpers.js";

/** Ids from the queue of their prefix while it lasts, then fresh ones. */
function steeredIds(queued: Record<string, string[]>) {
  return { id: (prefix: string) => queued[prefix]?.shift() ?? newId(prefix), secret: randomSecret };
}

/** An id of the shape newId makes, chosen by the test. */
function attemptId(fill: string): string {
  return `att_${fill.repeat(22).slice(0, 22)}`;
}

describe("POST /api/simulations when an attempt object refuses its setup", () => {
  it("answers 500 and leaves neither the simulation nor any attempt in D1", async () => {
    const tenant = await newTenant();
    const taken = attemptId("T");
    const occupant: AttemptSetup = {
      attempt_id: attemptId("O"),
      simulation_id: "sim_occupant",
      tenant_id: tenant.id,
      token_hash: "0".repeat(64),
      expires_at: Date.now() + 60_000,
      operations: [],
      tools: [],
    };
    expect(await stubOf({ id: taken }).setup(occupant)).toEqual({ kind: "ok" });

    const fresh = attemptId("F");
    const request = new Request("http://toolproof.test/api/simulations", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify({ tools: [{ inline: counterTool }], attempts: 3 }),
    });
    const app = createApp({ ids: steeredIds({ sim: ["sim_refused"], att: [fresh, taken, attemptId("L")] }) });
    // The 500 hides the reason from the client; the operator's log must have it.
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const ctx = createExecutionContext();
    const response = await app.fetch(request, env, ctx);
    await waitOnExecutionContext(ctx);
    const log = logged.mock.calls.map((args) => args.map(String).join(" "));
    logged.mockRestore();
    expect(log).toEqual([
      `unhandled error Error: attempt object refused its setup: this object already holds attempt ${attemptId("O")}`,
    ]);

    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 500,
      body: { error: { code: "internal_error", message: "an internal error occurred" } },
    });
    const simulationRows = await db().select().from(simulations).where(eq(simulations.id, "sim_refused")).all();
    const attemptRows = await db()
      .select()
      .from(attempts)
      .where(or(eq(attempts.simulation_id, "sim_refused"), inArray(attempts.id, [fresh, taken, attemptId("L")])))
      .all();
    expect({ simulationRows, attemptRows }).toEqual({ simulationRows: [], attemptRows: [] });
    // The object that was already there still holds its own attempt.
    expect(await stubOf({ id: taken }).setup(occupant)).toEqual({ kind: "ok" });
  });
});
