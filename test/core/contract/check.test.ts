import { describe, expect, it } from "vitest";
import { checkDefinition, contractHash, parseDefinition } from "../../../src/core/contract/index.js";
import type { CheckReport } from "../../../src/core/contract/index.js";
import type { JsonObject } from "../../../src/core/json.js";
import { contract, validator } from "./helpers.js";

const booking = contract(
  {
    type: "object",
    required: ["patient_id", "amount", "from"],
    properties: {
      patient_id: { type: "string" },
      amount: { type: "string" },
      from: { type: "string", format: "date" },
    },
  },
  {
    type: "object",
    required: ["reference", "total", "due"],
    properties: {
      reference: { type: "string" },
      total: { type: "number" },
      due: { type: "string", format: "date-time" },
    },
  },
);
const hash = await contractHash(booking);

function definition(overrides: JsonObject = {}): JsonObject {
  return {
    schema_version: 1,
    default_variant: "ok",
    initial_state: { reference: "REF-1" },
    variants: {
      ok: {
        result: {
          reference: { $state: "reference" },
          total: { $number: { $input: "amount" } },
          due: { $dateAdd: { value: { $input: "from" }, days: 7, hours: 16 } },
        },
        rules: [
          {
            when: [{ source: "input", path: "patient_id", op: "eq", value: "P-2" }],
            result: { reference: "X", total: -1, due: 5 },
          },
        ],
      },
    },
    examples: [
      {
        variant: "ok",
        input: { patient_id: "P-1", amount: "12.50", from: "2025-03-01" },
        expected: { reference: "REF-1", total: 12.5, due: "2025-03-08T16:00:00.000Z" },
      },
    ],
    ...overrides,
  };
}

const goodInput = { patient_id: "P-1", amount: "12.50", from: "2025-03-01" };
const goodExpected = { reference: "REF-1", total: 12.5, due: "2025-03-08T16:00:00.000Z" };

