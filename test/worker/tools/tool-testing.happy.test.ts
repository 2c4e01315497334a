import { beforeAll, describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool, placeOnHoldDefinition } from "../../fixtures/invoice-tools.js";
import { type TestTenant, call, newTenant } from "../helpers.js";

interface Tool {
  id: string;
  operations: Array<{ operation_id: string; contract_hash: string }>;
}

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

async function registerInvoices(name: string): Promise<Tool> {
  const response = await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, name } });
  expect(response.status).toBe(201);
  // SAFETY: documented answer shape.
  return (await response.json()) as Tool;
}

function hashOf(tool: Tool, operationId: string): string {
  const op = tool.operations.find((o) => o.operation_id === operationId);
  if (!op) throw new Error(`no operation ${operationId}`);
  return op.contract_hash;
}

async function save(
  tool: Tool,
  operationId: string,
  definition: unknown,
  contractHash = hashOf(tool, operationId),
): Promise<Response> {
  return call("POST", `/api/tools/${tool.id}/testing`, {
    key: tenant.key,
    body: { action: "save", operation_id: operationId, contract_hash: contractHash, definition },
  });
}

describe("the mock lifecycle of a library tool", () => {
  it("register, draft, save, change the schema, go stale, be refused, save again", async () => {
    const tool = await registerInvoices("lifecycle");

    // A fresh tool has no revisions and nothing is stale.
    const view0 = await call("GET", `/api/tools/${tool.id}/testing`, { key: tenant.key });
    expect(await view0.json()).toEqual({
      tool_id: tool.id,
      operations: invoiceTool.operations.map((op) => ({
        operation_id: op.operation_id,
        contract: { description: op.description, input_schema: op.input_schema, output_schema: op.output_schema },
        contract_hash: hashOf(tool, op.operation_id),
        latest_revision: null,
        stale: false,
      })),
    });

    // The schema-derived draft passes its own check and can be saved as it is.
    const draftResponse = await call("POST", `/api/tools/${tool.id}/testing`, {
      key: tenant.key,
      body: { action: "generate", operation_id: "get_invoice" },
    });
    expect(draftResponse.status).toBe(200);
    // SAFETY: documented answer shape.
    const draft = (await draftResponse.json()) as {
      definition: unknown;
      report: { valid: boolean; contract_hash: string };
    };
    expect({ valid: draft.report.valid, hash: draft.report.contract_hash }).toEqual({
      valid: true,
      hash: hashOf(tool, "get_invoice"),
    });
    const first = await save(tool, "get_invoice", draft.definition);
    expect({ status: first.status, body: await first.json() }).toEqual({
      status: 201,
      body: {
        operation_id: "get_invoice",
        revision: 1,
        contract_hash: hashOf(tool, "get_invoice"),
        created_at: expect.any(String),
        created_by: tenant.keyId,
      },
    });
    const second = await save(tool, "get_invoice", getInvoiceDefinition);
    expect(second.status).toBe(201);
    expect(await second.json()).toMatchObject({ revision: 2 });

    // Changing the operation's input schema changes its hash: the saved revision is now stale.
    const changed = invoiceTool.operations.map((op) =>
      op.operation_id === "get_invoice"
        ? {
            ...op,
            input_schema: {
              type: "object",
              properties: { invoice_id: { type: "string", minLength: 3 } },
              required: ["invoice_id"],
              additionalProperties: false,
            },
          }
        : op,
    );
    const put = await call("PUT", `/api/tools/${tool.id}`, {
      key: tenant.key,
      body: { ...invoiceTool, name: "lifecycle", operations: changed },
    });
    // SAFETY: documented answer shape.
    const updated = (await put.json()) as Tool;
    const newHash = hashOf(updated, "get_invoice");
    expect(newHash).not.toBe(hashOf(tool, "get_invoice"));

    const view1 = await call("GET", `/api/tools/${tool.id}/testing`, { key: tenant.key });
    // SAFETY: documented answer shape.
    const testing = (await view1.json()) as {
      operations: Array<{ operation_id: string; stale: boolean; latest_revision: unknown; contract_hash: string }>;
    };
    expect(testing.operations[0]).toEqual({
      operation_id: "get_invoice",
      contract: expect.any(Object),
      contract_hash: newHash,
      latest_revision: {
        revision: 2,
        contract_hash: hashOf(tool, "get_invoice"),
        created_at: expect.any(String),
        created_by: tenant.keyId,
      },
      stale: true,
    });

    // Saving against the old hash is refused with the current one.
    const refused = await save(tool, "get_invoice", getInvoiceDefinition, hashOf(tool, "get_invoice"));
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 409,
      body: {
        error: {
          code: "stale_contract",
          message:
            "the contract changed since this hash was read: check the definition against the current contract and save again",
          details: { sent_contract_hash: hashOf(tool, "get_invoice"), current_contract_hash: newHash },
        },
      },
    });

    // Saved again against the current contract: revision 3, and no longer stale.
    const third = await save(updated, "get_invoice", getInvoiceDefinition);
    expect(await third.json()).toMatchObject({ revision: 3, contract_hash: newHash });
    const view2 = await call("GET", `/api/tools/${tool.id}/testing`, { key: tenant.key });
    // SAFETY: documented answer shape.
    expect(
      ((await view2.json()) as { operations: Array<{ stale: boolean }> }).operations.map((op) => op.stale),
    ).toEqual([false, false]);
  });
});

