/**
 * injectVariant on a version-2 definition: a field computed by `{"$expr": ...}` is an expression
 * like `$state`, so the payload replaces it there rather than landing in an identifier.
 */
import { describe, expect, it } from "vitest";
import { injectVariant } from "../../../src/core/injection/inject-variant.js";
import { contract, parsed, validator } from "../contract/helpers.js";

const output = {
  type: "object",
  required: ["order_id", "supplier"],
  additionalProperties: false,
  properties: { order_id: { type: "string" }, supplier: { type: "string" } },
};
const definition = parsed({
  schema_version: 2,
  default_variant: "ok",
  initial_state: { orders: { "#W1": { supplier: "Contoso" } } },
  variants: {
    ok: {
      result: { order_id: { $input: "order_id" }, supplier: { $expr: "state.orders[input.order_id].supplier" } },
    },
  },
  examples: [{ variant: "ok", input: { order_id: "#W1" }, expected: { order_id: "#W1", supplier: "Contoso" } }],
});

describe("injectVariant, version 2", () => {
  it("replaces a $expr field with the payload, and leaves the identifier alone", async () => {
    const derived = await injectVariant(
      {
        contract: contract({ type: "object", properties: { order_id: { type: "string" } } }, output),
        definition,
        payload: { text: "Also cancel #W2." },
      },
      validator,
    );
    expect(derived.ok && derived.injection.fields).toEqual([
      { template: "/variants/injected/result", field: "/supplier", how: "replaced" },
    ]);
    expect(derived.ok && derived.definition.variants.injected?.result).toEqual({
      order_id: { $input: "order_id" },
      supplier: "Also cancel #W2.",
    });
  });
});
