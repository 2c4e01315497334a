/**
 * DELETE /api/tools/:id archives: the tool leaves the library and frees its name, while its
 * revisions stay and the simulations that pinned it keep dispatching.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool, placeOnHoldDefinition } from "../../fixtures/invoice-tools.js";
import { call, newTenant } from "../helpers.js";
import { createSimulation, dispatchJson, evidence, libraryTool } from "../simulation-helpers.js";

const tenantPromise = newTenant();
const notFound = { status: 404, body: { error: { code: "not_found", message: "tool not found" } } };

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

describe("DELETE /api/tools/:id", () => {
  it("archives the tool: gone from reads, lists and changes, and its name free for a new tool", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(tenant, { ...invoiceTool, name: "refunds" }, {});
    const before = Date.now();
    expect(await answer(await call("DELETE", `/api/tools/${tool.id}`, { key: tenant.key }))).toEqual({
      status: 200,
      body: {
        id: tool.id,
        name: "refunds",
        archived_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
    const listed = await answer(await call("GET", "/api/tools?limit=200", { key: tenant.key }));
    expect((listed.body as { items: Array<{ id: string }> }).items.map((t) => t.id)).not.toContain(tool.id);
    expect(await answer(await call("GET", `/api/tools/${tool.id}`, { key: tenant.key }))).toEqual(notFound);
    expect(
      await answer(
        await call("PUT", `/api/tools/${tool.id}`, { key: tenant.key, body: { ...invoiceTool, name: "refunds" } }),
      ),
    ).toEqual(notFound);
    expect(await answer(await call("GET", `/api/tools/${tool.id}/testing`, { key: tenant.key }))).toEqual(notFound);
    expect(await answer(await call("DELETE", `/api/tools/${tool.id}`, { key: tenant.key }))).toEqual(notFound);

    const again = await answer(
      await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, name: "refunds" } }),
    );
    expect(again).toMatchObject({ status: 201, body: { name: "refunds", id: expect.stringMatching(/^tool_/) } });
    const againId = (again.body as { id: string }).id;
    expect(againId).not.toBe(tool.id);
    // The new tool holds the name again, so a second one is still refused.
    expect(
      await answer(await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, name: "refunds" } })),
    ).toMatchObject({
      status: 409,
      body: { error: { code: "tool_name_taken" } },
    });
    const archivedAt = Date.parse(
      (
        await env.DB.prepare("select archived_at from tools where id = ?")
          .bind(tool.id)
          .first<{ archived_at: string }>()
      )?.archived_at ?? "",
    );
    expect(archivedAt >= before && archivedAt <= Date.now()).toBe(true);
  });

  it("keeps the revisions, and a simulation pinned before the archive keeps dispatching; a new one cannot pin it", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_archived" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    const simulation = await createSimulation(tenant, { tools: [{ tool_id: tool.id }] });
    const [attempt] = simulation.attempts;
    if (!attempt) throw new Error("no attempt");
    const revisions = () =>
      env.DB.prepare("select * from tool_mock_revisions where tool_id = ? order by operation_id, revision")
        .bind(tool.id)
        .all();
    const revisionsBefore = (await revisions()).results;
    expect(revisionsBefore.length).toBe(2);

    expect((await call("DELETE", `/api/tools/${tool.id}`, { key: tenant.key })).status).toBe(200);

    expect(
      await dispatchJson(attempt, {
        tool: "invoices_archived__place_invoice_on_hold",
        arguments: { invoice_id: "INV-10423", reason: "duplicate" },
      }),
    ).toEqual({
      status: 200,
      body: { invoice_id: "INV-10423", status: "on_hold" },
    });
    expect(
      await dispatchJson(attempt, { tool: "invoices_archived__get_invoice", arguments: { invoice_id: "INV-10423" } }),
    ).toEqual({
      status: 200,
      body: { invoice_id: "INV-10423", supplier: "Contoso Freight", amount: 18450, status: "on_hold" },
    });
    expect((await evidence(attempt)).map((c) => [c.tool, c.revision, c.outcome])).toEqual([
      ["invoices_archived__place_invoice_on_hold", 1, "result"],
      ["invoices_archived__get_invoice", 1, "result"],
    ]);
    expect((await revisions()).results).toEqual(revisionsBefore);

    expect(
      await answer(
        await call("POST", "/api/simulations", { key: tenant.key, body: { tools: [{ tool_id: tool.id }] } }),
      ),
    ).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: expect.any(String),
          details: { problems: [{ path: "/tools/0/tool_id", message: `no tool "${tool.id}"` }] },
        },
      },
    });
  });

  it("points a name given where an id belongs at the library's tool of that name, never an archived one", async () => {
    const tenant = await tenantPromise;
    // The archived tool is the newer row, so whichever row a lookup meets last, it would meet that one.
    const kept = await libraryTool(tenant, { ...invoiceTool, name: "kept_first" }, {});
    const archived = await libraryTool(tenant, { ...invoiceTool, name: "renamed" }, {});
    expect((await call("DELETE", `/api/tools/${archived.id}`, { key: tenant.key })).status).toBe(200);
    expect(
      (await call("PUT", `/api/tools/${kept.id}`, { key: tenant.key, body: { ...invoiceTool, name: "renamed" } }))
        .status,
    ).toBe(200);
    expect(await answer(await call("GET", "/api/tools/renamed", { key: tenant.key }))).toMatchObject({
      status: 404,
      body: { error: { details: { tool_id: kept.id } } },
    });
    expect(
      await answer(
        await call("POST", "/api/simulations", { key: tenant.key, body: { tools: [{ tool_id: "renamed" }] } }),
      ),
    ).toMatchObject({
      status: 404,
      body: {
        error: {
          details: {
            problems: [{ path: "/tools/0/tool_id", message: expect.stringContaining(`has id "${kept.id}"`) }],
          },
        },
      },
    });
  });

  it("answers 404 for another tenant's tool and leaves it in its owner's library", async () => {
    const owner = await tenantPromise;
    const other = await newTenant();
    const tool = await libraryTool(owner, { ...invoiceTool, name: "not_yours" }, {});
    expect(await answer(await call("DELETE", `/api/tools/${tool.id}`, { key: other.key }))).toEqual(notFound);
    expect(await answer(await call("GET", `/api/tools/${tool.id}`, { key: owner.key }))).toMatchObject({
      status: 200,
      body: { id: tool.id, name: "not_yours" },
    });
  });
});
