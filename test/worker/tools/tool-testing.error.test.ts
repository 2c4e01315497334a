import { beforeAll, describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool } from "../../fixtures/invoice-tools.js";
import { type TestTenant, call, newTenant } from "../helpers.js";

let tenant: TestTenant;
let toolId: string;
let hash: string;

beforeAll(async () => {
  tenant = await newTenant();
  const response = await call("POST", "/api/tools", { key: tenant.key, body: invoiceTool });
  // SAFETY: documented answer shape.
  const tool = (await response.json()) as { id: string; operations: Array<{ contract_hash: string }> };
  toolId = tool.id;
  hash = tool.operations[0]!.contract_hash;
});

const post = (body: unknown) => call("POST", `/api/tools/${toolId}/testing`, { key: tenant.key, body });

describe("POST /api/tools/:id/testing refusals", () => {
  it("answers 422 with the full check report when an example fails", async () => {
    const wrong = structuredClone(getInvoiceDefinition);
    wrong.examples[0]!.expected.supplier = "Someone Else";
    const response = await post({
      action: "save",
      operation_id: "get_invoice",
      contract_hash: hash,
      definition: wrong,
    });
    expect(response.status).toBe(422);
    // SAFETY: documented error shape.
    const body = (await response.json()) as {
      error: {
        code: string;
        details: { valid: boolean; contract_hash: string; examples: Array<{ index: number; passed: boolean }> };
      };
    };
    expect({
      code: body.error.code,
      valid: body.error.details.valid,
      hash: body.error.details.contract_hash,
      examples: body.error.details.examples.map((e) => [e.index, e.passed]),
    }).toEqual({
      code: "invalid_definition",
      valid: false,
      hash,
      examples: [
        [0, false],
        [1, true],
      ],
    });
  });

  it("answers 422 naming every problem of a malformed definition", async () => {
    const response = await post({
      action: "save",
      operation_id: "get_invoice",
      contract_hash: hash,
      definition: { schema_version: 3, default_variant: "nope", variants: {}, examples: [], extra: true },
    });
    expect(response.status).toBe(422);
    // SAFETY: documented error shape.
    const body = (await response.json()) as { error: { details: { errors: Array<{ path: string }> } } };
    expect(body.error.details.errors.map((e) => e.path)).toEqual(expect.arrayContaining(["/schema_version", "/extra"]));
  });

  it("refuses unknown actions, unknown fields, wrong types and unknown operations", async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ action: "delete", operation_id: "get_invoice" }, 400, "invalid_request"],
      [
        { action: "save", operation_id: "get_invoice", contract_hash: hash, definition: {}, extra: 1 },
        400,
        "invalid_request",
      ],
      [{ action: "save", operation_id: "get_invoice", contract_hash: "abc", definition: {} }, 400, "invalid_request"],
      [
        { action: "save", operation_id: "no_such_op", contract_hash: hash, definition: getInvoiceDefinition },
        404,
        "not_found",
      ],
      [
        { action: "generate", operation_id: "get_invoice", instructions: "make it realistic" },
        422,
        "model_connection_required",
      ],
    ];
    for (const [body, status, code] of cases) {
      const response = await post(body);
      // SAFETY: documented error shape.
      expect({
        status: response.status,
        code: ((await response.json()) as { error: { code: string } }).error.code,
      }).toEqual({ status, code });
    }
  });

  it("answers needs_authored_mock when the output schema cannot be derived", async () => {
    const response = await call("POST", "/api/tools", {
      key: tenant.key,
      body: {
        name: "coded",
        description: "Codes",
        kind: "http",
        operations: [
          {
            operation_id: "make_code",
            description: "Make a code",
            input_schema: { type: "object" },
            output_schema: {
              type: "object",
              properties: { code: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$" } },
              required: ["code"],
            },
          },
        ],
      },
    });
    // SAFETY: documented answer shape.
    const tool = (await response.json()) as { id: string };
    const draft = await call("POST", `/api/tools/${tool.id}/testing`, {
      key: tenant.key,
      body: { action: "generate", operation_id: "make_code" },
    });
    expect(draft.status).toBe(422);
    // SAFETY: documented error shape.
    const body = (await draft.json()) as { error: { code: string; details: { construct: string } } };
    expect({ code: body.error.code, construct: body.error.details.construct }).toEqual({
      code: "needs_authored_mock",
      construct: "/properties/code/pattern",
    });
  });

  it("answers 404 for the revisions of an unknown operation", async () => {
    const response = await call("GET", `/api/tools/${toolId}/operations/nope/revisions`, { key: tenant.key });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "operation not found" } },
    });
  });
});

describe("POST /api/tools/testing refusals", () => {
  it("refuses schemas that are not JSON Schema, naming the field", async () => {
    const response = await call("POST", "/api/tools/testing", {
      key: tenant.key,
      body: {
        action: "check",
        name: "x",
        description: "d",
        input_schema: { type: "object" },
        output_schema: { minimum: "ten" },
        testing: getInvoiceDefinition,
      },
    });
    expect(response.status).toBe(400);
    // SAFETY: documented error shape.
    const body = (await response.json()) as { error: { code: string; details: { problems: Array<{ path: string }> } } };
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.details.problems.every((p) => p.path.startsWith("/output_schema"))).toBe(true);
  });

  it("refuses a check without a definition", async () => {
    const response = await call("POST", "/api/tools/testing", {
      key: tenant.key,
      body: {
        action: "check",
        name: "x",
        description: "d",
        input_schema: { type: "object" },
        output_schema: { type: "object" },
      },
    });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: "/testing: required",
          details: { problems: [{ path: "/testing", message: "required" }] },
        },
      },
    });
  });
});
