/**
 * Drafts are bounded by what a definition can hold: a schema asking for a longer string or more
 * items than fit in 102,400 bytes is answered "author the mock" at once, naming the keyword,
 * instead of building the value first (a minLength of 1e9 threw RangeError, a 500; minItems in
 * the millions held the Worker for seconds, every tenant's requests waiting behind it).
 */
import { describe, expect, it } from "vitest";
import { generateDraft } from "../../../src/core/contract/index.js";
import type { JsonSchema } from "../../../src/core/ports.js";
import { contract, validator } from "./helpers.js";

const anyInput: JsonSchema = { type: "object" };
const anyOutput: JsonSchema = { type: "object" };

describe("generateDraft refuses values that cannot fit in a definition, before building them", () => {
  it.each<
    [string, JsonSchema, JsonSchema, { construct: string; schema: "input_schema" | "output_schema"; message: string }]
  >([
    [
      "a string of a billion characters",
      anyOutput,
      { type: "object", required: ["s"], properties: { s: { type: "string", minLength: 1e9 } } },
      {
        construct: "/properties/s/minLength",
        schema: "input_schema",
        message:
          "input schema: a value of at least 1000000000 characters does not fit in a mock definition (at most 102400 bytes); author the mock",
      },
    ],
    [
      "a billion items",
      {
        type: "object",
        required: ["list"],
        properties: { list: { type: "array", minItems: 1e9, items: { type: "integer" } } },
      },
      anyInput,
      {
        construct: "/properties/list/minItems",
        schema: "output_schema",
        message:
          "output schema: a value of at least 1000000000 items does not fit in a mock definition (at most 102400 bytes); author the mock",
      },
    ],
    [
      "a million items, a thousand at a time",
      { type: "array", minItems: 1000, items: { type: "array", minItems: 1000, items: { type: "integer" } } },
      anyInput,
      {
        construct: "/items/minItems",
        schema: "output_schema",
        message:
          "output schema: a value of at least 1000 items does not fit in a mock definition (at most 102400 bytes); author the mock",
      },
    ],
    [
      "strings that only fit one at a time",
      { type: "array", minItems: 3, items: { type: "string", minLength: 60_000 } },
      anyInput,
      {
        construct: "/items/minLength",
        schema: "output_schema",
        message:
          "output schema: a value of at least 60000 characters does not fit in a mock definition (at most 102400 bytes); author the mock",
      },
    ],
  ])("%s", async (_name, output, input, expected) => {
    expect(await generateDraft(contract(input, output), validator)).toEqual({ ok: false, ...expected });
  });

  it("still derives values that fit", async () => {
    const draft = await generateDraft(
      contract(anyInput, { type: "array", minItems: 100, items: { type: "string", minLength: 10 } }),
      validator,
    );
    expect(draft.ok && draft.definition.variants.success?.result).toEqual(
      Array.from({ length: 100 }, () => "examplexxx"),
    );
  });
});
