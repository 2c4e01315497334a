import { beforeAll, describe, expect, it } from "vitest";
import { invoiceTool } from "../../fixtures/invoice-tools.js";
import { type TestTenant, call, newTenant } from "../helpers.js";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

async function expectError(response: Response, status: number, error: unknown): Promise<void> {
  expect({ status: response.status, body: await response.json() }).toEqual({ status, body: { error } });
}

describe("malformed requests", () => {
  it("refuses a body that is not JSON", async () => {
    await expectError(await call("POST", "/api/tools", { key: tenant.key, body: "{not json" }), 400, {
      code: "malformed_json",
      message: expect.stringMatching(/^the request body is not valid JSON: /),
    });
  });

  it("refuses a wrong content type", async () => {
    await expectError(
      await call("POST", "/api/tools", {
        key: tenant.key,
        body: JSON.stringify(invoiceTool),
        headers: { "content-type": "text/plain" },
      }),
      415,
      {
        code: "unsupported_media_type",
        message: 'expected Content-Type: application/json, got "text/plain"',
      },
    );
  });

  it("refuses a body over the limit", async () => {
    const huge = { ...invoiceTool, description: "x".repeat(1024 * 1024 + 10) };
    await expectError(await call("POST", "/api/tools", { key: tenant.key, body: huge }), 413, {
      code: "payload_too_large",
      message: "the request body exceeds the limit of 1048576 bytes",
      details: { limit_bytes: 1048576 },
    });
  });
});

