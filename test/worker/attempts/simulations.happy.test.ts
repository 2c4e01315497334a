import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { attempts, simulations } from "../../../src/adapters/d1/schema.js";
import { getInvoiceDefinition, invoiceTool, placeOnHoldDefinition } from "../../fixtures/invoice-tools.js";
import { call, db, newTenant } from "../helpers.js";
import {
  counterTool,
  createSimulation,
  dispatch,
  dispatchJson,
  evidence,
  libraryTool,
  type CreatedAttempt,
  type CreatedSimulation,
} from "../simulation-helpers.js";

const tenantPromise = newTenant();

/** get_invoice with a second variant, so a simulation can select it. */
const twoVariants = {
  ...getInvoiceDefinition,
  variants: {
    ...getInvoiceDefinition.variants,
    not_found: { result: { invoice_id: { $input: "invoice_id" }, supplier: "", amount: 0, status: "unknown" } },
  },
  examples: [
    ...getInvoiceDefinition.examples,
    {
      variant: "not_found",
      input: { invoice_id: "INV-10423" },
      expected: { invoice_id: "INV-10423", supplier: "", amount: 0, status: "unknown" },
    },
  ],
};

describe("POST /api/simulations", () => {
  it("answers 201 with each attempt's id, token, URLs and expiry, and what was pinned", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_pin" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    const before = Date.now();
    const response = await call("POST", "/api/simulations", {
      key: tenant.key,
      body: { tools: [{ tool_id: tool.id }, { inline: counterTool }], attempts: 3, lease_seconds: 120 },
    });
    const body = (await response.json()) as { id: string; attempts: Array<{ id: string; expires_at: string }> };
    const hash = (op: string) => tool.operations.find((o) => o.operation_id === op)?.contract_hash;
    const attempt = () => ({
      id: expect.stringMatching(/^att_[A-Za-z0-9_-]{22}$/),
      token: expect.stringMatching(/^tpa_[A-Za-z0-9_-]{43}$/),
      dispatch_url: expect.stringMatching(/^http:\/\/toolproof\.test\/api\/attempts\/att_[A-Za-z0-9_-]{22}\/dispatch$/),
      mcp_url: expect.stringMatching(/^http:\/\/toolproof\.test\/api\/attempts\/att_[A-Za-z0-9_-]{22}\/mcp$/),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect({ status: response.status, body }).toEqual({
      status: 201,
      body: {
        id: expect.stringMatching(/^sim_/),
        lease_seconds: 120,
        attempts: [attempt(), attempt(), attempt()],
        pinned: [
          {
            tool_id: tool.id,
            tool_name: "invoices_pin",
            tool: "invoices_pin__get_invoice",
            operation_id: "get_invoice",
            revision: 1,
            variant: "success",
            contract_hash: hash("get_invoice"),
          },
          {
            tool_id: tool.id,
            tool_name: "invoices_pin",
            tool: "invoices_pin__place_invoice_on_hold",
            operation_id: "place_invoice_on_hold",
            revision: 1,
            variant: "success",
            contract_hash: hash("place_invoice_on_hold"),
          },
          {
            tool_id: null,
            tool_name: "counter",
            tool: "counter",
            operation_id: "counter",
            revision: null,
            variant: "swap",
            contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          },
        ],
      },
    });
    const expiry = Date.parse(body.attempts[0]?.expires_at ?? "");
    expect(expiry >= before + 120_000 && expiry <= Date.now() + 120_000).toBe(true);
    expect(new Set(body.attempts.map((a) => a.id)).size).toBe(3);
    // D1 keeps what was pinned, so the simulation can be explained after its objects are gone.
    const row = await db().select().from(simulations).where(eq(simulations.id, body.id)).get();
    expect(JSON.parse(row?.pinned ?? "[]")).toMatchObject([
      { tool_id: tool.id, operation_id: "get_invoice", revision: 1 },
      { tool_id: tool.id, operation_id: "place_invoice_on_hold", revision: 1 },
      { tool_id: null, operation_id: "counter", revision: null, inline: { definition: { default_variant: "swap" } } },
    ]);
  });

  it("pins the newest revision checked against the current contract, and the evidence names it", async () => {
    const tenant = await tenantPromise;
    const spec = { ...invoiceTool, name: "invoices_history" };
    const tool = await libraryTool(tenant, spec, { get_invoice: getInvoiceDefinition });
    const hash = tool.operations.find((o) => o.operation_id === "get_invoice")?.contract_hash;
    await call("POST", `/api/tools/${tool.id}/testing`, {
      key: tenant.key,
      body: { action: "save", operation_id: "get_invoice", contract_hash: hash, definition: twoVariants },
    });
    const simulation = await createSimulation(tenant, { tools: [{ tool_id: tool.id, operation_id: "get_invoice" }] });
    expect(simulation.pinned.map((p) => p.revision)).toEqual([2]);
    const [attempt] = simulation.attempts;
    if (!attempt) throw new Error("no attempt");
    const response = await dispatch(attempt, {
      tool: "invoices_history__get_invoice",
      arguments: { invoice_id: "INV-10431" },
    });
    expect({
      revision: response.headers.get("x-toolproof-revision"),
      rule: response.headers.get("x-toolproof-rule"),
    }).toEqual({ revision: "2", rule: "0" });
    expect((await evidence(attempt)).map((c) => ({ revision: c.revision, variant: c.variant, rule: c.rule }))).toEqual([
      { revision: 2, variant: "success", rule: 0 },
    ]);
  });

  it("goes back to an older revision when the contract goes back to the one it was checked against", async () => {
    const tenant = await tenantPromise;
    const spec = { ...invoiceTool, name: "invoices_revert" };
    const tool = await libraryTool(tenant, spec, { get_invoice: getInvoiceDefinition });
    // Change the contract, save revision 2 against it, then change the contract back.
    const changed = {
      ...spec,
      operations: spec.operations.map((op) =>
        op.operation_id === "get_invoice" ? { ...op, description: "Return one invoice (changed)." } : op,
      ),
    };
    const put = await call("PUT", `/api/tools/${tool.id}`, { key: tenant.key, body: changed });
    const changedTool = (await put.json()) as { operations: Array<{ operation_id: string; contract_hash: string }> };
    const changedHash = changedTool.operations.find((o) => o.operation_id === "get_invoice")?.contract_hash;
    const saved = await call("POST", `/api/tools/${tool.id}/testing`, {
      key: tenant.key,
      body: { action: "save", operation_id: "get_invoice", contract_hash: changedHash, definition: twoVariants },
    });
    expect(saved.status).toBe(201);
    expect((await call("PUT", `/api/tools/${tool.id}`, { key: tenant.key, body: spec })).status).toBe(200);
    const simulation = await createSimulation(tenant, { tools: [{ tool_id: tool.id, operation_id: "get_invoice" }] });
    expect(simulation.pinned.map((p) => ({ revision: p.revision, contract_hash: p.contract_hash }))).toEqual([
      { revision: 1, contract_hash: tool.operations.find((o) => o.operation_id === "get_invoice")?.contract_hash },
    ]);
  });

  it("uses a variant override, per operation", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_variant" },
      { get_invoice: twoVariants, place_invoice_on_hold: placeOnHoldDefinition },
    );
    const simulation = await createSimulation(tenant, {
      tools: [{ tool_id: tool.id, variants: { get_invoice: "not_found" } }],
    });
    expect(simulation.pinned.map((p) => [p.operation_id, p.variant])).toEqual([
      ["get_invoice", "not_found"],
      ["place_invoice_on_hold", "success"],
    ]);
    const [attempt] = simulation.attempts;
    if (!attempt) throw new Error("no attempt");
    expect(
      await dispatchJson(attempt, { tool: "invoices_variant__get_invoice", arguments: { invoice_id: "INV-10431" } }),
    ).toEqual({
      status: 200,
      body: { invoice_id: "INV-10431", supplier: "", amount: 0, status: "unknown" },
    });
    expect((await evidence(attempt)).map((c) => ({ variant: c.variant, revision: c.revision }))).toEqual([
      { variant: "not_found", revision: 1 },
    ]);

    const single = await createSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice", variant: "not_found" }],
    });
    expect(single.pinned.map((p) => p.variant)).toEqual(["not_found"]);
  });

  it("merges the initial_state of a tool's operations into one starting state", async () => {
    const tenant = await tenantPromise;
    const hold = { ...placeOnHoldDefinition, initial_state: { holds: 0 } };
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_merge" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: hold },
    );
    const [attempt] = (await createSimulation(tenant, { tools: [{ tool_id: tool.id }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    const view = await call("GET", `/api/attempts/${attempt.id}`, { key: attempt.token });
    expect(await view.json()).toMatchObject({ state: { invoices_merge: { status: "approved", holds: 0 } } });
  });
});

describe("GET /api/simulations/:id", () => {
  it("answers what was pinned and every attempt with its live status, and no token anywhere", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_read" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    const simulation = await createSimulation(tenant, {
      tools: [{ tool_id: tool.id, operation_id: "get_invoice" }, { inline: counterTool }],
      attempts: 3,
      lease_seconds: 300,
    });
    const [done, failed, active] = simulation.attempts;
    if (!done || !failed || !active) throw new Error("three attempts expected");
    expect(
      (await call("POST", `/api/attempts/${done.id}/complete`, { key: done.token, body: { output: "done" } })).status,
    ).toBe(200);
    expect((await dispatch(failed, { tool: "no_such_tool", arguments: {} })).status).toBe(500);

    const response = await call("GET", `/api/simulations/${simulation.id}`, { key: tenant.key });
    const text = await response.text();
    const view = (attempt: CreatedAttempt, status: string) => ({
      id: attempt.id,
      status,
      may_pass: status !== "harness_failed",
      expires_at: attempt.expires_at,
      dispatch_url: attempt.dispatch_url,
      mcp_url: attempt.mcp_url,
    });
    expect({ status: response.status, body: JSON.parse(text) }).toEqual({
      status: 200,
      body: {
        id: simulation.id,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        created_by: tenant.keyId,
        lease_seconds: 300,
        pinned: simulation.pinned,
        attempts: [view(done, "completed"), view(failed, "harness_failed"), view(active, "active")],
      },
    });
    const hashes = await Promise.all(
      simulation.attempts.map(
        async (a) => (await db().select().from(attempts).where(eq(attempts.id, a.id)).get())?.token_hash ?? "?",
      ),
    );
    const secrets = [...simulation.attempts.map((a) => a.token), ...hashes];
    expect(secrets.filter((secret) => text.includes(secret))).toEqual([]);
  });
});

