/**
 * How the runtime validator uses its fast path: from a schema's second validation on, a valid
 * value never reaches cfworker, and an invalid one still does (cfworker renders the problems).
 * cfworker's validate (toolproof's copy, vendor/cfworker-validate.js) is wrapped in a spy that
 * delegates to it, to count the calls.
 */
import * as cfworker from "../../../src/adapters/json-schema/vendor/cfworker-validate.js";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import type { JsonSchema } from "../../../src/core/ports.js";

vi.mock("../../../src/adapters/json-schema/vendor/cfworker-validate.js", async (importOriginal) => {
  const original =
    await importOriginal<typeof import("../../../src/adapters/json-schema/vendor/cfworker-validate.js")>();
  return { ...original, validate: vi.fn(original.validate) };
});

const SCHEMA: JsonSchema = {
  type: "object",
  required: ["q"],
  additionalProperties: false,
  properties: { q: { type: "string", minLength: 2 }, limit: { type: "integer", minimum: 1 } },
};

describe("runtime validator: the fast path", () => {
  const cfworkerCalls = () => vi.mocked(cfworker.validate).mock.calls.length;
  beforeEach(() => {
    vi.mocked(cfworker.validate).mockClear();
  });

  it("decides valid values without cfworker from the second validation of a schema on", () => {
    const validator = createRuntimeValidator();
    expect(validator.validate(SCHEMA, { q: "ab" })).toEqual([]);
    expect(cfworkerCalls()).toBe(1);
    for (let i = 0; i < 100; i++) expect(validator.validate(SCHEMA, { q: "abc", limit: i + 1 })).toEqual([]);
    expect(cfworkerCalls()).toBe(1);
  });

  it("still asks cfworker for the problems of an invalid value", () => {
    const validator = createRuntimeValidator();
    validator.validate(SCHEMA, { q: "ab" });
    vi.mocked(cfworker.validate).mockClear();
    expect(validator.validate(SCHEMA, { q: "a", extra: 1 })).toEqual([
      { path: "/extra", message: 'property "extra" is not allowed' },
      { path: "/q", message: "must be at least 2 characters long, got 1" },
    ]);
    expect(cfworkerCalls()).toBe(1);
  });

  it("refuses a value that is not JSON as before", () => {
    const validator = createRuntimeValidator();
    validator.validate(true, 1);
    expect(validator.validate(true, undefined)).toEqual([{ path: "", message: "must be a JSON value, got undefined" }]);
  });

  it("can be turned off: every value goes through cfworker", () => {
    const validator = createRuntimeValidator({ fastPath: false });
    for (let i = 0; i < 5; i++) expect(validator.validate(SCHEMA, { q: "ab" })).toEqual([]);
    expect(cfworkerCalls()).toBe(5);
  });

  it("leaves a schema it does not implement to cfworker", () => {
    const validator = createRuntimeValidator();
    const schema: JsonSchema = { properties: { q: {} }, unevaluatedProperties: false };
    for (let i = 0; i < 3; i++) expect(validator.validate(schema, { q: 1 })).toEqual([]);
    expect(cfworkerCalls()).toBe(3);
  });
});