describe("invalid fields", () => {
  it("names every bad field at once: unknown fields, wrong types, missing ones", async () => {
    const response = await call("POST", "/api/tools", {
      key: tenant.key,
      body: {
        name: "bad name!",
        kind: "ftp",
        color: "red",
        operations: [{ operation_id: "x", description: 5, input_schema: "no" }],
      },
    });
    expect(response.status).toBe(400);
    // SAFETY: the error body shape.
    const body = (await response.json()) as { error: { code: string; details: { problems: Array<{ path: string }> } } };
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.details.problems.map((p) => p.path).sort()).toEqual(
      ["/color", "/description", "/kind", "/name", "/operations/0/description", "/operations/0/input_schema"].sort(),
    );
  });

  it("refuses a schema that is not valid JSON Schema, naming the place inside it", async () => {
    const ops = [{ ...invoiceTool.operations[0]!, input_schema: { type: "object", properties: { a: { type: 12 } } } }];
    const response = await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, operations: ops } });
    expect(response.status).toBe(400);
    // SAFETY: the error body shape.
    const body = (await response.json()) as {
      error: { details: { problems: Array<{ path: string; message: string }> } };
    };
    expect(body.error.details.problems.length).toBeGreaterThan(0);
    for (const problem of body.error.details.problems) {
      expect(problem.path.startsWith("/operations/0/input_schema")).toBe(true);
      expect(problem.message.startsWith("not a valid JSON Schema: ")).toBe(true);
    }
  });

  it("refuses duplicate operation ids and operations without any output schema", async () => {
    const op = { operation_id: "same", description: "An operation", input_schema: { type: "object" } };
    const response = await call("POST", "/api/tools", {
      key: tenant.key,
      body: { name: "dups", description: "d", kind: "http", operations: [op, op] },
    });
    await expectError(response, 400, {
      code: "invalid_request",
      message:
        "/operations/0/output_schema: required: a mock needs an output schema, and the tool declares no output_schema to fall back to (and 2 more problems)",
      details: {
        problems: [
          {
            path: "/operations/0/output_schema",
            message: "required: a mock needs an output schema, and the tool declares no output_schema to fall back to",
          },
          { path: "/operations/1/operation_id", message: 'duplicate operation_id "same" (also at index 0)' },
          {
            path: "/operations/1/output_schema",
            message: "required: a mock needs an output schema, and the tool declares no output_schema to fall back to",
          },
        ],
      },
    });
  });

  it("refuses a second tool with the same name in one tenant", async () => {
    expect(
      (await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, name: "twice" } })).status,
    ).toBe(201);
    await expectError(
      await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, name: "twice" } }),
      409,
      {
        code: "tool_name_taken",
        message: 'a tool named "twice" already exists',
        details: { problems: [{ path: "/name", message: 'a tool named "twice" already exists' }] },
      },
    );
  });

  it("refuses an MCP import whose filter names a missing tool", async () => {
    const response = await call("POST", "/api/tools/import/mcp", {
      key: tenant.key,
      body: {
        name: "mcp_bad",
        tools_list: { tools: [{ name: "a", inputSchema: { type: "object" }, outputSchema: { type: "object" } }] },
        allowed_tools: ["b"],
      },
    });
    await expectError(response, 400, {
      code: "invalid_request",
      message: '/allowed_tools/0: the server lists no tool named "b"',
      details: { problems: [{ path: "/allowed_tools/0", message: 'the server lists no tool named "b"' }] },
    });
  });

  it("names an MCP tool's own fields when its schemas are missing or invalid", async () => {
    const response = await call("POST", "/api/tools/import/mcp", {
      key: tenant.key,
      body: {
        name: "mcp_fields",
        tools_list: {
          tools: [
            { name: "fine", inputSchema: { type: "object" }, outputSchema: { type: "object" } },
            { name: "bad_input", inputSchema: { type: "object", minProperties: -1 }, outputSchema: { type: "object" } },
            { name: "no_output", inputSchema: { type: "object" } },
          ],
        },
      },
    });
    expect(response.status).toBe(400);
    // SAFETY: the error body shape.
    const body = (await response.json()) as {
      error: { details: { problems: Array<{ path: string; message: string }> } };
    };
    expect(body.error.details.problems.map((p) => p.path)).toEqual([
      "/tools_list/tools/1/inputSchema/minProperties",
      "/tools_list/tools/2/outputSchema",
    ]);
  });

  it("refuses an unreadable cursor and a bad limit", async () => {
    await expectError(await call("GET", "/api/tools?cursor=zzz", { key: tenant.key }), 400, {
      code: "invalid_request",
      message: "/query/cursor: not a cursor this list handed out",
      details: { problems: [{ path: "/query/cursor", message: "not a cursor this list handed out" }] },
    });
    // Not even percent-encoded: refused as such, before it is read as a cursor.
    await expectError(await call("GET", "/api/tools?cursor=%%%", { key: tenant.key }), 400, {
      code: "invalid_request",
      message: "/query/cursor: not a valid percent-encoded UTF-8 value",
      details: { problems: [{ path: "/query/cursor", message: "not a valid percent-encoded UTF-8 value" }] },
    });
    await expectError(await call("GET", "/api/tools?limit=0", { key: tenant.key }), 400, {
      code: "invalid_request",
      message: "/query/limit: expected a whole number from 1 to 200",
      details: { problems: [{ path: "/query/limit", message: "expected a whole number from 1 to 200" }] },
    });
  });

  it("answers 404 for a tool that does not exist", async () => {
    await expectError(await call("GET", "/api/tools/tool_nope", { key: tenant.key }), 404, {
      code: "not_found",
      message: "tool not found",
    });
    await expectError(await call("PUT", "/api/tools/tool_nope", { key: tenant.key, body: invoiceTool }), 404, {
      code: "not_found",
      message: "tool not found",
    });
  });
});

