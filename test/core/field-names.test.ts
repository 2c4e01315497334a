import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closestName, suggestField, unknownFieldMessage } from "../../src/core/field-names.js";

const operationFields = ["operation_id", "description", "input_schema", "output_schema", "annotations"];

describe("suggestField", () => {
  it.each([
    ["parameters", "input_schema"],
    ["name", "operation_id"],
    ["inputSchema", "input_schema"],
    ["outputSchema", "output_schema"],
    ["operationId", "operation_id"],
    ["descripton", "description"],
    ["annotation", "annotations"],
    ["input", "input_schema"],
  ])("suggests for %s: %s", (key, expected) => {
    expect(suggestField(key, operationFields)).toBe(expected);
  });

  it("suggests another API's name only where toolproof has the field it stands for", () => {
    expect(suggestField("parameters", ["name", "type", "required"])).toBeUndefined();
    expect(suggestField("tools", ["name", "operations"])).toBe("operations");
  });

  it("suggests nothing for a word that is not close to any field", () => {
    expect(suggestField("colour", operationFields)).toBeUndefined();
  });

  it("only ever suggests a known field, and finds every snake_case field from its camelCase spelling", () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    fc.assert(
      fc.property(
        fc.array(
          fc.array(word, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("_")),
          { minLength: 1, maxLength: 6 },
        ),
        fc.string({ maxLength: 20 }),
        (known, key) => {
          const suggestion = suggestField(key, known);
          expect(suggestion === undefined || known.includes(suggestion)).toBe(true);
          for (const field of known.filter((f) => f.includes("_"))) {
            const camel = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
            expect(suggestField(camel, known)).toBe(field);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("unknownFieldMessage", () => {
  it("suggests when it can and lists the fields when it cannot", () => {
    expect(unknownFieldMessage("parameters", operationFields)).toBe(
      'unknown field "parameters"; did you mean "input_schema"?',
    );
    expect(unknownFieldMessage("colour", ["a", "b"])).toBe('unknown field "colour"; expected one of: a, b');
    expect(unknownFieldMessage("colour", [])).toBe('unknown field "colour"');
  });
});

describe("closestName", () => {
  it("takes the nearest typo first, then a long shared prefix", () => {
    expect(closestName("denied_tool", ["denied_tools", "allowed_tools"])).toBe("denied_tools");
    expect(closestName("min_desc_length", ["min_description_length", "tools"])).toBe("min_description_length");
    expect(closestName("zzz", ["tools"])).toBeUndefined();
  });
});
