import { describe, expect, it } from "vitest";
import { executeCall, initialState } from "../../../src/core/contract/index.js";
import type { CallOutcome } from "../../../src/core/contract/index.js";
import type { JsonObject } from "../../../src/core/json.js";
import type { SchemaValidator } from "../../../src/core/ports.js";
import { acceptAll, parsed, request, unparsed, validator } from "./helpers.js";

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The seed's own example: a booking tool returning { reference } from the state. */
const seed = parsed({
  schema_version: 1,
  default_variant: "success",
  initial_state: { reference: "TEST-742" },
  variants: {
    success: {
      result: { reference: { $state: "reference" } },
      set_state: { booked: true },
      delay_ms: 0,
      rules: [],
    },
  },
  examples: [{ variant: "success", input: {}, expected: { reference: "TEST-742" } }],
});
const referenceOutput = {
  type: "object",
  required: ["reference"],
  properties: { reference: { type: "string" } },
  additionalProperties: false,
};

describe("executeCall", () => {
  it("runs the seed example: declared result, no wrapper, state updated on a copy", () => {
    const state = deepFreeze(initialState(seed));
    expect(executeCall(request(seed, {}, { state, output_schema: referenceOutput }))).toEqual({
      kind: "result",
      result: { reference: "TEST-742" },
      state: { reference: "TEST-742", booked: true },
      state_changed: true,
      variant: "success",
      rule: null,
      delay_ms: 0,
    });
    expect(state).toEqual({ reference: "TEST-742" });
  });

  it("answers the same state object, unchanged, when set_state writes what is already there", () => {
    const state = deepFreeze({ reference: "TEST-742", booked: true });
    const outcome = executeCall(request(seed, {}, { state }));
    expect(outcome).toEqual({
      kind: "result",
      result: { reference: "TEST-742" },
      state,
      state_changed: false,
      variant: "success",
      rule: null,
      delay_ms: 0,
    });
    expect(outcome.kind === "result" && outcome.state).toBe(state);
  });

  it("reads the pre-call state everywhere, even when result and set_state touch the same key", () => {
    const definition = parsed({
      schema_version: 1,
      default_variant: "ok",
      initial_state: { n: 1, list: ["a"] },
      variants: {
        ok: {
          result: { before: { $state: "n" }, list: { $state: "list" } },
          set_state: { n: { $number: { $input: "next" } }, previous: { $state: "n" }, "list.1": { $state: "n" } },
        },
      },
      examples: [{ variant: "ok", input: { next: "2" }, expected: { before: 1, list: ["a"] } }],
    });
    const state = deepFreeze(initialState(definition));
    expect(executeCall(request(definition, { next: "2" }, { state, validator: acceptAll }))).toEqual({
      kind: "result",
      result: { before: 1, list: ["a"] },
      state: { n: 2, list: ["a", 1], previous: 1 },
      state_changed: true,
      variant: "ok",
      rule: null,
      delay_ms: 0,
    });
  });

  it("creates intermediate objects for set_state paths", () => {
    const definition = parsed({
      schema_version: 1,
      default_variant: "ok",
      variants: {
        ok: { result: null, set_state: { "patients.P-1.visits.last": { $input: "date" }, "counters.calls": 1 } },
      },
      examples: [{ variant: "ok", input: {}, expected: null }],
    });
    expect(executeCall(request(definition, { date: "2025-01-01" }, { state: { counters: 5 } }))).toEqual({
      kind: "result",
      result: null,
      state: { counters: { calls: 1 }, patients: { "P-1": { visits: { last: "2025-01-01" } } } },
      state_changed: true,
      variant: "ok",
      rule: null,
      delay_ms: 0,
    });
  });

  describe("rule parts fall back to the variant's independently", () => {
    const definition = parsed({
      schema_version: 1,
      default_variant: "ok",
      variants: {
        ok: {
          result: "variant result",
          set_state: { by: "variant" },
          delay_ms: 100,
          rules: [
            { when: [{ source: "input", path: "case", op: "eq", value: "result-only" }], result: "rule result" },
            { when: [{ source: "input", path: "case", op: "eq", value: "state-only" }], set_state: { by: "rule" } },
            { when: [{ source: "input", path: "case", op: "eq", value: "delay-only" }], delay_ms: 2500 },
            { when: [{ source: "input", path: "case", op: "eq", value: "empty-state" }], set_state: {} },
            { when: [{ source: "input", path: "case", op: "eq", value: "zero-delay" }], delay_ms: 0, result: null },
          ],
        },
      },
      examples: [{ variant: "ok", input: {}, expected: "variant result" }],
    });
    const result = (value: unknown, by: string | null, rule: number | null, delay_ms: number): CallOutcome => ({
      kind: "result",
      // SAFETY: the table only passes JSON values.
      result: value as string | null,
      state: by === null ? {} : { by },
      state_changed: by !== null,
      variant: "ok",
      rule,
      delay_ms,
    });
    it.each<[string, CallOutcome]>([
      ["no-rule", result("variant result", "variant", null, 100)],
      ["result-only", result("rule result", "variant", 0, 100)],
      ["state-only", result("variant result", "rule", 1, 100)],
      ["delay-only", result("variant result", "variant", 2, 2500)],
      ["empty-state", result("variant result", null, 3, 100)],
      ["zero-delay", result(null, "variant", 4, 0)],
    ])("case %s", (name, expected) => {
      expect(executeCall(request(definition, { case: name }, { state: {} }))).toEqual(expected);
    });
  });

  it("uses the variant the simulation selected, else the default", () => {
    const definition = parsed({
      schema_version: 1,
      default_variant: "ok",
      variants: { ok: { result: "ok" }, "not-found": { result: { error: "not found" } } },
      examples: [
        { variant: "ok", input: {}, expected: "ok" },
        { variant: "not-found", input: {}, expected: { error: "not found" } },
      ],
    });
    expect(executeCall(request(definition, {}, { variant: "not-found" }))).toEqual({
      kind: "result",
      result: { error: "not found" },
      state: {},
      state_changed: false,
      variant: "not-found",
      rule: null,
      delay_ms: 0,
    });
    expect(executeCall(request(definition, {}, { variant: "missing" }))).toEqual({
      kind: "harness_error",
      harness_kind: "unknown_variant",
      message: 'the definition has no variant named "missing"',
      details: [{ path: "/variants", message: 'the definition has no variant named "missing"' }],
      variant: "missing",
      rule: null,
    });
  });

  it("returns the validator's problems as a tool input error and leaves the state alone", () => {
    const inputSchema = {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string" }, n: { type: "integer" } },
    };
    const args = { n: "x" };
    const details = validator.validate(inputSchema, args);
    expect(details.length).toBeGreaterThan(0);
    expect(executeCall(request(seed, args, { input_schema: inputSchema }))).toEqual({
      kind: "tool_input_error",
      message: `the arguments do not match the input schema: ${details.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")}`,
      details,
      variant: "success",
      rule: null,
    });
  });

  it("refuses arguments that are not an object even when the input schema allows them", () => {
    const message = "the arguments must be a JSON object; got [1]";
    expect(executeCall(request(seed, [1], { input_schema: true }))).toEqual({
      kind: "tool_input_error",
      message,
      details: [{ path: "", message }],
      variant: "success",
      rule: null,
    });
  });

  it("turns a result that fails the output schema into a harness error", () => {
    const outputSchema = { type: "object", required: ["reference"], properties: { reference: { type: "integer" } } };
    const details = validator.validate(outputSchema, { reference: "TEST-742" });
    expect(details.length).toBeGreaterThan(0);
    expect(executeCall(request(seed, {}, { output_schema: outputSchema }))).toEqual({
      kind: "harness_error",
      harness_kind: "output_schema",
      message: `the rendered result does not match the output schema: ${details.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")}`,
      details,
      variant: "success",
      rule: null,
    });
  });

  it("reports a set_state value that does not render, without touching the state", () => {
    const definition = parsed({
      schema_version: 1,
      default_variant: "ok",
      variants: { ok: { result: "fine", set_state: { copy: { $input: "missing" } } } },
      examples: [{ variant: "ok", input: { missing: 1 }, expected: "fine" }],
    });
    const message = '$input "missing" does not resolve in the arguments';
    expect(executeCall(request(definition, {}, { state: deepFreeze({ a: 1 }) }))).toEqual({
      kind: "harness_error",
      harness_kind: "missing_reference",
      message,
      details: [{ path: "/variants/ok/set_state/copy", message }],
      variant: "ok",
      rule: null,
    });
  });

  it("refuses to write past the end of an array in the state", () => {
    const definition = parsed({
      schema_version: 1,
      default_variant: "ok",
      variants: { ok: { result: null, set_state: { "list.3": "x" } } },
      examples: [{ variant: "ok", input: {}, expected: null }],
    });
    const message =
      'cannot write "list.3": the state holds an array of length 1 at "list", which "3" does not index (use an existing index or the length to append)';
    expect(executeCall(request(definition, {}, { state: deepFreeze({ list: [1] }) }))).toEqual({
      kind: "harness_error",
      harness_kind: "missing_reference",
      message,
      details: [{ path: "/variants/ok/set_state/list.3", message }],
      variant: "ok",
      rule: null,
    });
  });

  it("turns an exception inside the validator into an internal harness error, never a throw", () => {
    const throwing: SchemaValidator = {
      checkSchema: () => [],
      validate: () => {
        throw new Error("validator exploded");
      },
    };
    expect(executeCall(request(seed, {}, { validator: throwing }))).toEqual({
      kind: "harness_error",
      harness_kind: "internal",
      message: "internal error while running the call: validator exploded",
      details: [],
      variant: "success",
      rule: null,
    });
  });

  it("survives definitions that skipped the parser", () => {
    const broken = unparsed({ variants: { ok: { rules: "nope", delay_ms: -1 } }, default_variant: "ok" });
    expect(executeCall(request(broken, {}, { validator: acceptAll }))).toEqual({
      kind: "harness_error",
      harness_kind: "bad_literal",
      message: "delay_ms must be an integer from 0 to 30000",
      details: [{ path: "/variants/ok/delay_ms", message: "delay_ms must be an integer from 0 to 30000" }],
      variant: "ok",
      rule: null,
    });
    const noResult = unparsed({ variants: { ok: {} }, default_variant: "ok" });
    expect(executeCall(request(noResult, {}, { validator: acceptAll }))).toEqual({
      kind: "harness_error",
      harness_kind: "bad_literal",
      message: 'variant "ok" has no result',
      details: [{ path: "/variants/ok", message: 'variant "ok" has no result' }],
      variant: "ok",
      rule: null,
    });
    // SAFETY: deliberately not a definition at all.
    const nothing = null as unknown as Parameters<typeof unparsed>[0];
    expect(executeCall(request(unparsed({}), {}, { definition: unparsed(nothing), validator: acceptAll })).kind).toBe(
      "harness_error",
    );
  });

  it("cannot pollute Object.prototype through set_state or results, even without the parser", () => {
    const text =
      '{"default_variant":"ok","variants":{"ok":{"result":{"__proto__":{"polluted":1},"x":{"$input":"a"}},"set_state":{"__proto__.polluted":true,"constructor.prototype.polluted":true}}}}';
    // SAFETY: the JSON text above is an object.
    const hostile = unparsed(JSON.parse(text) as JsonObject);
    const outcome = executeCall(request(hostile, { a: 1 }, { validator: acceptAll, state: {} }));
    // SAFETY: reading a property no JSON value should have, to detect pollution.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(outcome.kind).toBe("result");
    if (outcome.kind !== "result") return;
    expect(Object.getPrototypeOf(outcome.result)).toBe(Object.prototype);
    // SAFETY: the result template is an object, so the rendered result is one.
    expect(Object.keys(outcome.result as JsonObject)).toEqual(["__proto__", "x"]);
    expect(Object.getPrototypeOf(outcome.state)).toBe(Object.prototype);
    expect(JSON.stringify(outcome.state)).toBe(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    );
  });

  it("initialState answers a fresh deep copy every time", () => {
    const first = initialState(seed);
    first.reference = "changed";
    expect(initialState(seed)).toEqual({ reference: "TEST-742" });
    expect(
      initialState(
        parsed({
          schema_version: 1,
          default_variant: "a",
          variants: { a: { result: 1 } },
          examples: [{ variant: "a", input: {}, expected: 1 }],
        }),
      ),
    ).toEqual({});
  });
});