describe("GET /api/tools/:id/operations/:operation_id/revisions", () => {
  it("lists the history newest first, page by page, marking stale revisions", async () => {
    const tool = await registerInvoices("history");
    for (let i = 0; i < 5; i++)
      expect((await save(tool, "place_invoice_on_hold", placeOnHoldDefinition)).status).toBe(201);
    const revisions: number[] = [];
    let cursor: string | null = null;
    do {
      const response = await call(
        "GET",
        `/api/tools/${tool.id}/operations/place_invoice_on_hold/revisions?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        {
          key: tenant.key,
        },
      );
      // SAFETY: documented list shape.
      const page = (await response.json()) as {
        items: Array<{ revision: number; stale: boolean; definition: unknown; operation_id: string }>;
        next_cursor: string | null;
      };
      for (const item of page.items) {
        expect(item).toEqual({
          operation_id: "place_invoice_on_hold",
          revision: item.revision,
          contract_hash: hashOf(tool, "place_invoice_on_hold"),
          stale: false,
          definition: placeOnHoldDefinition,
          created_at: expect.any(String),
          created_by: tenant.keyId,
        });
      }
      revisions.push(...page.items.map((item) => item.revision));
      cursor = page.next_cursor;
    } while (cursor);
    expect(revisions).toEqual([5, 4, 3, 2, 1]);
  });
});

describe("POST /api/tools/testing (inline tools)", () => {
  const inline = {
    name: "get_invoice",
    description: invoiceTool.operations[0]!.description,
    input_schema: invoiceTool.operations[0]!.input_schema,
    output_schema: invoiceTool.operations[0]!.output_schema,
  };

  it("checks a definition and answers the full report, storing nothing", async () => {
    const response = await call("POST", "/api/tools/testing", {
      key: tenant.key,
      body: { action: "check", ...inline, testing: getInvoiceDefinition },
    });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 200,
      body: {
        valid: true,
        errors: [],
        examples: [
          { index: 0, variant: "success", passed: true },
          { index: 1, variant: "success", passed: true },
        ],
        contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    const list = await call("GET", "/api/tools", { key: tenant.key });
    // SAFETY: documented list shape.
    expect(((await list.json()) as { items: Array<{ name: string }> }).items.map((t) => t.name)).not.toContain(
      "get_invoice",
    );
  });

  it("reports a failing example with its index and path", async () => {
    const wrong = structuredClone(getInvoiceDefinition);
    wrong.examples[1]!.expected.amount = 1;
    const response = await call("POST", "/api/tools/testing", {
      key: tenant.key,
      body: { action: "check", ...inline, testing: wrong },
    });
    // SAFETY: documented report shape.
    const report = (await response.json()) as {
      valid: boolean;
      examples: Array<{ index: number; passed: boolean; error?: { path: string } }>;
    };
    expect(response.status).toBe(200);
    expect(report.valid).toBe(false);
    expect(report.examples.map((e) => [e.index, e.passed, e.error?.path])).toEqual([
      [0, true, undefined],
      [1, false, "/examples/1/expected/amount"],
    ]);
  });

  it("generates a draft from the schemas", async () => {
    const response = await call("POST", "/api/tools/testing", {
      key: tenant.key,
      body: { action: "generate", ...inline },
    });
    expect(response.status).toBe(200);
    // SAFETY: documented answer shape.
    const body = (await response.json()) as {
      definition: { schema_version: number; default_variant: string };
      report: { valid: boolean };
    };
    expect({
      version: body.definition.schema_version,
      variant: body.definition.default_variant,
      valid: body.report.valid,
    }).toEqual({
      version: 1,
      variant: "success",
      valid: true,
    });
  });
});
