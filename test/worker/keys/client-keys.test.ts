/**
 * Keys a client chooses (operation ids, variant maps, coercions) are read and kept as the client's
 * own keys: a name that is also an Object.prototype property ("constructor", "__proto__") is an
 * ordinary key, never an inherited value, and never dropped on the way in.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool } from "../../fixtures/invoice-tools.js";
import { type TestTenant, answer, call, invalidAnswer, newTenant } from "../helpers.js";
import { counterTool, createSimulation, dispatchJson, libraryTool, readAttempt } from "../simulation-helpers.js";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

describe("a simulation's variants map", () => {
  const getInvoice = invoiceTool.operations[0]!;
  const spec = {
    ...invoiceTool,
    name: "prototype_names",
    operations: [
      { ...getInvoice, operation_id: "constructor" },
      { ...getInvoice, operation_id: "other" },
    ],
  };

  it("does not read an operation called constructor from Object.prototype", async () => {
    const tool = await libraryTool(tenant, spec, { constructor: getInvoiceDefinition, other: getInvoiceDefinition });
    const hashOf = (id: string) => tool.operations.find((op) => op.operation_id === id)?.contract_hash;
    const response = await call("POST", "/api/simulations", {
      key: tenant.key,
      body: { tools: [{ tool_id: tool.id, variants: { other: "success" } }] },
    });
    // SAFETY: the documented simulation answer, or an error body the assertion below shows whole.
    const body = (await response.json()) as { pinned?: unknown };
    expect({ status: response.status, pinned: body.pinned ?? body }).toEqual({
      status: 201,
      pinned: [
        {
          tool_id: tool.id,
          tool_name: "prototype_names",
          operation_id: "constructor",
          tool: "prototype_names__constructor",
          revision: 1,
          contract_hash: hashOf("constructor"),
          variant: "success",
        },
        {
          tool_id: tool.id,
          tool_name: "prototype_names",
          operation_id: "other",
          tool: "prototype_names__other",
          revision: 1,
          contract_hash: hashOf("other"),
          variant: "success",
        },
      ],
    });
  });

  it('keeps a "__proto__" key, so it is refused as naming no operation instead of silently ignored', async () => {
    const tool = await libraryTool(
      tenant,
      { ...spec, name: "prototype_names_2" },
      { constructor: getInvoiceDefinition, other: getInvoiceDefinition },
    );
    const response = await call("POST", "/api/simulations", {
      key: tenant.key,
      body: `{"tools":[{"tool_id":${JSON.stringify(tool.id)},"variants":{"__proto__":"success"}}]}`,
      headers: { "content-type": "application/json" },
    });
    expect(await answer(response)).toEqual(
      invalidAnswer({ path: "/tools/0/variants/__proto__", message: 'this entry pins no operation "__proto__"' }),
    );
  });

  it('checks the value under a "__proto__" key like any other', async () => {
    const response = await call("POST", "/api/simulations", {
      key: tenant.key,
      body: '{"tools":[{"tool_id":"tool_x","variants":{"__proto__":"not a name"}}]}',
      headers: { "content-type": "application/json" },
    });
    expect(await answer(response)).toEqual(
      invalidAnswer({
        path: "/tools/0/variants/__proto__",
        message: "expected a variant name (1 to 64 letters, digits, '_', '.' or '-')",
      }),
    );
  });
});

describe("a platform import's coerce map", () => {
  it('applies a coercion declared for a parameter called "__proto__"', async () => {
    const body = {
      name: "proto_coerce",
      description: "Platform adapter",
      operations: [
        {
          operation_id: "get_contact",
          description: "Read one contact",
          parameters: [{ name: "__proto__", type: "string" }],
          response: { schema: { type: "object" } },
        },
      ],
    };
    const text = JSON.stringify(body).replace(
      '"name":"proto_coerce",',
      '"name":"proto_coerce","coerce":{"__proto__":"object"},',
    );
    const response = await call("POST", "/api/tools/import/platform", {
      key: tenant.key,
      body: text,
      headers: { "content-type": "application/json" },
    });
    // SAFETY: the documented Tool answer, or an error body the assertion below shows whole.
    const tool = (await response.json()) as { operations?: Array<{ input_schema: unknown }>; source?: unknown };
    expect({
      status: response.status,
      input: tool.operations?.[0]?.input_schema ?? tool,
      source: JSON.stringify(tool.source),
    }).toEqual({
      status: 201,
      input: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object"}},"additionalProperties":false}'),
      source:
        '{"format":"platform","coerce":{"sfdc_field_mapping":"object","async_options":"string","__proto__":"object"}}',
    });
  });

  it('checks the value under a "__proto__" key like any other', async () => {
    const text =
      '{"name":"proto_coerce_bad","description":"d","coerce":{"__proto__":"number"},"operations":[{"operation_id":"a","description":"d","parameters":[]}]}';
    const response = await call("POST", "/api/tools/import/platform", {
      key: tenant.key,
      body: text,
      headers: { "content-type": "application/json" },
    });
    expect(await answer(response)).toEqual(
      invalidAnswer({ path: "/coerce/__proto__", message: 'Invalid option: expected one of "object"|"string"' }),
    );
  });
});

describe("an attempt's state, keyed by tool name", () => {
  it('keeps the state of a tool called "__proto__" as a property of the answer', async () => {
    const simulation = await createSimulation(tenant, { tools: [{ inline: { ...counterTool, name: "__proto__" } }] });
    const attempt = simulation.attempts[0]!;
    const dispatched = await dispatchJson(attempt, { tool: "__proto__", call_id: "c1", arguments: { n: 7 } });
    const read = await readAttempt(attempt);
    expect({ dispatched, state: JSON.stringify(read.body.state ?? read.body) }).toEqual({
      dispatched: { status: 200, body: { previous: 0 } },
      state: '{"__proto__":{"last":7}}',
    });
  });
});
