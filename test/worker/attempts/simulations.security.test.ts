import { describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool } from "../../fixtures/invoice-tools.js";
import { call, keyWith, newTenant } from "../helpers.js";
import { counterTool, createSimulation, libraryTool } from "../simulation-helpers.js";

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
      201,
    ]);
  });

  it("finds another tenant's tool exactly as it finds a missing one: not at all", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const tool = await libraryTool(
      owner,
      { ...invoiceTool, name: "private_invoices" },
      { get_invoice: getInvoiceDefinition },
    );
    const [foreign, missing] = await Promise.all([
      call("POST", "/api/simulations", { key: other.key, body: { tools: [{ tool_id: tool.id }] } }),
      call("POST", "/api/simulations", { key: other.key, body: { tools: [{ tool_id: "tool_doesnotexist" }] } }),
    ]);
    const foreignBody = JSON.stringify(await foreign.json()).replaceAll(tool.id, "<id>");
    const missingBody = JSON.stringify(await missing.json()).replaceAll("tool_doesnotexist", "<id>");
    expect({ foreign: foreign.status, missing: missing.status, same: foreignBody === missingBody }).toEqual({
      foreign: 404,
      missing: 404,
      same: true,
    });
  });
});

describe("GET /api/simulations and /api/simulations/:id access", () => {
  it("need an API key with AIManager:RunEvals (or Admin); an attempt token opens neither", async () => {
    const tenant = await newTenant();
    const simulation = await createSimulation(tenant, { tools: [{ inline: counterTool }] });
    const toolsOnly = await keyWith(tenant.id, ["AIManager:ManageTools"]);
    const runEvals = await keyWith(tenant.id, ["AIManager:RunEvals"]);
    const admin = await keyWith(tenant.id, ["AIManager:Admin"]);
    const token = simulation.attempts[0]?.token;
    const forbidden = {
      error: {
        code: "forbidden",
        message: "this API key lacks the permission AIManager:RunEvals",
        details: { required_permission: "AIManager:RunEvals" },
      },
    };
    for (const path of ["/api/simulations", `/api/simulations/${simulation.id}`]) {
      const answers = await Promise.all(
        [undefined, token, toolsOnly, runEvals, admin].map(async (key) => {
          const response = await call("GET", path, key === undefined ? {} : { key });
          return { status: response.status, body: response.status === 200 ? "ok" : await response.json() };
        }),
      );
      expect({ path, answers }).toEqual({
        path,
        answers: [
          {
            status: 401,
            body: { error: { code: "unauthorized", message: "missing API key: send Authorization: Bearer <key>" } },
          },
          {
            status: 401,
            body: {
              error: {
                code: "unauthorized",
                message:
                  "this is an attempt token (tpa_...): it opens only its attempt's routes (dispatch, mcp, the attempt, evidence, complete); this route needs an API key (tpk_...)",
              },
            },
          },
          { status: 403, body: forbidden },
          { status: 200, body: "ok" },
          { status: 200, body: "ok" },
        ],
      });
    }
  });

  it("another tenant's simulation is not found, exactly like a missing one, and is not listed", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const simulation = await createSimulation(owner, { tools: [{ inline: counterTool }] });
    const [foreign, missing, list] = await Promise.all([
      call("GET", `/api/simulations/${simulation.id}`, { key: other.key }),
      call("GET", "/api/simulations/sim_doesnotexist", { key: other.key }),
      call("GET", "/api/simulations", { key: other.key }),
    ]);
    expect({
      foreign: { status: foreign.status, body: await foreign.json() },
      missing: { status: missing.status, body: await missing.json() },
      list: await list.json(),
    }).toEqual({
      foreign: { status: 404, body: { error: { code: "not_found", message: "simulation not found" } } },
      missing: { status: 404, body: { error: { code: "not_found", message: "simulation not found" } } },
      list: { items: [], next_cursor: null },
    });
  });

  it("a tool's name where its id belongs finds another tenant's tool of that name no more than its id", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    await libraryTool(owner, { ...invoiceTool, name: "secret_refunds" }, { get_invoice: getInvoiceDefinition });
    const response = await call("POST", "/api/simulations", {
      key: other.key,
      body: { tools: [{ tool_id: "secret_refunds" }] },
    });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message:
            '/tools/0/tool_id: no tool "secret_refunds": tool_id takes a tool\'s id (tool_…, as GET /api/tools lists them), and no tool is named "secret_refunds" either',
          details: {
            problems: [
              {
                path: "/tools/0/tool_id",
                message:
                  'no tool "secret_refunds": tool_id takes a tool\'s id (tool_…, as GET /api/tools lists them), and no tool is named "secret_refunds" either',
              },
            ],
          },
        },
      },
    });
  });
});
