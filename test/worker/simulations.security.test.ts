import { describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool } from "../fixtures/invoice-tools.js";
import { call, keyWith, newTenant } from "./helpers.js";
import { counterTool, libraryTool } from "./simulation-helpers.js";

describe("POST /api/simulations access", () => {
  it("needs an API key with AIManager:RunEvals", async () => {
    const tenant = await newTenant();
    const toolsOnly = await keyWith(tenant.id, ["AIManager:ManageTools"]);
    const body = { tools: [{ inline: counterTool }] };
    const [none, weak, admin] = await Promise.all([
      call("POST", "/api/simulations", { body }),
      call("POST", "/api/simulations", { key: toolsOnly, body }),
      call("POST", "/api/simulations", { key: await keyWith(tenant.id, ["AIManager:Admin"]), body }),
    ]);
    expect([none.status, { status: weak.status, body: await weak.json() }, admin.status]).toEqual([
      401,
      { status: 403, body: { error: { code: "forbidden", message: "this API key lacks the permission AIManager:RunEvals", details: { required_permission: "AIManager:RunEvals" } } } },
      201,
    ]);
  });

  it("finds another tenant's tool exactly as it finds a missing one: not at all", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const tool = await libraryTool(owner, { ...invoiceTool, name: "private_invoices" }, { get_invoice: getInvoiceDefinition });
    const [foreign, missing] = await Promise.all([
      call("POST", "/api/simulations", { key: other.key, body: { tools: [{ tool_id: tool.id }] } }),
      call("POST", "/api/simulations", { key: other.key, body: { tools: [{ tool_id: "tool_doesnotexist" }] } }),
    ]);
    const foreignBody = JSON.stringify(await foreign.json()).replaceAll(tool.id, "<id>");
    const missingBody = JSON.stringify(await missing.json()).replaceAll("tool_doesnotexist", "<id>");
    expect({ foreign: foreign.status, missing: missing.status, same: foreignBody === missingBody }).toEqual({ foreign: 404, missing: 404, same: true });
  });
});
