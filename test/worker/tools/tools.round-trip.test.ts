/**
 * The tool library round-trips its own answers: what GET /api/tools/:id answers can be edited and
 * PUT back. Read-only fields are accepted while they are true and refused, by name, when not.
 */
import { beforeAll, describe, expect, it } from "vitest";
import toolsList from "../../fixtures/mcp-tools-list.json" with { type: "json" };
import { invoiceSchema, invoiceTool } from "../../fixtures/invoice-tools.js";
import { contractHash } from "../../../src/core/contract/index.js";
import { type TestTenant, call, newTenant } from "../helpers.js";

interface ToolView {
  id: string;
  name: string;
  description: string;
  output_schema: unknown;
  source: unknown;
  created_at: string;
  updated_at: string;
  operations: Array<{
    operation_id: string;
    description: string;
    input_schema: unknown;
    output_schema: unknown;
    output_schema_inherited: boolean;
    contract_hash: string;
  }>;
}

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

async function created(path: string, body: unknown): Promise<ToolView> {
  const response = await answer(await call("POST", path, { key: tenant.key, body }));
  expect(response.status).toBe(201);
  // SAFETY: a 201 answer has the documented Tool shape.
  return response.body as ToolView;
}

async function read(id: string): Promise<ToolView> {
  const response = await answer(await call("GET", `/api/tools/${id}`, { key: tenant.key }));
  expect(response.status).toBe(200);
  // SAFETY: a 200 answer has the documented Tool shape.
  return response.body as ToolView;
}

const put = async (id: string, body: unknown) =>
  answer(await call("PUT", `/api/tools/${id}`, { key: tenant.key, body }));

/** One operation with its own output schema and no annotations, one inheriting the tool's. */
const mixedTool = {
  name: "mixed",
  description: "Invoices, one operation inheriting the tool's output schema.",
  kind: "http",
  output_schema: invoiceSchema,
  operations: [invoiceTool.operations[1]!, { ...invoiceTool.operations[0]!, output_schema: undefined }],
};

describe("GET, then PUT unchanged", () => {
  it.each([
    ["a registered tool (null annotations, an inheriting operation, no source)", "/api/tools", mixedTool],
    [
      "an MCP import (annotations and a source)",
      "/api/tools/import/mcp",
      { name: "weather", tools_list: toolsList, output_schema: { type: "object" } },
    ],
  ])("answers 200 with the same tool and contract hashes: %s", async (_, path, body) => {
    const tool = await created(path, body);
    const shown = await read(tool.id);
    const replaced = await put(tool.id, shown);
    expect(replaced).toEqual({ status: 200, body: { ...shown, updated_at: expect.any(String) } });
    expect(await read(tool.id)).toEqual(replaced.body);
  });
});

describe("GET, edit, PUT", () => {
  it("changes the contract hash of an operation whose description was edited, and only that one", async () => {
    const tool = await created("/api/tools", { ...mixedTool, name: "edited" });
    const shown = await read(tool.id);
    const edited = {
      ...shown,
      operations: shown.operations.map((op, i) =>
        i === 0 ? { ...op, description: "Stop paying an invoice until the hold is released." } : op,
      ),
    };
    const replaced = await put(tool.id, edited);
    const [first, second] = shown.operations;
    expect(replaced).toEqual({
      status: 200,
      body: {
        ...shown,
        updated_at: expect.any(String),
        operations: [
          {
            ...first,
            description: "Stop paying an invoice until the hold is released.",
            contract_hash: await contractHash({
              tool: tool.id,
              operation: first!.operation_id,
              description: "Stop paying an invoice until the hold is released.",
              input_schema: first!.input_schema as never,
              output_schema: first!.output_schema as never,
            }),
          },
          second,
        ],
      },
    });
    expect((replaced.body as ToolView).operations[0]!.contract_hash).not.toBe(first!.contract_hash);
  });

  it("lets an inheriting operation follow an edited tool-level output schema", async () => {
    const tool = await created("/api/tools", { ...mixedTool, name: "reshaped" });
    const shown = await read(tool.id);
    const schema = {
      ...invoiceSchema,
      properties: { ...(invoiceSchema.properties as object), currency: { type: "string" } },
    };
    const replaced = await put(tool.id, { ...shown, output_schema: schema });
    const body = replaced.body as ToolView;
    expect({
      status: replaced.status,
      operations: body.operations.map((op) => [op.operation_id, op.output_schema, op.output_schema_inherited]),
    }).toEqual({
      status: 200,
      operations: [
        ["place_invoice_on_hold", invoiceTool.operations[1]!.output_schema, false],
        ["get_invoice", schema, true],
      ],
    });
    expect(body.operations[1]!.contract_hash).not.toBe(shown.operations[1]!.contract_hash);
    expect(body.operations[0]!.contract_hash).toBe(shown.operations[0]!.contract_hash);
  });

  it("gives an operation its own output schema when output_schema_inherited is set to false", async () => {
    const tool = await created("/api/tools", { ...mixedTool, name: "own_schema" });
    const shown = await read(tool.id);
    const replaced = await put(tool.id, {
      ...shown,
      operations: shown.operations.map((op) => ({ ...op, output_schema_inherited: false })),
    });
    expect(replaced).toEqual({
      status: 200,
      body: {
        ...shown,
        updated_at: expect.any(String),
        operations: shown.operations.map((op) => ({ ...op, output_schema_inherited: false })),
      },
    });
  });
});

