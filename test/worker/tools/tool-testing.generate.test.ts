/**
 * Drafts from instructions (seed 003) through the real app in workerd: the named connection is
 * opened, the openai client asks the local model server, and the same checker that guards saves
 * decides; the draft comes back with its report and is never stored.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { checkDefinition, DRAFT_RESPONSE_FORMAT, draftMessages } from "../../../src/core/contract/index.js";
import type { OperationContract } from "../../../src/core/contract/types.js";
import type { JsonObject } from "../../../src/core/json.js";
import { invoiceSchema, invoiceTool } from "../../fixtures/invoice-tools.js";
import { modelServer, uniqueModel } from "../../support/model-server/in-tests.js";
import { type TestTenant, answer, call, invalidAnswer, newTenant } from "../helpers.js";

const server = modelServer();
const validator = createRuntimeValidator();
const INSTRUCTIONS = "INV-10431 from Contoso Freight, 1250 EUR, approved. Add an on_hold variant for the same invoice.";

let tenant: TestTenant;
let toolId: string;
let hash: string;
let contract: OperationContract;

beforeAll(async () => {
  tenant = await newTenant();
  const response = await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, name: "drafted" } });
  // SAFETY: documented answer shape.
  const tool = (await response.json()) as { id: string; operations: Array<{ contract_hash: string }> };
  toolId = tool.id;
  hash = tool.operations[0]!.contract_hash;
  const op = invoiceTool.operations[0]!;
  contract = {
    tool: toolId,
    operation: "get_invoice",
    description: op.description,
    input_schema: op.input_schema,
    output_schema: op.output_schema,
  };
});

const invoice = (status: string) => ({ invoice_id: "INV-10431", supplier: "Contoso Freight", amount: 1250, status });
const DRAFT: JsonObject = {
  schema_version: 1,
  default_variant: "success",
  variants: {
    success: {
      result: { invoice_id: { $input: "invoice_id" }, supplier: "Contoso Freight", amount: 1250, status: "approved" },
    },
    on_hold: {
      result: { invoice_id: { $input: "invoice_id" }, supplier: "Contoso Freight", amount: 1250, status: "on_hold" },
    },
  },
  examples: [
    { variant: "success", input: { invoice_id: "INV-10431" }, expected: invoice("approved") },
    { variant: "on_hold", input: { invoice_id: "INV-10431" }, expected: invoice("on_hold") },
  ],
};

/** A connection to a fresh scripted model on the local server; structured-output requests are answered from `judge_default`. */
async function connection(
  name: string,
  script: Record<string, unknown>,
  settings: Record<string, unknown> = {},
): Promise<string> {
  const model = uniqueModel(name);
  await server.script(model, { api_key: "sk-draft-0001", ...script });
  const put = await call("PUT", `/api/connections/${name}`, {
    key: tenant.key,
    body: { base_url: server.openaiBaseUrl, model, api_key: "sk-draft-0001", max_retries: 0, ...settings },
  });
  expect(put.status).toBe(201);
  return model;
}

const generate = (body: Record<string, unknown>) =>
  call("POST", `/api/tools/${toolId}/testing`, {
    key: tenant.key,
    body: { action: "generate", operation_id: "get_invoice", ...body },
  });

