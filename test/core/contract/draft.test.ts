import { describe, expect, it } from "vitest";
import { checkDefinition, contractHash, generateDraft } from "../../../src/core/contract/index.js";
import type { JsonValue } from "../../../src/core/json.js";
import type { JsonSchema } from "../../../src/core/ports.js";
import { contract, validator } from "./helpers.js";

const anyInput: JsonSchema = { type: "object" };

async function draftOf(output: JsonSchema, input: JsonSchema = anyInput) {
  return generateDraft(contract(input, output), validator);
}

/** The draft generateDraft must answer for these derived values, with its (re-computed) report. */
async function expectedDraft(output: JsonSchema, input: JsonSchema, result: JsonValue, args: JsonValue) {
  const definition = {
    schema_version: 1 as const,
    default_variant: "success",
    variants: { success: { result } },
    examples: [{ variant: "success", input: args, expected: result }],
  };
  const hash = await contractHash(contract(input, output));
  return {
    ok: true,
    definition,
    report: {
      valid: true,
      errors: [],
      examples: [{ index: 0, variant: "success", passed: true }],
      contract_hash: hash,
    },
  };
}

describe("generateDraft derives", () => {
  it.each<[string, JsonSchema, JsonValue]>([
    [
      "formats",
      {
        type: "object",
        required: ["at", "day", "email", "site", "id", "host"],
        properties: {
          at: { type: "string", format: "date-time" },
          day: { type: "string", format: "date" },
          email: { type: "string", format: "email" },
          site: { type: "string", format: "uri" },
          id: { type: "string", format: "uuid" },
          host: { type: "string", format: "hostname" },
        },
      },
      {
        at: "2025-01-15T09:30:00.000Z",
        day: "2025-01-15",
        email: "user@example.com",
        site: "https://example.com/",
        id: "00000000-0000-4000-8000-000000000000",
        host: "example.com",
      },
    ],
    [
      "examples, default, const and enum, in that order",
      {
        type: "object",
        required: ["a", "b", "c", "d", "e"],
        properties: {
          a: { type: "string", examples: ["from examples"], default: "from default" },
          b: { type: "integer", default: 42, enum: [1, 42] },
          c: { const: "fixed" },
          d: { type: "string", enum: ["booked", "cancelled"] },
          e: { type: "string", pattern: "^[A-Z]{3}$", examples: ["ABC"] },
        },
      },
      { a: "from examples", b: 42, c: "fixed", d: "booked", e: "ABC" },
    ],
    [
      "nested required objects, leaving optional properties out",
      {
        type: "object",
        required: ["status", "data"],
        properties: {
          status: { type: "integer", const: 200 },
          optional: { type: "string" },
          data: {
            type: "object",
            required: ["patient", "records"],
            properties: {
              patient: {
                type: "object",
                required: ["id", "active"],
                properties: { id: { type: "string" }, active: { type: "boolean" }, note: { type: "string" } },
              },
              records: {
                type: "array",
                items: { type: "object", required: ["n"], properties: { n: { type: "number" } } },
              },
            },
          },
        },
      },
      { status: 200, data: { patient: { id: "example", active: true }, records: [{ n: 0 }] } },
    ],
    [
      "simple bounds",
      {
        type: "object",
        required: ["code", "short", "count", "price", "ratio", "steps", "tags", "none", "maybe"],
        properties: {
          code: { type: "string", minLength: 10 },
          short: { type: "string", maxLength: 3 },
          count: { type: "integer", minimum: 3 },
          price: { type: "number", exclusiveMinimum: 0, maximum: 0.5 },
          ratio: { type: "integer", exclusiveMinimum: 4.5 },
          steps: { type: "integer", minimum: 1, multipleOf: 5 },
          tags: { type: "array", minItems: 2, items: { type: "string" } },
          none: { type: "null" },
          maybe: { type: ["null", "string"] },
        },
      },
      {
        code: "examplexxx",
        short: "exa",
        count: 3,
        price: 0.5,
        ratio: 5,
        steps: 5,
        tags: ["example", "example"],
        none: null,
        maybe: "example",
      },
    ],
    [
      "references, allOf and anyOf",
      {
        type: "object",
        required: ["patient", "merged", "choice"],
        properties: {
          patient: { $ref: "#/$defs/Patient" },
          merged: {
            allOf: [
              { type: "object", required: ["a"], properties: { a: { type: "string" } } },
              { required: ["b"], properties: { b: { type: "integer" } } },
            ],
          },
          choice: {
            anyOf: [
              { type: "string", pattern: "^x$" },
              { type: "integer", minimum: 7 },
            ],
          },
        },
        $defs: {
          Patient: { type: "object", required: ["id"], properties: { id: { type: "string", format: "uuid" } } },
        },
      },
      { patient: { id: "00000000-0000-4000-8000-000000000000" }, merged: { a: "example", b: 0 }, choice: 7 },
    ],
    ["an unconstrained result as an empty object", true, {}],
    ["a scalar result", { type: "string", format: "date" }, "2025-01-15"],
  ])("%s", async (_name, output, result) => {
    expect(await draftOf(output)).toEqual(await expectedDraft(output, anyInput, result, {}));
  });

  it("the example input from the input schema", async () => {
    const input: JsonSchema = {
      type: "object",
      required: ["patient_id", "from_date", "channel"],
      properties: {
        patient_id: { type: "string", minLength: 1 },
        from_date: { type: "string", format: "date" },
        channel: { enum: ["web", "phone"] },
        note: { type: "string" },
      },
      additionalProperties: false,
    };
    const output: JsonSchema = { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } };
    expect(await draftOf(output, input)).toEqual(
      await expectedDraft(
        output,
        input,
        { ok: true },
        { patient_id: "example", from_date: "2025-01-15", channel: "web" },
      ),
    );
  });

  it("a draft that checks again unchanged", async () => {
    const output: JsonSchema = {
      type: "object",
      required: ["at"],
      properties: { at: { type: "string", format: "date-time" } },
    };
    const draft = await draftOf(output);
    if (!draft.ok) throw new Error(draft.message);
    expect(
      await checkDefinition(contract(anyInput, output), JSON.parse(JSON.stringify(draft.definition)), validator),
    ).toEqual(draft.report);
  });
});

