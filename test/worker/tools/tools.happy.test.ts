import { beforeAll, describe, expect, it } from "vitest";
import toolsList from "../../fixtures/mcp-tools-list.json" with { type: "json" };
import { invoiceTool } from "../../fixtures/invoice-tools.js";
import { contractHash } from "../../../src/core/contract/index.js";
import { type TestTenant, call, newTenant } from "../helpers.js";

interface ToolBody {
  id: string;
  name: string;
  operations: Array<{ operation_id: string; contract_hash: string; output_schema: unknown; annotations: unknown }>;
}

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

async function register(body: unknown): Promise<ToolBody> {
  const response = await call("POST", "/api/tools", { key: tenant.key, body });
  expect(response.status).toBe(201);
  // SAFETY: the route's documented answer shape.
  return (await response.json()) as ToolBody;
}

describe("POST /api/tools", () => {
  it("registers a tool and answers it with each operation's contract hash", async () => {
    const response = await call("POST", "/api/tools", { key: tenant.key, body: invoiceTool });
    expect(response.status).toBe(201);
    // SAFETY: narrowed by the assertions below.
    const tool = (await response.json()) as ToolBody & Record<string, unknown>;
    const [getOp, holdOp] = invoiceTool.operations;
    expect(tool).toEqual({
      id: expect.stringMatching(/^tool_/),
      name: "invoices",
      description: invoiceTool.description,
      kind: "http",
      output_schema: null,
      operations: [
        {
          operation_id: "get_invoice",
          description: getOp!.description,
          input_schema: getOp!.input_schema,
          output_schema: getOp!.output_schema,
          output_schema_inherited: false,
          annotations: null,
          contract_hash: await contractHash({
            tool: tool.id,
            operation: "get_invoice",
            description: getOp!.description,
            input_schema: getOp!.input_schema,
            output_schema: getOp!.output_schema,
          }),
        },
        {
          operation_id: "place_invoice_on_hold",
          description: holdOp!.description,
          input_schema: holdOp!.input_schema,
          output_schema: holdOp!.output_schema,
          output_schema_inherited: false,
          annotations: { destructiveHint: true },
          contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      ],
      source: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("falls back to the tool's output schema for operations without one", async () => {
    const tool = await register({
      name: "lookup",
      description: "Lookups",
      kind: "http",
      output_schema: { type: "object" },
      operations: [{ operation_id: "find", description: "Find one thing by id", input_schema: { type: "object" } }],
    });
    expect(tool.operations.map((op) => [op.output_schema, op.contract_hash.length])).toEqual([
      [{ type: "object" }, 64],
    ]);
  });
});

describe("GET /api/tools", () => {
  it("pages through the tenant's tools newest first with a cursor", async () => {
    const own = await newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await call("POST", "/api/tools", { key: own.key, body: { ...invoiceTool, name: `paged_${i}` } });
      // SAFETY: documented answer shape.
      ids.push(((await response.json()) as ToolBody).id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await call("GET", `/api/tools?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key: own.key });
      expect(response.status).toBe(200);
      // SAFETY: documented list shape.
      const page = (await response.json()) as { items: ToolBody[]; next_cursor: string | null };
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((t) => t.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });
});

describe("GET and PUT /api/tools/:id", () => {
  it("reads a tool back exactly as registered", async () => {
    const created = await register({ ...invoiceTool, name: "readback" });
    const response = await call("GET", `/api/tools/${created.id}`, { key: tenant.key });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(created);
  });

  it("changes the contract hash of exactly the operations whose contract changed", async () => {
    const created = await register({ ...invoiceTool, name: "changing" });
    const changedOps = invoiceTool.operations.map((op, i) =>
      i === 0 ? { ...op, description: `${op.description} Now with more detail.` } : op,
    );
    const response = await call("PUT", `/api/tools/${created.id}`, {
      key: tenant.key,
      body: { ...invoiceTool, name: "changing", operations: changedOps },
    });
    expect(response.status).toBe(200);
    // SAFETY: documented answer shape.
    const updated = (await response.json()) as ToolBody;
    expect(updated.operations[0]!.contract_hash).not.toBe(created.operations[0]!.contract_hash);
    expect(updated.operations[1]!.contract_hash).toBe(created.operations[1]!.contract_hash);
  });
});

describe("POST /api/tools/import/mcp", () => {
  it("imports a tools/list result as one tool, annotations kept, filtered by allowed_tools", async () => {
    const response = await call("POST", "/api/tools/import/mcp", {
      key: tenant.key,
      body: {
        name: "weather",
        description: "Weather MCP server",
        tools_list: toolsList,
        allowed_tools: ["get_weather_data", "delete_forecast_alert"],
      },
    });
    expect(response.status).toBe(201);
    // SAFETY: documented answer shape.
    const tool = (await response.json()) as ToolBody & { kind: string; source: unknown };
    expect({
      kind: tool.kind,
      source: tool.source,
      operations: tool.operations.map((op) => [op.operation_id, op.annotations]),
    }).toEqual({
      kind: "mcp",
      source: { format: "mcp", allowed_tools: ["get_weather_data", "delete_forecast_alert"] },
      operations: [
        ["get_weather_data", { readOnlyHint: true, openWorldHint: true, title: "Weather Data Retriever" }],
        [
          "delete_forecast_alert",
          { destructiveHint: true, idempotentHint: true, readOnlyHint: false, title: "Delete Forecast Alert" },
        ],
      ],
    });
  });

  it("imports tools without an outputSchema when the tool-level fallback is given", async () => {
    const response = await call("POST", "/api/tools/import/mcp", {
      key: tenant.key,
      body: { name: "weather_all", tools_list: toolsList, output_schema: { type: "object" } },
    });
    expect(response.status).toBe(201);
    // SAFETY: documented answer shape.
    const tool = (await response.json()) as ToolBody;
    expect(tool.operations.map((op) => op.output_schema)).toEqual([
      toolsList.tools[0]!.outputSchema,
      toolsList.tools[1]!.outputSchema,
      { type: "object" },
    ]);
  });
});

describe("POST /api/tools/import/platform", () => {
  it("normalizes parameter lists and keeps the native envelope", async () => {
    const response = await call("POST", "/api/tools/import/platform", {
      key: tenant.key,
      body: {
        name: "salesforce",
        description: "Salesforce adapter",
        operations: [
          {
            operation_id: "get_contact",
            description: "Read one contact",
            parameters: [{ name: "Id", type: "string", required: true }],
            response: {
              status: 200,
              schema: { type: "object", properties: { records: { type: "array" } }, required: ["records"] },
            },
          },
        ],
      },
    });
    expect(response.status).toBe(201);
    // SAFETY: documented answer shape.
    const tool = (await response.json()) as { operations: Array<{ input_schema: unknown; output_schema: unknown }> };
    expect(tool.operations.map((op) => [op.input_schema, op.output_schema])).toEqual([
      [
        { type: "object", properties: { Id: { type: "string" } }, required: ["Id"], additionalProperties: false },
        {
          type: "object",
          properties: {
            status: { const: 200 },
            data: { type: "object", properties: { records: { type: "array" } }, required: ["records"] },
          },
          required: ["status", "data"],
          additionalProperties: false,
        },
      ],
    ]);
  });
});