describe("POST /api/tools/:id/testing, generate with instructions and a connection", () => {
  it("drafts with structured output, checks the draft with the same checker and returns it with its report, without saving it", async () => {
    const model = await connection("drafter", { judge_default: [JSON.stringify(DRAFT)] });
    expect(await answer(await generate({ instructions: INSTRUCTIONS, connection: "drafter" }))).toEqual({
      status: 200,
      body: {
        operation_id: "get_invoice",
        contract_hash: hash,
        definition: DRAFT,
        report: {
          valid: true,
          errors: [],
          examples: [
            { index: 0, variant: "success", passed: true },
            { index: 1, variant: "on_hold", passed: true },
          ],
          contract_hash: hash,
        },
        drafted_by: { connection: "drafter", model, prompt_version: "mock-draft/1" },
      },
    });
    // One request: the contract and the instructions, the definition's schema as the response format.
    const log = await server.log(model);
    expect(log.map((r) => [r.kind, r.messages, r.response_format, r.tools, r.temperature])).toEqual([
      [
        "judge",
        draftMessages(contract, INSTRUCTIONS),
        {
          type: "json_schema",
          json_schema: { name: "mock_definition", schema: DRAFT_RESPONSE_FORMAT.schema, strict: false },
        },
        null,
        null,
      ],
    ]);
    // Nothing was stored: the operation still has no revision, and the draft saves only through save.
    const view = (await (await call("GET", `/api/tools/${toolId}/testing`, { key: tenant.key })).json()) as {
      operations: Array<{ latest_revision: unknown }>;
    };
    expect(view.operations[0]!.latest_revision).toBeNull();
    const saved = await call("POST", `/api/tools/${toolId}/testing`, {
      key: tenant.key,
      body: { action: "save", operation_id: "get_invoice", contract_hash: hash, definition: DRAFT },
    });
    expect(saved.status).toBe(201);
  });

  it("returns a draft that fails its check with the failing report", async () => {
    const wrong = structuredClone(DRAFT);
    (wrong.examples as JsonObject[])[1]!.expected = invoice("held");
    await connection("drafter-wrong", { judge_default: [JSON.stringify(wrong)] });
    const report = await checkDefinition(contract, wrong, validator);
    expect([report.valid, report.examples.map((e) => e.passed)]).toEqual([false, [true, false]]);
    expect(await answer(await generate({ instructions: INSTRUCTIONS, connection: "drafter-wrong" }))).toEqual({
      status: 200,
      body: {
        operation_id: "get_invoice",
        contract_hash: hash,
        definition: wrong,
        report,
        drafted_by: { connection: "drafter-wrong", model: expect.any(String), prompt_version: "mock-draft/1" },
      },
    });
  });

  it("asks without a response format when the connection has no structured output, and reads a fenced answer", async () => {
    const model = await connection(
      "drafter-plain",
      { default: [{ content: `\`\`\`json\n${JSON.stringify(DRAFT, null, 2)}\n\`\`\`` }] },
      { structured_output: false },
    );
    const response = await answer(await generate({ instructions: INSTRUCTIONS, connection: "drafter-plain" }));
    expect([response.status, (response.body as { definition: unknown }).definition]).toEqual([200, DRAFT]);
    expect((await server.log(model)).map((r) => [r.kind, r.response_format])).toEqual([["chat", null]]);
  });

  it("answers 502 unusable_model_answer with the model's words when the answer is not a definition", async () => {
    const model = await connection("drafter-prose", { judge_default: ["Sure! Here is a mock with two variants."] });
    expect(await answer(await generate({ instructions: INSTRUCTIONS, connection: "drafter-prose" }))).toEqual({
      status: 502,
      body: {
        error: {
          code: "unusable_model_answer",
          message: `the model of connection "drafter-prose" did not answer with a definition: the model's answer is not JSON`,
          details: {
            connection: "drafter-prose",
            model,
            problem: "the model's answer is not JSON",
            raw_answer: "Sure! Here is a mock with two variants.",
            prompt_version: "mock-draft/1",
          },
        },
      },
    });
  });

  it("answers 502 model_unavailable naming the connection and what the endpoint said", async () => {
    const model = uniqueModel("drafter-401");
    await server.script(model, { api_key: "sk-the-right-key", judge_default: [JSON.stringify(DRAFT)] });
    await call("PUT", "/api/connections/drafter-401", {
      key: tenant.key,
      body: { base_url: server.openaiBaseUrl, model, api_key: "sk-a-wrong-key", max_retries: 0 },
    });
    expect(await answer(await generate({ instructions: INSTRUCTIONS, connection: "drafter-401" }))).toEqual({
      status: 502,
      body: {
        error: {
          code: "model_unavailable",
          message:
            'connection "drafter-401": the endpoint refused the API key (401): Incorrect API key provided: sk-****-key.',
          details: { connection: "drafter-401", kind: "unauthorized", status: 401 },
        },
      },
    });
  });

  it("answers 422 model_connection_required naming /connection for a connection that does not exist", async () => {
    const message = 'there is no model connection "nobody": create it with PUT /api/connections/nobody';
    expect(await answer(await generate({ instructions: INSTRUCTIONS, connection: "nobody" }))).toEqual({
      status: 422,
      body: {
        error: {
          code: "model_connection_required",
          message,
          details: { problems: [{ path: "/connection", message }] },
        },
      },
    });
  });

  it("keeps instructions without a connection a clear error naming connection, and refuses a connection without instructions", async () => {
    expect(await answer(await generate({ instructions: INSTRUCTIONS }))).toEqual({
      status: 422,
      body: {
        error: {
          code: "model_connection_required",
          message:
            "instructions are turned into a draft by a model: name one of your model connections in connection (PUT /api/connections/:name), or leave out instructions for the schema-derived draft",
          details: { problems: [{ path: "/connection", message: "required with instructions" }] },
        },
      },
    });
    expect(await answer(await generate({ connection: "drafter" }))).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message:
            "connection is only used to draft from instructions; send instructions too, or leave connection out for the schema-derived draft",
          details: { problems: [{ path: "/connection", message: "only allowed together with instructions" }] },
        },
      },
    });
  });

  it("refuses a malformed connection name and empty instructions, naming the fields", async () => {
    expect(await answer(await generate({ instructions: INSTRUCTIONS, connection: "no spaces" }))).toEqual(
      invalidAnswer({
        path: "/connection",
        message:
          "expected a connection name: expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit",
      }),
    );
    expect(await answer(await generate({ instructions: "", connection: "drafter" }))).toEqual(
      invalidAnswer({ path: "/instructions", message: "expected at least 1 character" }),
    );
  });

  it("still answers the schema-derived draft without instructions", async () => {
    const response = await answer(await generate({}));
    expect([response.status, (response.body as { report: { valid: boolean } }).report.valid]).toEqual([200, true]);
  });
});

describe("POST /api/tools/testing (inline), generate with instructions and a connection", () => {
  it("drafts, checks and returns the draft with its report", async () => {
    const model = await connection("inline-drafter", { judge_default: [JSON.stringify(DRAFT)] });
    const op = invoiceTool.operations[0]!;
    const inline = {
      name: "invoices",
      operation_id: "get_invoice",
      description: op.description,
      input_schema: op.input_schema,
      output_schema: invoiceSchema,
    };
    const inlineContract: OperationContract = {
      tool: "invoices",
      operation: "get_invoice",
      description: op.description,
      input_schema: op.input_schema,
      output_schema: invoiceSchema,
    };
    const response = await call("POST", "/api/tools/testing", {
      key: tenant.key,
      body: { action: "generate", ...inline, instructions: INSTRUCTIONS, connection: "inline-drafter" },
    });
    expect(await answer(response)).toEqual({
      status: 200,
      body: {
        definition: DRAFT,
        report: await checkDefinition(inlineContract, DRAFT, validator),
        drafted_by: { connection: "inline-drafter", model, prompt_version: "mock-draft/1" },
      },
    });
    expect((await server.log(model)).map((r) => r.messages)).toEqual([draftMessages(inlineContract, INSTRUCTIONS)]);
  });
});