describe("GET /api/simulations", () => {
  it("lists the tenant's simulations newest first, page by page, with what each pinned and how many attempts it has", async () => {
    const tenant = await newTenant();
    const created: CreatedSimulation[] = [];
    for (const count of [1, 2, 3])
      created.push(
        await createSimulation(tenant, { tools: [{ inline: counterTool }], attempts: count, lease_seconds: 60 }),
      );
    const item = (simulation: CreatedSimulation) => ({
      id: simulation.id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      created_by: tenant.keyId,
      lease_seconds: 60,
      pinned: simulation.pinned,
      attempt_count: simulation.attempts.length,
    });
    const [first, second, third] = created;
    if (!first || !second || !third) throw new Error("three simulations expected");

    const page1 = await call("GET", "/api/simulations?limit=2", { key: tenant.key });
    const body1 = (await page1.json()) as { next_cursor: string };
    expect({ status: page1.status, body: body1 }).toEqual({
      status: 200,
      body: { items: [item(third), item(second)], next_cursor: expect.any(String) },
    });
    const page2 = await call("GET", `/api/simulations?limit=2&cursor=${body1.next_cursor}`, { key: tenant.key });
    expect({ status: page2.status, body: await page2.json() }).toEqual({
      status: 200,
      body: { items: [item(first)], next_cursor: null },
    });
    const all = await call("GET", "/api/simulations", { key: tenant.key });
    expect(await all.json()).toEqual({ items: [item(third), item(second), item(first)], next_cursor: null });
  });
});