describe("checkDefinition", () => {
  it("passes a definition whose examples all render their expected results", async () => {
    expect(await checkDefinition(booking, definition(), validator)).toEqual({
      valid: true,
      errors: [],
      examples: [{ index: 0, variant: "ok", passed: true }],
      contract_hash: hash,
    });
  });

  it("answers parse errors without running examples", async () => {
    const raw = definition({ schema_version: 3 });
    const parsed = parseDefinition(raw);
    expect(parsed.ok).toBe(false);
    expect(await checkDefinition(booking, raw, validator)).toEqual({
      valid: false,
      errors: [{ path: "/schema_version", message: "expected 1 or 2; got 3" }],
      examples: [],
      contract_hash: hash,
    });
  });

  it("reports each failing example with its index, variant, kind, path and message", async () => {
    const missingProblem = validator.validate(booking.input_schema, { patient_id: "P-1", amount: "1" })[0];
    const formatProblem = validator.validate(booking.input_schema, { ...goodInput, from: "soon" })[0];
    const outputProblems = validator.validate(booking.output_schema, { reference: "X", total: -1, due: 5 });
    if (!missingProblem || !formatProblem || !outputProblems[0])
      throw new Error("the validator should refuse these values");
    const raw = definition({
      examples: [
        { variant: "ok", input: goodInput, expected: goodExpected },
        { variant: "ok", input: { patient_id: "P-1", amount: "1" }, expected: goodExpected },
        { variant: "ok", input: { ...goodInput, from: "soon" }, expected: goodExpected },
        { variant: "ok", input: { ...goodInput, amount: "1e3" }, expected: goodExpected },
        { variant: "ok", input: goodInput, expected: { ...goodExpected, total: 12.51 } },
        { variant: "ok", input: goodInput, state: {}, expected: goodExpected },
        {
          variant: "ok",
          input: goodInput,
          state: { reference: "REF-9" },
          expected: { ...goodExpected, reference: "REF-9" },
        },
        { variant: "ok", input: { ...goodInput, patient_id: "P-2" }, expected: goodExpected },
        { variant: "ok", input: goodInput, expected: { ...goodExpected, extra: true } },
      ],
    });
    const report = await checkDefinition(booking, raw, validator);
    const numberMessage =
      'argument "amount" must be a finite JSON number or a decimal string such as "12.50" (no exponent, sign "+", spaces or hex) (it feeds $number); got "1e3"';
    const more =
      outputProblems.length > 1
        ? ` (and ${outputProblems.length - 1} more problem${outputProblems.length > 2 ? "s" : ""})`
        : "";
    const failed = (
      kind: NonNullable<CheckReport["examples"][number]["error"]>["kind"],
      path: string,
      message: string,
    ) => ({
      kind,
      path,
      message,
      details: [{ path, message }],
    });
    const outputDetails = outputProblems.map((p) => ({
      path: `/variants/ok/rules/0/result${p.path}`,
      message: `the rendered result at "${p.path || "/"}" does not match the output schema: ${p.message}`,
    }));
    const expected: CheckReport = {
      valid: false,
      errors: [],
      examples: [
        { index: 0, variant: "ok", passed: true },
        {
          index: 1,
          variant: "ok",
          passed: false,
          error: failed("input_schema", `/examples/1/input${missingProblem.path}`, missingProblem.message),
        },
        {
          index: 2,
          variant: "ok",
          passed: false,
          error: failed("input_schema", `/examples/2/input${formatProblem.path}`, formatProblem.message),
        },
        {
          index: 3,
          variant: "ok",
          passed: false,
          error: failed("tool_input_error", "/examples/3/input/amount", numberMessage),
        },
        {
          index: 4,
          variant: "ok",
          passed: false,
          error: failed("mismatch", "/examples/4/expected/total", "expected 12.51 but the call rendered 12.5"),
        },
        {
          index: 5,
          variant: "ok",
          passed: false,
          error: {
            kind: "harness_error",
            path: "/variants/ok/result/reference",
            message: 'missing_reference: $state "reference" does not resolve in the pre-call state',
            details: [
              {
                path: "/variants/ok/result/reference",
                message: 'missing_reference: $state "reference" does not resolve in the pre-call state',
              },
            ],
          },
        },
        { index: 6, variant: "ok", passed: true },
        {
          index: 7,
          variant: "ok",
          passed: false,
          error: {
            kind: "output_schema",
            path: `/variants/ok/rules/0/result${outputProblems[0].path}`,
            message: `the rendered result at "${outputProblems[0].path || "/"}" does not match the output schema: ${outputProblems[0].message}${more}`,
            details: outputDetails,
          },
        },
        {
          index: 8,
          variant: "ok",
          passed: false,
          error: failed("mismatch", "/examples/8/expected/extra", "expected true but the call rendered nothing"),
        },
      ],
      contract_hash: hash,
    };
    expected.errors = expected.examples.flatMap((e) =>
      (e.error?.details ?? []).map((d) => ({
        path: d.path,
        message: `example ${e.index} (variant "ok") failed, ${e.error?.kind}: ${d.message}`,
      })),
    );
    expect(report).toEqual(expected);
  });

  it("points a mismatch inside arrays and at extra keys", async () => {
    const simple = contract({ type: "object" }, true);
    const raw = {
      schema_version: 1,
      default_variant: "ok",
      variants: { ok: { result: { list: [1, { a: 2 }], extra: 1 } } },
      examples: [
        { variant: "ok", input: {}, expected: { list: [1, { a: 3 }], extra: 1 } },
        { variant: "ok", input: {}, expected: { list: [1], extra: 1 } },
        { variant: "ok", input: {}, expected: { list: [1, { a: 2 }] } },
        { variant: "ok", input: {}, expected: { extra: 1.0, list: [1.0, { a: 2 }] } },
      ],
    };
    const report = await checkDefinition(simple, raw, validator);
    const mismatch = (path: string, message: string) => ({
      kind: "mismatch",
      path,
      message,
      details: [{ path, message }],
    });
    expect(report.examples).toEqual([
      {
        index: 0,
        variant: "ok",
        passed: false,
        error: mismatch("/examples/0/expected/list/1/a", "expected 3 but the call rendered 2"),
      },
      {
        index: 1,
        variant: "ok",
        passed: false,
        error: mismatch("/examples/1/expected/list/1", 'expected nothing but the call rendered {"a":2}'),
      },
      {
        index: 2,
        variant: "ok",
        passed: false,
        error: mismatch("/examples/2/expected/extra", "expected nothing but the call rendered 1"),
      },
      { index: 3, variant: "ok", passed: true },
    ]);
    expect(report.valid).toBe(false);
  });

  it("lists every output-schema problem of an example in its details and in errors, not only the first", async () => {
    const pair = contract(
      { type: "object" },
      { type: "object", required: ["a", "b"], properties: { a: { type: "string" }, b: { type: "integer" } } },
    );
    const raw = {
      schema_version: 1,
      default_variant: "ok",
      variants: { ok: { result: { a: 1, b: "two" } } },
      examples: [{ variant: "ok", input: {}, expected: { a: 1, b: "two" } }],
    };
    const problems = validator.validate(pair.output_schema, { a: 1, b: "two" });
    expect(problems.map((p) => p.path)).toEqual(["/a", "/b"]);
    const details = problems.map((p) => ({
      path: `/variants/ok/result${p.path}`,
      message: `the rendered result at "${p.path}" does not match the output schema: ${p.message}`,
    }));
    expect(await checkDefinition(pair, raw, validator)).toEqual({
      valid: false,
      errors: details.map((d) => ({
        path: d.path,
        message: `example 0 (variant "ok") failed, output_schema: ${d.message}`,
      })),
      examples: [
        {
          index: 0,
          variant: "ok",
          passed: false,
          error: {
            kind: "output_schema",
            path: "/variants/ok/result/a",
            message: `${details[0]?.message} (and 1 more problem)`,
            details,
          },
        },
      ],
      contract_hash: await contractHash(pair),
    });
  });
});
