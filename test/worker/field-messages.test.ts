/**
 * What a refused field's message says: a missing required schema is "required", a schema of the
 * wrong type says what a schema is, and unknown fields in every body name the field probably meant.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool } from "../fixtures/invoice-tools.js";
import { type TestTenant, answer, call, invalidAnswer, newTenant } from "./helpers.js";
import { counterTool, createSimulation } from "./simulation-helpers.js";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

const NOT_A_SCHEMA = "expected a JSON Schema (an object or a boolean)";
const getInvoice = invoiceTool.operations[0]!;
const inline = {
  name: "get_invoice",
  description: "Read one invoice",
  input_schema: getInvoice.input_schema,
  output_schema: getInvoice.output_schema,
};

describe("a required schema field that is missing says it is required", () => {
  it.each<[string, string, string, unknown, string]>([
    [
      "a tool's input_schema",
      "POST",
      "/api/tools",
      { ...invoiceTool, name: "no_input", operations: [{ ...getInvoice, input_schema: undefined }] },
      "/operations/0/input_schema",
    ],
    [
      "an inline check's input_schema",
      "POST",
      "/api/tools/testing",
      { action: "check", ...inline, input_schema: undefined, testing: getInvoiceDefinition },
      "/input_schema",
    ],
    [
      "an inline check's output_schema",
      "POST",
      "/api/tools/testing",
      { action: "check", ...inline, output_schema: undefined, testing: getInvoiceDefinition },
      "/output_schema",
    ],
    [
      "a simulation's inline input_schema",
      "POST",
      "/api/simulations",
      { tools: [{ inline: { ...counterTool, input_schema: undefined } }] },
      "/tools/0/inline/input_schema",
    ],
    [
      "a simulation's inline output_schema",
      "POST",
      "/api/simulations",
      { tools: [{ inline: { ...counterTool, output_schema: undefined } }] },
      "/tools/0/inline/output_schema",
    ],
    [
      "a platform response's schema",
      "POST",
      "/api/tools/import/platform",
      {
        name: "no_response_schema",
        description: "d",
        operations: [{ operation_id: "a", description: "d", parameters: [], response: { status: 200 } }],
      },
      "/operations/0/response/schema",
    ],
  ])("%s", async (_name, method, path, body, field) => {
    expect(await answer(await call(method, path, { key: tenant.key, body }))).toEqual(
      invalidAnswer({ path: field, message: "required" }),
    );
  });

  it("and one of the wrong type still says what a schema is", async () => {
    const body = { ...invoiceTool, name: "bad_input", operations: [{ ...getInvoice, input_schema: "object" }] };
    expect(await answer(await call("POST", "/api/tools", { key: tenant.key, body }))).toEqual(
      invalidAnswer({ path: "/operations/0/input_schema", message: NOT_A_SCHEMA }),
    );
  });
});

describe("an unknown field names the field probably meant, in every body", () => {
  it.each<[string, string, string, unknown, Array<{ path: string; message: string }>]>([
    [
      "a simulation",
      "POST",
      "/api/simulations",
      { tools: [{ inline: counterTool }], leases: 60 },
      [{ path: "/leases", message: 'unknown field "leases"; did you mean "lease_seconds"?' }],
    ],
    [
      "a simulation's library entry",
      "POST",
      "/api/simulations",
      { tools: [{ tool_id: "tool_x", operation: "get" }] },
      [{ path: "/tools/0/operation", message: 'unknown field "operation"; did you mean "operation_id"?' }],
    ],
    [
      "a simulation's inline tool",
      "POST",
      "/api/simulations",
      { tools: [{ inline: { ...counterTool, input_schema: undefined, inputSchema: counterTool.input_schema } }] },
      [
        { path: "/tools/0/inline/input_schema", message: "required" },
        { path: "/tools/0/inline/inputSchema", message: 'unknown field "inputSchema"; did you mean "input_schema"?' },
      ],
    ],
    [
      "an inline check",
      "POST",
      "/api/tools/testing",
      { action: "check", ...inline, tesing: getInvoiceDefinition },
      [
        { path: "/testing", message: "required" },
        { path: "/tesing", message: 'unknown field "tesing"; did you mean "testing"?' },
      ],
    ],
    [
      "a tool-permission metric",
      "POST",
      "/api/metrics/tool-permission",
      { tools_called: [], allowed_tool: ["a"] },
      [{ path: "/allowed_tool", message: 'unknown field "allowed_tool"; did you mean "allowed_tools"?' }],
    ],
    [
      "a tool-permission metric's call",
      "POST",
      "/api/metrics/tool-permission",
      { tools_called: [{ name: "a", inputs: {} }] },
      [{ path: "/tools_called/0/inputs", message: 'unknown field "inputs"; did you mean "input"?' }],
    ],
  ])("%s", async (_name, method, path, body, problems) => {
    expect(await answer(await call(method, path, { key: tenant.key, body }))).toEqual(invalidAnswer(...problems));
  });

  it("completing an attempt", async () => {
    const simulation = await createSimulation(tenant, { tools: [{ inline: counterTool }] });
    const attempt = simulation.attempts[0]!;
    const response = await call("POST", `/api/attempts/${attempt.id}/complete`, {
      key: attempt.token,
      body: { output: "done", transcripts: [] },
    });
    expect(await answer(response)).toEqual(
      invalidAnswer({ path: "/transcripts", message: 'unknown field "transcripts"; did you mean "transcript"?' }),
    );
  });

  it("a policy document", async () => {
    const response = await call("PUT", "/api/policies/hinted", {
      key: tenant.key,
      body: { tools: {}, denied_tool: [] },
    });
    expect(await answer(response)).toEqual(
      invalidAnswer({ path: "/denied_tool", message: 'unknown field "denied_tool"; did you mean "denied_tools"?' }),
    );
  });
});
