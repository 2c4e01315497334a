/**
 * Which draft a schema is read in: "$schema" selects draft-07 or 2020-12, none means 2020-12,
 * anything else is a schema problem at /$schema. The drafts differ observably, e.g. in how
 * "items" with an array and "$ref" with siblings behave, which is what these cases use.
 */
import { describe, expect, it } from "vitest";
import { selectDraft } from "../../../src/adapters/json-schema/drafts.js";
import type { JsonSchema } from "../../../src/core/ports.js";
import { IMPLEMENTATIONS } from "./validators.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_07_NO_HASH = "http://json-schema.org/draft-07/schema";
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

describe("selectDraft", () => {
  it.each([
    [{ $schema: DRAFT_07 }, { draft: "7" }],
    [{ $schema: DRAFT_07_NO_HASH }, { draft: "7" }],
    [{ $schema: DRAFT_2020 }, { draft: "2020-12" }],
    [{ type: "string" }, { draft: "2020-12" }],
    [true, { draft: "2020-12" }],
  ])("%j → %j", (schema, expected) => {
    expect(selectDraft(schema)).toEqual(expected);
  });

  it.each([
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-04/schema#",
    "https://json-schema.org/draft-07/schema#",
    "https://example.com/my-meta",
  ])("rejects $schema %s at /$schema", (uri) => {
    expect(selectDraft({ $schema: uri })).toEqual({
      problem: {
        path: "/$schema",
        message: `unsupported $schema "${uri}": use "${DRAFT_2020}" (the default) or "${DRAFT_07}"`,
      },
    });
  });

  it("rejects a $schema that is not a string", () => {
    expect(selectDraft({ $schema: 7 })).toEqual({
      problem: {
        path: "/$schema",
        message: `unsupported $schema 7: use "${DRAFT_2020}" (the default) or "${DRAFT_07}"`,
      },
    });
  });
});

describe.each(IMPLEMENTATIONS)("%s validator reads the selected draft", (_name, create) => {
  const validator = create();

  // In draft-07 "items": [...] is positional and "additionalItems" governs the rest; in 2020-12
  // an array "items" is not a valid schema and positional items are "prefixItems".
  const tuple = (uri?: string): JsonSchema => ({
    ...(uri === undefined ? {} : { $schema: uri }),
    prefixItems: [{ type: "string" }],
    items: false,
  });

  it("2020-12 when $schema is absent: prefixItems and items:false close the tuple", () => {
    expect(validator.validate(tuple(), ["a"])).toEqual([]);
    expect(validator.validate(tuple(), ["a", 1])).toEqual([
      { path: "/1", message: "item 1 is not allowed (the array has too many items)" },
    ]);
  });

  it("2020-12 when $schema names it", () => {
    expect(validator.validate(tuple(DRAFT_2020), ["a", 1])).toEqual([
      { path: "/1", message: "item 1 is not allowed (the array has too many items)" },
    ]);
  });

  it.each([DRAFT_07, DRAFT_07_NO_HASH])(
    "draft-07 for %s: prefixItems means nothing, items:false rejects every item",
    (uri) => {
      expect(validator.validate(tuple(uri), [])).toEqual([]);
      expect(validator.validate(tuple(uri), [1])).toEqual([
        { path: "/0", message: "item 0 is not allowed (the array has too many items)" },
      ]);
    },
  );

  it("draft-07: keywords beside $ref are ignored; 2020-12: they apply", () => {
    const schema = (uri: string): JsonSchema => ({
      $schema: uri,
      $defs: { s: { type: "string" } },
      definitions: { s: { type: "string" } },
      $ref: "#/definitions/s",
      maxLength: 1,
    });
    expect(validator.validate(schema(DRAFT_07), "long")).toEqual([]);
    expect(validator.validate(schema(DRAFT_2020), "long")).toEqual([
      { path: "", message: "must be at most 1 character long, got 4" },
    ]);
  });

  it("an unknown $schema makes the schema unusable rather than guessing", () => {
    const schema = { $schema: "https://json-schema.org/draft/2019-09/schema", type: "string" };
    expect(validator.checkSchema(schema)).toEqual([
      {
        path: "/$schema",
        message: `unsupported $schema "https://json-schema.org/draft/2019-09/schema": use "${DRAFT_2020}" (the default) or "${DRAFT_07}"`,
      },
    ]);
    expect(validator.validate(schema, "x")).toEqual([
      {
        path: "",
        message: `the schema cannot be used: /$schema: unsupported $schema "https://json-schema.org/draft/2019-09/schema": use "${DRAFT_2020}" (the default) or "${DRAFT_07}"`,
      },
    ]);
  });
});
