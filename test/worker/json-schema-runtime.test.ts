/**
 * The runtime validator inside workerd (these tests run in the Workers runtime itself, through
 * @cloudflare/vitest-plugin): its imports (JSON meta-schemas, @cfworker/json-schema) load there,
 * and preparing, checking and validating schemas works with eval and `new Function` taken away,
 * as they are in a deployed Worker's request.
 */
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../src/adapters/json-schema/runtime-validator.js";
import type { JsonSchema } from "../../src/core/ports.js";

const TOOL: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["to", "subject"],
  additionalProperties: false,
  properties: {
    to: { type: "array", minItems: 1, items: { type: "string", format: "email" } },
    subject: { type: "string", maxLength: 80 },
    sendAt: { type: "string", format: "date-time" },
    priority: { $ref: "#/$defs/priority" },
  },
  $defs: { priority: { enum: ["low", "normal", "high"] } },
};

describe("runtime validator in workerd", () => {
  it("prepares, checks and validates with eval and Function unavailable", () => {
    // The test pool itself allows code generation (deployed Workers do not), so take it away
    // here: any eval or `new Function` on these paths would throw.
    const realFunction = globalThis.Function;
    // biome-ignore lint/security/noGlobalEval: kept to put back after the test takes eval away
    const realEval = globalThis.eval;
    const refuse = () => {
      throw new EvalError("code generation from strings disallowed");
    };
    let results: unknown[];
    try {
      // SAFETY: a stand-in with the same call shapes, only for the duration of this block.
      globalThis.Function = refuse as unknown as FunctionConstructor;
      globalThis.eval = refuse;
      const validator = createRuntimeValidator();
      results = [
        validator.checkSchema(TOOL),
        validator.validate(TOOL, { subject: 3 }),
        validator.validate(TOOL, { to: ["a@b.co"], subject: "s" }),
      ];
    } finally {
      globalThis.Function = realFunction;
      globalThis.eval = realEval;
    }
    expect(results).toEqual([
      [],
      [
        { path: "", message: 'missing required property "to"' },
        { path: "/subject", message: "must be string, got number" },
      ],
      [],
    ]);
  });

  it("checks schemas against the official meta-schemas", () => {
    const validator = createRuntimeValidator();
    expect(validator.checkSchema(TOOL)).toEqual([]);
    expect(validator.checkSchema({ type: 12, properties: { a: { minimum: "x" } } })).toEqual([
      { path: "/properties/a/minimum", message: "must be number, got string" },
      {
        path: "/type",
        message:
          'must match at least one of the "anyOf" alternatives (must be one of ["array","boolean","integer","null","number","object","string"]; or must be array, got number)',
      },
    ]);
    expect(
      validator.checkSchema({ $schema: "http://json-schema.org/draft-07/schema#", items: { $ref: "#/definitions/x" } }),
    ).toEqual([
      {
        path: "/items/$ref",
        message: '$ref "#/definitions/x" cannot be resolved inside this document (remote schemas are not fetched)',
      },
    ]);
  });

  it("validates tool calls with useful problems", () => {
    const validator = createRuntimeValidator();
    expect(validator.validate(TOOL, { to: ["a@example.com"], subject: "hi", priority: "high" })).toEqual([]);
    expect(validator.validate(TOOL, { to: ["not-an-email"], subject: 1, priority: "urgent", cc: [] })).toEqual([
      { path: "/cc", message: 'property "cc" is not allowed' },
      { path: "/priority", message: 'must be one of ["low","normal","high"]' },
      { path: "/subject", message: "must be string, got number" },
      { path: "/to/0", message: 'must be a valid "email" string' },
    ]);
  });

  it("handles a request-shaped flow: parse the body, check the contract once, validate many calls", async () => {
    const validator = createRuntimeValidator();
    const request = new Request("https://toolproof.test/call", {
      method: "POST",
      body: JSON.stringify({ schema: TOOL, calls: [{ to: ["x@y.z"], subject: "a" }, { subject: "b" }] }),
    });
    const body: unknown = await request.json();
    if (
      typeof body !== "object" ||
      body === null ||
      !("schema" in body) ||
      !("calls" in body) ||
      !Array.isArray(body.calls)
    ) {
      throw new Error("unexpected body");
    }
    expect(validator.checkSchema(body.schema)).toEqual([]);
    // SAFETY: checkSchema just accepted it, so it is an object or boolean schema.
    const schema = body.schema as JsonSchema;
    const verdicts = body.calls.map((call: unknown) => validator.validate(schema, call));
    expect(verdicts).toEqual([[], [{ path: "", message: 'missing required property "to"' }]]);
    expect(validator.cachedSchemas()).toBe(1);
  });
});