describe("read-only fields that are no longer true", () => {
  it("refuses each one, naming the field, and leaves the tool as it was", async () => {
    const tool = await created("/api/tools", { ...mixedTool, name: "guarded" });
    const other = await created("/api/tools", { ...mixedTool, name: "guarded_other" });
    const shown = await read(tool.id);
    const [first, second] = shown.operations;
    const stale = {
      ...shown,
      id: other.id,
      created_at: "2020-01-01T00:00:00.000Z",
      updated_at: "2020-01-02T00:00:00.000Z",
      source: { format: "mcp" },
      operations: [
        { ...first, contract_hash: "0".repeat(64) },
        { ...second, output_schema: { type: "object" } },
        { ...second, operation_id: "added", contract_hash: second!.contract_hash },
      ],
    };
    const problems = [
      {
        path: "/id",
        message: `read-only: the body is tool "${other.id}" but the URL names tool "${tool.id}"; PUT it to /api/tools/${other.id}, or leave id out`,
      },
      {
        path: "/created_at",
        message: `read-only: the tool was created at ${shown.created_at}; send that or leave created_at out`,
      },
      {
        path: "/updated_at",
        message: `read-only: the tool changed at ${shown.updated_at}, after this copy was read; GET it again and redo the edit, or leave updated_at out to replace it anyway`,
      },
      {
        path: "/source",
        message: "read-only: where the tool was imported from is kept as it was; send it unchanged or leave source out",
      },
      {
        path: "/operations/0/contract_hash",
        message: `read-only: operation "place_invoice_on_hold" has contract hash ${first!.contract_hash} now; leave contract_hash out (toolproof computes it from the contract)`,
      },
      {
        path: "/operations/1/output_schema_inherited",
        message:
          "true, but output_schema is not the tool's output_schema: set output_schema_inherited to false to give the operation this output schema of its own, or leave output_schema out to inherit the tool's",
      },
      {
        path: "/operations/2/contract_hash",
        message:
          'read-only: the tool has no operation "added" yet; leave contract_hash out (toolproof computes it from the contract)',
      },
    ];
    expect(await put(tool.id, stale)).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `${problems[0]!.path}: ${problems[0]!.message} (and 6 more problems)`,
          details: { problems },
        },
      },
    });
    expect(await read(tool.id)).toEqual(shown);
  });

  it("refuses a copy read before someone else's change (updated_at), so the change is not overwritten unseen", async () => {
    const tool = await created("/api/tools", { ...mixedTool, name: "raced" });
    const mine = await read(tool.id);
    const theirs = await put(tool.id, { ...mine, description: "Their edit." });
    expect(theirs.status).toBe(200);
    const response = await put(tool.id, { ...mine, description: "My edit." });
    expect(response).toMatchObject({
      status: 400,
      body: { error: { details: { problems: [{ path: "/updated_at" }] } } },
    });
    expect((await read(tool.id)).description).toBe("Their edit.");
  });
});

describe("POST /api/tools with what GET shows", () => {
  it("reads null as absent for output_schema and annotations", async () => {
    const tool = await created("/api/tools", {
      ...invoiceTool,
      name: "nulls",
      output_schema: null,
      source: null,
      operations: invoiceTool.operations.map((op) => ({ ...op, annotations: null })),
    });
    expect({
      output_schema: tool.output_schema,
      annotations: tool.operations.map((op) => (op as { annotations?: unknown }).annotations),
    }).toEqual({
      output_schema: null,
      annotations: [null, null],
    });
  });

  it("refuses read-only fields, pointing a copy of an existing tool at PUT", async () => {
    const tool = await created("/api/tools", { ...mixedTool, name: "copied" });
    const shown = await read(tool.id);
    const problems = [
      {
        path: "/id",
        message: `read-only: toolproof assigns a new tool's id; to change tool "${tool.id}", PUT /api/tools/${tool.id}`,
      },
      { path: "/created_at", message: "read-only: toolproof sets it when the tool is registered; leave it out" },
      { path: "/updated_at", message: "read-only: toolproof sets it when the tool is registered; leave it out" },
      {
        path: "/operations/0/contract_hash",
        message: "read-only: toolproof computes it when the tool is registered; leave it out",
      },
      {
        path: "/operations/1/contract_hash",
        message: "read-only: toolproof computes it when the tool is registered; leave it out",
      },
    ];
    expect(
      await answer(await call("POST", "/api/tools", { key: tenant.key, body: { ...shown, name: "copied_again" } })),
    ).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `${problems[0]!.path}: ${problems[0]!.message} (and 4 more problems)`,
          details: { problems },
        },
      },
    });
  });
});
