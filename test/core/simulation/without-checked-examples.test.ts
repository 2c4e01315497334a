/**
 * What an attempt object is given and stores: the setup without the definitions' checked examples
 * (run at save time, never by an attempt), everything else as it was.
 */
import { describe, expect, it } from "vitest";
import { type AttemptSetup, withoutCheckedExamples } from "../../../src/core/simulation/setup.js";

const operation = {
  function_name: "shop__get_order",
  tool_id: "tool_1",
  tool_name: "shop",
  operation_id: "get_order",
  description: "Read one order.",
  input_schema: { type: "object" },
  output_schema: { type: "object" },
  annotations: null,
  revision: 3,
  contract_hash: "abc",
  variant: "ok",
  definition: {
    schema_version: 2 as const,
    default_variant: "ok",
    dataset: { name: "shop", version: 1 },
    variants: { ok: { result: { found: true } } },
    examples: [{ variant: "ok", input: { order_id: "#W1" }, expected: { found: true } }],
  },
};

describe("withoutCheckedExamples", () => {
  it("leaves out every definition's examples and keeps the rest whole, without changing the job's setup", () => {
    const setup: AttemptSetup = {
      attempt_id: "att_1",
      simulation_id: "sim_1",
      tenant_id: "ten_1",
      token_hash: "f".repeat(64),
      expires_at: 1_000,
      operations: [operation],
      tools: [{ tool_id: "tool_1", tool_name: "shop", operation_ids: ["get_order"], initial_state: {} }],
    };
    const before = structuredClone(setup);
    expect(withoutCheckedExamples(setup)).toEqual({
      ...before,
      operations: [{ ...operation, definition: { ...operation.definition, examples: [] } }],
    });
    expect(setup).toEqual(before);
  });
});
