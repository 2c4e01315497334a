import { describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool, placeOnHoldDefinition } from "../../fixtures/invoice-tools.js";
import { call, newTenant } from "../helpers.js";
import { counterTool, libraryTool } from "../simulation-helpers.js";

const tenantPromise = newTenant();

async function post(body: unknown): Promise<{ status: number; body: unknown }> {
  const tenant = await tenantPromise;
  const response = await call("POST", "/api/simulations", { key: tenant.key, body });
  return { status: response.status, body: await response.json() };
}

function invalid(problems: Array<{ path: string; message: unknown }>) {
  return { error: { code: "invalid_request", message: expect.any(String), details: { problems } } };
}

describe("POST /api/simulations refuses, naming the field", () => {
  it.each([
    ["no tools", { tools: [] }, [{ path: "/tools", message: "expected at least one tool" }]],
    [
      "too many attempts",
      { tools: [{ inline: counterTool }], attempts: 101 },
      [{ path: "/attempts", message: "expected at most 100" }],
    ],
    [
      "zero attempts",
      { tools: [{ inline: counterTool }], attempts: 0 },
      [{ path: "/attempts", message: "expected 1 or more" }],
    ],
    [
      "a lease too short",
      { tools: [{ inline: counterTool }], lease_seconds: 5 },
      [{ path: "/lease_seconds", message: "expected at least 10" }],
    ],
    [
      "a lease too long",
      { tools: [{ inline: counterTool }], lease_seconds: 86401 },
      [{ path: "/lease_seconds", message: "expected at most 86400" }],
    ],
    [
      "an unknown field",
      { tools: [{ inline: counterTool }], leases: 1 },
      [{ path: "/leases", message: 'unknown field "leases"; did you mean "lease_seconds"?' }],
    ],
    [
      "an entry with an unknown field",
      { tools: [{ tool_id: "x", operation: "y" }] },
      [{ path: "/tools/0/operation", message: 'unknown field "operation"; did you mean "operation_id"?' }],
    ],
    [
      "an inline tool without its definition",
      { tools: [{ inline: { ...counterTool, testing: undefined } }] },
      [{ path: "/tools/0/inline/testing", message: "required: the tool's mock definition" }],
    ],
    [
      "an inline tool with a bad name",
      { tools: [{ inline: { ...counterTool, name: "has space" } }] },
      [{ path: "/tools/0/inline/name", message: "expected 1 to 64 letters, digits, '_' or '-'" }],
    ],
    [
      "an inline tool whose schema is not JSON Schema",
      { tools: [{ inline: { ...counterTool, input_schema: { type: "objekt" } } }] },
      [
        {
          path: expect.stringMatching(/^\/tools\/0\/inline\/input_schema/),
          message: expect.stringContaining("not a valid JSON Schema"),
        },
      ],
    ],
    [
      "a policy when no tool is in real mode (it would change nothing)",
      { tools: [{ inline: counterTool }], policy: "nope" },
      [
        {
          path: "/policy",
          message:
            "a policy decides which calls of a real-mode tool are writes; no tool here is in real mode, so it would change nothing (leave it out, or set a tool's mode to real)",
        },
      ],
    ],
  ])("%s", async (_name, body, problems) => {
    expect(await post(body)).toEqual({ status: 400, body: invalid(problems) });
  });

  it("404 for unknown tools and operations, naming each", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(tenant, { ...invoiceTool, name: "invoices_404" }, {});
    expect(await post({ tools: [{ tool_id: "tool_missing" }, { tool_id: tool.id, operation_id: "refund" }] })).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: expect.any(String),
          details: {
            problems: [
              { path: "/tools/0/tool_id", message: 'no tool "tool_missing"' },
              {
                path: "/tools/1/operation_id",
                message: 'tool "invoices_404" has no operation "refund" (it has get_invoice, place_invoice_on_hold)',
              },
            ],
          },
        },
      },
    });
  });

  it("409 naming every operation without a current revision: stale and missing alike", async () => {
    const tenant = await tenantPromise;
    const spec = { ...invoiceTool, name: "invoices_stale" };
    const tool = await libraryTool(tenant, spec, { get_invoice: getInvoiceDefinition });
    const oldHash = tool.operations.find((o) => o.operation_id === "get_invoice")?.contract_hash;
    const changed = {
      ...spec,
      operations: spec.operations.map((op) => ({ ...op, description: `${op.description} (v2)` })),
    };
    const put = await call("PUT", `/api/tools/${tool.id}`, { key: tenant.key, body: changed });
    const current = (await put.json()) as { operations: Array<{ operation_id: string; contract_hash: string }> };
    const hashOf = (op: string) => current.operations.find((o) => o.operation_id === op)?.contract_hash;
    expect(await post({ tools: [{ tool_id: tool.id }] })).toEqual({
      status: 409,
      body: {
        error: {
          code: "no_current_revision",
          message: `these operations have no mock revision checked against their current contract: ${tool.id}/get_invoice (stale), ${tool.id}/place_invoice_on_hold (missing); save one first`,
          details: {
            offenders: [
              {
                path: "/tools/0",
                tool_id: tool.id,
                operation_id: "get_invoice",
                reason: "stale",
                current_contract_hash: hashOf("get_invoice"),
                latest_revision: 1,
                latest_revision_contract_hash: oldHash,
              },
              {
                path: "/tools/0",
                tool_id: tool.id,
                operation_id: "place_invoice_on_hold",
                reason: "missing",
                current_contract_hash: hashOf("place_invoice_on_hold"),
                latest_revision: null,
                latest_revision_contract_hash: null,
              },
            ],
          },
        },
      },
    });
  });

  it("422 with the check report when an inline definition does not pass", async () => {
    const broken = {
      ...counterTool,
      testing: { ...counterTool.testing, examples: [{ variant: "swap", input: { n: 5 }, expected: { previous: 99 } }] },
    };
    expect(await post({ tools: [{ inline: counterTool }, { inline: { ...broken, name: "broken" } }] })).toEqual({
      status: 422,
      body: {
        error: {
          code: "invalid_definition",
          message: "the mock definition at /tools/1/inline/testing does not pass its check",
          details: {
            path: "/tools/1/inline/testing",
            valid: false,
            errors: expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining("/examples/0") })]),
            examples: [
              { index: 0, variant: "swap", passed: false, error: expect.objectContaining({ kind: "mismatch" }) },
            ],
            contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
            invalid: ["/tools/1/inline/testing"],
          },
        },
      },
    });
  });

  it("400 for a variant the pinned definition does not have, naming the field and the variants it has", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_variant_err" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    expect(
      await post({
        tools: [
          { tool_id: tool.id, operation_id: "get_invoice", variant: "gone" },
          { inline: counterTool, variant: "nope" },
        ],
      }),
    ).toEqual({
      status: 400,
      body: invalid([
        {
          path: "/tools/0/variant",
          message: 'unknown variant "gone": revision 1 of invoices_variant_err__get_invoice defines success',
        },
        { path: "/tools/1/variant", message: 'unknown variant "nope": the inline definition of counter defines swap' },
      ]),
    });
    expect(await post({ tools: [{ tool_id: tool.id, variant: "success" }] })).toEqual({
      status: 400,
      body: invalid([
        {
          path: "/tools/0/variant",
          message: 'this entry pins 2 operations; choose their variants with variants: {"<operation_id>": "<variant>"}',
        },
      ]),
    });
    expect(await post({ tools: [{ tool_id: tool.id, variants: { refund: "success" } }] })).toEqual({
      status: 400,
      body: invalid([{ path: "/tools/0/variants/refund", message: 'this entry pins no operation "refund"' }]),
    });
  });

  it("400 for an operation pinned twice, and for two tools with one name", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "counter" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    expect(await post({ tools: [{ tool_id: tool.id, operation_id: "get_invoice" }, { tool_id: tool.id }] })).toEqual({
      status: 400,
      body: invalid([
        { path: "/tools/1", message: 'operation "get_invoice" of tool "counter" is already pinned by /tools/0' },
      ]),
    });
    expect(await post({ tools: [{ tool_id: tool.id, operation_id: "get_invoice" }, { inline: counterTool }] })).toEqual(
      {
        status: 400,
        body: invalid([
          {
            path: "/tools/1",
            message: 'two different tools are named "counter"; state and evidence are kept by tool name',
          },
        ]),
      },
    );
  });

  it("422 when the operations of one tool start from contradicting states", async () => {
    const tenant = await tenantPromise;
    const hold = { ...placeOnHoldDefinition, initial_state: { status: "on_hold" } };
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_conflict" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: hold },
    );
    expect(await post({ tools: [{ tool_id: tool.id }] })).toEqual({
      status: 422,
      body: {
        error: {
          code: "initial_state_conflict",
          message: expect.any(String),
          details: {
            problems: [
              {
                path: "tool invoices_conflict: initial_state/status",
                message:
                  'initial_state of operations "get_invoice" and "place_invoice_on_hold" disagree at /status: "approved" versus "on_hold"',
              },
            ],
          },
        },
      },
    });
  });
});

