/**
 * Drafts from instructions: the model proposes, checkDefinition decides, and an answer that is not
 * a definition says so. The model is scripted in memory here; the route's test
 * (test/worker/tools/tool-testing.generate.test.ts) goes through the openai client and the local model server.
 */
import { describe, expect, it } from "vitest";
import {
  checkDefinition,
  DRAFT_PROMPT_VERSION,
  DRAFT_RESPONSE_FORMAT,
  draftFromInstructions,
  draftMessages,
  type ModelDraftResult,
  OPERATORS,
  parseDraftAnswer,
} from "../../../src/core/contract/index.js";
import type { OperationContract } from "../../../src/core/contract/types.js";
import type { JsonObject } from "../../../src/core/json.js";
import { answer, failed, scriptedModel, UNAUTHORIZED } from "../evals/scripted.js";
import { validator } from "./helpers.js";

const CONTRACT: OperationContract = {
  tool: "tool_invoices",
  operation: "get_invoice",
  description: "Return the supplier, amount and status of one invoice.",
  input_schema: {
    type: "object",
    required: ["invoice_id"],
    properties: { invoice_id: { type: "string" } },
    additionalProperties: false,
  },
  output_schema: {
    type: "object",
    required: ["status"],
    properties: {
      invoice_id: { type: "string" },
      supplier: { type: "string" },
      amount: { type: "number" },
      status: { type: "string" },
      error: { type: "string" },
    },
  },
};
const INSTRUCTIONS =
  "INV-10431 from Contoso Freight, 1250 EUR, approved. Any other invoice is not found. Add an outage variant.";

const DRAFT: JsonObject = {
  schema_version: 1,
  default_variant: "success",
  variants: {
    success: {
      result: { invoice_id: { $input: "invoice_id" }, supplier: "Contoso Freight", amount: 1250, status: "approved" },
      rules: [
        {
          when: [{ source: "input", path: "invoice_id", op: "ne", value: "INV-10431" }],
          result: { status: "not_found", error: "no such invoice" },
        },
      ],
    },
    outage: { result: { status: "unavailable", error: "finance system down" }, delay_ms: 2000 },
  },
  examples: [
    {
      variant: "success",
      input: { invoice_id: "INV-10431" },
      expected: { invoice_id: "INV-10431", supplier: "Contoso Freight", amount: 1250, status: "approved" },
    },
    { variant: "success", input: { invoice_id: "INV-1" }, expected: { status: "not_found", error: "no such invoice" } },
    {
      variant: "outage",
      input: { invoice_id: "INV-10431" },
      expected: { status: "unavailable", error: "finance system down" },
    },
  ],
};

async function draft(content: string | null, structured_output = true) {
  const model = scriptedModel([answer(content)]);
  const result = await draftFromInstructions({
    client: model.client,
    contract: CONTRACT,
    instructions: INSTRUCTIONS,
    structured_output,
    validator,
  });
  return { result, requests: model.requests };
}