describe("generateDraft names what it cannot derive", () => {
  it.each<
    [string, JsonSchema, JsonSchema, { construct: string; schema: "input_schema" | "output_schema"; message: string }]
  >([
    [
      "a pattern",
      { type: "object", required: ["code"], properties: { code: { type: "string", pattern: "^[A-Z]{3}-[0-9]+$" } } },
      anyInput,
      {
        construct: "/properties/code/pattern",
        schema: "output_schema",
        message:
          'output schema: a string matching the pattern "^[A-Z]{3}-[0-9]+$" cannot be derived automatically; author the mock, or give the schema examples, a default, a const or an enum',
      },
    ],
    [
      "not",
      { type: "object", required: ["x"], properties: { x: { type: "string", not: { const: "" } } } },
      anyInput,
      {
        construct: "/properties/x/not",
        schema: "output_schema",
        message:
          'output schema: a value satisfying "not" cannot be derived automatically; author the mock, or give the schema examples, a default, a const or an enum',
      },
    ],
    [
      "if/then",
      { type: "object", if: { required: ["a"] }, then: { required: ["b"] } },
      anyInput,
      {
        construct: "/if",
        schema: "output_schema",
        message:
          'output schema: a value satisfying "if" cannot be derived automatically; author the mock, or give the schema examples, a default, a const or an enum',
      },
    ],
    [
      "a pattern in the input schema",
      { type: "object" },
      { type: "object", required: ["id"], properties: { id: { type: "string", pattern: "^P-" } } },
      {
        construct: "/properties/id/pattern",
        schema: "input_schema",
        message:
          'input schema: a string matching the pattern "^P-" cannot be derived automatically; author the mock, or give the schema examples, a default, a const or an enum',
      },
    ],
    [
      "an input schema that is not an object",
      { type: "object" },
      { type: "string" },
      {
        construct: "",
        schema: "input_schema",
        message: "input schema: tool arguments must be a JSON object, and this schema does not describe one",
      },
    ],
    [
      "a remote reference",
      { type: "object", required: ["x"], properties: { x: { $ref: "https://example.com/x.json" } } },
      anyInput,
      {
        construct: "/properties/x/$ref",
        schema: "output_schema",
        message:
          'output schema: only local references ("#/...") that resolve can be followed; got "https://example.com/x.json"',
      },
    ],
    [
      "distinct items",
      {
        type: "object",
        required: ["tags"],
        properties: { tags: { type: "array", minItems: 2, uniqueItems: true, items: { type: "string" } } },
      },
      anyInput,
      {
        construct: "/properties/tags/uniqueItems",
        schema: "output_schema",
        message: "output schema: 2 distinct items cannot be derived automatically",
      },
    ],
    [
      "the false schema",
      false,
      anyInput,
      { construct: "", schema: "output_schema", message: "output schema: the schema `false` accepts no value" },
    ],
  ])("%s", async (_name, output, input, expected) => {
    expect(await draftOf(output, input)).toEqual({ ok: false, ...expected });
  });

  it("a derived value that the schema still refuses, located at the subschema that produced it", async () => {
    const output: JsonSchema = {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string", minLength: 5, maxLength: 3 } },
    };
    const draft = await draftOf(output);
    expect(draft.ok).toBe(false);
    if (draft.ok) return;
    expect({ construct: draft.construct, schema: draft.schema }).toEqual({
      construct: "/properties/name",
      schema: "output_schema",
    });
    expect(draft.message.startsWith("output schema: the derived result does not validate: ")).toBe(true);
  });

  it("a result that would read as an expression", async () => {
    const output: JsonSchema = {
      type: "object",
      required: ["wrapper"],
      properties: { wrapper: { type: "object", required: ["$input"], properties: { $input: { type: "string" } } } },
    };
    expect(await draftOf(output)).toEqual({
      ok: false,
      construct: "/properties/wrapper",
      schema: "output_schema",
      message:
        "output schema: the derived result holds an object whose only key is an expression operator ($input, $state, $number, $dateAdd); author the mock",
    });
  });
});

describe("generateDraft leaves keywords that a minimal value satisfies to validation", () => {
  it("derives despite patternProperties, propertyNames and unevaluatedProperties", async () => {
    const output: JsonSchema = {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string" } },
      patternProperties: { "^x-": { type: "string" } },
      propertyNames: { maxLength: 10 },
      unevaluatedProperties: false,
    };
    expect(await draftOf(output)).toEqual(await expectedDraft(output, anyInput, { id: "example" }, {}));
  });

  it("and names the subschema when the value still fails them", async () => {
    const output: JsonSchema = {
      type: "object",
      required: ["identifier"],
      properties: { identifier: { type: "string" } },
      propertyNames: { maxLength: 3 },
    };
    const draft = await draftOf(output);
    expect(draft.ok === false && { construct: draft.construct, schema: draft.schema }).toEqual({
      construct: "",
      schema: "output_schema",
    });
  });
});