describe("errors that say how to fix them", () => {
  it("suggests input_schema for an OpenAI function's parameters and operation_id for its name", async () => {
    const openAiStyle = {
      name: "openai_style",
      description: "d",
      kind: "http",
      operations: [
        {
          name: "get_invoice",
          description: "Read one invoice",
          parameters: { type: "object" },
          output_schema: { type: "object" },
        },
      ],
    };
    const problems = [
      { path: "/operations/0/operation_id", message: "required" },
      { path: "/operations/0/input_schema", message: "required" },
      { path: "/operations/0/name", message: 'unknown field "name"; did you mean "operation_id"?' },
      { path: "/operations/0/parameters", message: 'unknown field "parameters"; did you mean "input_schema"?' },
    ];
    await expectError(await call("POST", "/api/tools", { key: tenant.key, body: openAiStyle }), 400, {
      code: "invalid_request",
      message: "/operations/0/operation_id: required (and 3 more problems)",
      details: { problems },
    });
  });

  it("suggests the snake_case field for MCP-style camelCase ones", async () => {
    const mcpStyle = {
      name: "mcp_style",
      description: "d",
      kind: "mcp",
      operations: [
        {
          operationId: "get_invoice",
          description: "Read one invoice",
          inputSchema: { type: "object" },
          outputSchema: { type: "object" },
        },
      ],
    };
    const response = await call("POST", "/api/tools", { key: tenant.key, body: mcpStyle });
    // SAFETY: the error body shape.
    const body = (await response.json()) as {
      error: { details: { problems: Array<{ path: string; message: string }> } };
    };
    expect({
      status: response.status,
      unknown: body.error.details.problems.filter((p) => p.message.startsWith("unknown field")),
    }).toEqual({
      status: 400,
      unknown: [
        { path: "/operations/0/operationId", message: 'unknown field "operationId"; did you mean "operation_id"?' },
        { path: "/operations/0/inputSchema", message: 'unknown field "inputSchema"; did you mean "input_schema"?' },
        { path: "/operations/0/outputSchema", message: 'unknown field "outputSchema"; did you mean "output_schema"?' },
      ],
    });
  });

  it("lists the fields that exist when no known field is close", async () => {
    await expectError(
      await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, name: "colourful", colour: "red" } }),
      400,
      {
        code: "invalid_request",
        message:
          '/colour: unknown field "colour"; expected one of: name, description, kind, output_schema, operations, id, source, created_at, updated_at',
        details: {
          problems: [
            {
              path: "/colour",
              message:
                'unknown field "colour"; expected one of: name, description, kind, output_schema, operations, id, source, created_at, updated_at',
            },
          ],
        },
      },
    );
  });

  it("keeps the import formats' own fields: parameters is right in a platform import, a typo there is not", async () => {
    const body = {
      name: "pf_hint",
      description: "d",
      output_schema: { type: "object" },
      operations: [{ operation_id: "a", description: "A", parameters: [], respnse: {} }],
    };
    await expectError(await call("POST", "/api/tools/import/platform", { key: tenant.key, body }), 400, {
      code: "invalid_request",
      message: '/operations/0/respnse: unknown field "respnse"; did you mean "response"?',
      details: {
        problems: [{ path: "/operations/0/respnse", message: 'unknown field "respnse"; did you mean "response"?' }],
      },
    });
  });

  it("says that a tool name sits where the id belongs, with the id when this tenant has a tool by that name", async () => {
    const own = await newTenant();
    const created = await call("POST", "/api/tools", { key: own.key, body: { ...invoiceTool, name: "refunds" } });
    // SAFETY: documented Tool shape.
    const id = ((await created.json()) as { id: string }).id;
    const named = {
      code: "not_found",
      message: `no tool has the id "refunds", but it looks like a tool name: this tenant's tool "refunds" has the id "${id}"`,
      details: { tool_id: id },
    };
    await expectError(await call("GET", "/api/tools/refunds", { key: own.key }), 404, named);
    await expectError(await call("PUT", "/api/tools/refunds", { key: own.key, body: invoiceTool }), 404, named);
    await expectError(await call("DELETE", "/api/tools/refunds", { key: own.key }), 404, named);
    await expectError(await call("GET", "/api/tools/refunds/testing", { key: own.key }), 404, named);
    // Another tenant's names are never revealed: the same answer as for a name nobody has.
    const unnamed = {
      code: "not_found",
      message: 'no tool has the id "refunds"; tool ids start with "tool_" (GET /api/tools lists them)',
    };
    await expectError(await call("GET", "/api/tools/refunds", { key: tenant.key }), 404, unnamed);
  });
});