describe("draftFromInstructions", () => {
  it("checks the model's definition with the same checker and returns it with its valid report", async () => {
    const { result, requests } = await draft(JSON.stringify(DRAFT));
    expect(result).toEqual<ModelDraftResult>({
      kind: "draft",
      definition: DRAFT,
      report: await checkDefinition(CONTRACT, DRAFT, validator),
      prompt_version: DRAFT_PROMPT_VERSION,
    });
    expect(result.kind === "draft" && result.report.valid).toBe(true);
    expect(requests).toEqual([
      { messages: draftMessages(CONTRACT, INSTRUCTIONS), response_format: DRAFT_RESPONSE_FORMAT },
    ]);
  });

  it("returns a draft that fails its check with the failing report, for the author to fix", async () => {
    const wrong = structuredClone(DRAFT);
    const examples = wrong.examples as JsonObject[];
    examples[1]!.expected = { status: "missing" };
    const { result } = await draft(JSON.stringify(wrong));
    const report = await checkDefinition(CONTRACT, wrong, validator);
    expect(result).toEqual<ModelDraftResult>({
      kind: "draft",
      definition: wrong,
      report,
      prompt_version: DRAFT_PROMPT_VERSION,
    });
    expect([report.valid, report.examples.map((e) => e.passed)]).toEqual([false, [true, false, true]]);
  });

  it("sends no response_format when the connection has no structured output, and reads a fenced answer", async () => {
    const { result, requests } = await draft(`\`\`\`json\n${JSON.stringify(DRAFT, null, 2)}\n\`\`\``, false);
    expect(result.kind === "draft" && result.report.valid).toBe(true);
    expect(requests).toEqual([{ messages: draftMessages(CONTRACT, INSTRUCTIONS) }]);
  });

  it.each<[string, string | null, string]>([
    ["prose", "Here is a mock for get_invoice: success and outage.", "the model's answer is not JSON"],
    ["an array", "[1, 2]", "the model's answer is JSON but not an object"],
    ["nothing", null, "the model gave no answer"],
    ["blank text", "  \n", "the model gave no answer"],
  ])("says what is wrong with an answer that is %s, keeping it word for word", async (_, content, problem) => {
    const { result } = await draft(content);
    expect(result).toEqual<ModelDraftResult>({
      kind: "unusable_answer",
      problem,
      raw_answer: content,
      prompt_version: DRAFT_PROMPT_VERSION,
    });
  });

  it("says when the answer was cut off at the endpoint's length limit", async () => {
    const cut = JSON.stringify(DRAFT).slice(0, 120);
    const model = scriptedModel([
      { ok: true, answer: { content: cut, tool_calls: [], finish_reason: "length", usage: null, latency_ms: 900 } },
    ]);
    const result = await draftFromInstructions({
      client: model.client,
      contract: CONTRACT,
      instructions: INSTRUCTIONS,
      structured_output: true,
      validator,
    });
    expect(result).toEqual<ModelDraftResult>({
      kind: "unusable_answer",
      problem: "the model's answer is not JSON (the answer was cut off at the endpoint's length limit)",
      raw_answer: cut,
      prompt_version: DRAFT_PROMPT_VERSION,
    });
  });

  it("reports an endpoint failure as it came", async () => {
    const model = scriptedModel([failed(UNAUTHORIZED)]);
    const result = await draftFromInstructions({
      client: model.client,
      contract: CONTRACT,
      instructions: INSTRUCTIONS,
      structured_output: true,
      validator,
    });
    expect(result).toEqual<ModelDraftResult>({ kind: "model_failure", failure: UNAUTHORIZED });
  });
});

describe("the draft prompt", () => {
  it("passes the contract and the instructions as one JSON document", () => {
    const [system, user] = draftMessages(CONTRACT, INSTRUCTIONS);
    expect(system?.role).toBe("system");
    expect(user?.role === "user" && JSON.parse(user.content)).toEqual({
      contract: {
        tool: CONTRACT.tool,
        operation: CONTRACT.operation,
        description: CONTRACT.description,
        input_schema: CONTRACT.input_schema,
        output_schema: CONTRACT.output_schema,
      },
      instructions: INSTRUCTIONS,
    });
  });

  it("states every expression operator the engine has, and the limits the parser enforces", () => {
    const [system] = draftMessages(CONTRACT, INSTRUCTIONS);
    const text = system?.role === "system" ? system.content : "";
    for (const operator of OPERATORS) expect(text).toContain(`{"${operator}":`);
    for (const limit of [
      "1 to 30 variants",
      "1 to 100 examples",
      "integer 0..30000",
      "(1 to 20)",
      "(at most 100)",
      "integer -3660..3660",
      "integer -24..24",
    ])
      expect(text).toContain(limit);
  });

  it("has a response schema that is a usable JSON Schema, accepts a checked definition and refuses a misspelled key", () => {
    expect(validator.checkSchema(DRAFT_RESPONSE_FORMAT.schema)).toEqual([]);
    expect(validator.validate(DRAFT_RESPONSE_FORMAT.schema, DRAFT)).toEqual([]);
    const typo = { ...DRAFT, variants: { success: { reslt: 1 } } };
    expect(validator.validate(DRAFT_RESPONSE_FORMAT.schema, typo).length).toBeGreaterThan(0);
  });
});

describe("parseDraftAnswer", () => {
  it("reads a bare object, trimmed", () => {
    expect(parseDraftAnswer(`  ${JSON.stringify(DRAFT)}\n`)).toEqual({ ok: true, definition: DRAFT });
  });
  it("does not dig JSON out of prose", () => {
    expect(parseDraftAnswer(`Sure! ${JSON.stringify(DRAFT)}`)).toEqual({
      ok: false,
      problem: "the model's answer is not JSON",
    });
  });
});