describe("a tool's name where its id belongs", () => {
  it("404 that says it looks like a tool name and gives the id of the tool so named", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(tenant, { ...invoiceTool, name: "refunds" }, {});
    expect(await post({ tools: [{ tool_id: "refunds" }, { tool_id: "payouts" }] })).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: `/tools/0/tool_id: no tool "refunds": that looks like a tool name, and tool_id takes the tool's id; the tool named "refunds" has id "${tool.id}" (and 1 more)`,
          details: {
            problems: [
              {
                path: "/tools/0/tool_id",
                message: `no tool "refunds": that looks like a tool name, and tool_id takes the tool's id; the tool named "refunds" has id "${tool.id}"`,
              },
              {
                path: "/tools/1/tool_id",
                message:
                  'no tool "payouts": tool_id takes a tool\'s id (tool_…, as GET /api/tools lists them), and no tool is named "payouts" either',
              },
            ],
          },
        },
      },
    });
  });
});

describe("GET /api/simulations refuses, naming the parameter", () => {
  it.each([
    ["a limit of 0", "?limit=0", "/query/limit", "expected a whole number from 1 to 200"],
    ["a limit past 200", "?limit=201", "/query/limit", "expected a whole number from 1 to 200"],
    ["a limit that is not a number", "?limit=ten", "/query/limit", "expected a whole number from 1 to 200"],
    ["a cursor it never handed out", "?cursor=bm90LWEtY3Vyc29y", "/query/cursor", "not a cursor this list handed out"],
    [
      "a cursor of the wrong shape",
      `?cursor=${btoa(JSON.stringify([1, 2])).replace(/=+$/, "")}`,
      "/query/cursor",
      "not a cursor this list handed out",
    ],
  ])("%s", async (_name, query, path, message) => {
    const tenant = await tenantPromise;
    const response = await call("GET", `/api/simulations${query}`, { key: tenant.key });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: invalid([{ path, message }]),
    });
  });

  it("413 for inline tools that one D1 row could not hold, naming the size, before anything is stored", async () => {
    // Each definition is within its 100 KB and the body within its 4 MB; together they are past
    // what one D1 row holds (Miniflare's local D1 takes it, a deployed one answers an error).
    const tools = Array.from({ length: 22 }, (_, i) => ({
      inline: {
        ...counterTool,
        name: `counter_${i + 1}`,
        testing: { ...counterTool.testing, initial_state: { last: 0, note: "n".repeat(95_000) } },
      },
    }));
    const listed = async () => {
      const response = await call("GET", "/api/simulations?limit=100", { key: (await tenantPromise).key });
      return ((await response.json()) as { items: unknown[] }).items;
    };
    const before = await listed();
    const refused = await post({ tools });
    expect(await listed()).toEqual(before);
    expect(refused).toMatchObject({ status: 413, body: { error: { code: "payload_too_large" } } });
    const { error } = refused.body as { error: { message: string; details: { bytes: number; limit_bytes: number } } };
    expect(error.details.limit_bytes).toBe(2_000_000);
    expect(error.details.bytes).toBeGreaterThan(2_000_000);
    expect(error.message).toBe(
      `the simulation's pinned operations as stored would be ${error.details.bytes} bytes; a stored document may be at most 2000000 bytes (one D1 row): register the tools in the library and pin them by tool_id, or split them across simulations`,
    );
  });

  it("404 for a simulation that does not exist", async () => {
    const tenant = await tenantPromise;
    const response = await call("GET", "/api/simulations/sim_doesnotexist", { key: tenant.key });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "simulation not found" } },
    });
  });
});
