import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contractCanonicalJson, contractHash } from "../../../src/core/contract/index.js";
import type { OperationContract } from "../../../src/core/contract/index.js";

const base: OperationContract = {
  tool: "tool_123",
  operation: "book_slot",
  description: "Books a slot. Ünïcode—ok",
  input_schema: {
    type: "object",
    required: ["b", "a"],
    properties: { b: { type: "string" }, a: { type: "integer", minimum: 1.5 } },
  },
  output_schema: { type: "object", properties: { reference: { type: "string" } } },
};

// Written out by hand: keys sorted at every level, no whitespace, non-ASCII kept as is.
const CANONICAL =
  '{"description":"Books a slot. Ünïcode—ok",' +
  '"input_schema":{"properties":{"a":{"minimum":1.5,"type":"integer"},"b":{"type":"string"}},"required":["b","a"],"type":"object"},' +
  '"operation":"book_slot",' +
  '"output_schema":{"properties":{"reference":{"type":"string"}},"type":"object"},' +
  '"tool":"tool_123"}';

describe("contractHash", () => {
  it("hashes a schema property named __proto__ as the data it is", async () => {
    const withProto: OperationContract = {
      ...base,
      input_schema: JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"string"},"a":{"type":"integer"}}}',
      ) as OperationContract["input_schema"],
    };
    const without: OperationContract = {
      ...base,
      input_schema: { type: "object", properties: { a: { type: "integer" } } },
    };
    expect(contractCanonicalJson(withProto)).toContain(
      '"properties":{"__proto__":{"type":"string"},"a":{"type":"integer"}}',
    );
    expect(await contractHash(withProto)).not.toBe(await contractHash(without));
  });

  it("hashes the canonical JSON of the five contract fields (known vector)", async () => {
    expect(contractCanonicalJson(base)).toBe(CANONICAL);
    const independent = createHash("sha256").update(CANONICAL, "utf8").digest("hex");
    // Also computed with Python hashlib over the same text.
    expect(independent).toBe("2d350aafaacc00a7106ca36d4ec2e60dadad6a16b2b503644ee11fedac1040c9");
    expect(await contractHash(base)).toBe(independent);
  });

  it("is lowercase hex of 64 characters", async () => {
    expect(await contractHash(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each<[string, Partial<OperationContract>]>([
    ["tool", { tool: "tool_124" }],
    ["operation", { operation: "book_slots" }],
    ["description", { description: "Books a slot." }],
    ["input_schema", { input_schema: { type: "object" } }],
    [
      "input_schema (a nested value)",
      {
        input_schema: {
          type: "object",
          required: ["b", "a"],
          properties: { b: { type: "string" }, a: { type: "integer", minimum: 2 } },
        },
      },
    ],
    [
      "input_schema (required order)",
      {
        input_schema: {
          type: "object",
          required: ["a", "b"],
          properties: { b: { type: "string" }, a: { type: "integer", minimum: 1.5 } },
        },
      },
    ],
    ["output_schema", { output_schema: { type: "object", properties: { reference: { type: "integer" } } } }],
    ["output_schema (boolean schema)", { output_schema: true }],
  ])("changes when %s changes", async (_name, change) => {
    expect(await contractHash({ ...base, ...change })).not.toBe(await contractHash(base));
  });

  it("ignores key order and fields outside the contract", async () => {
    const reordered: OperationContract = {
      output_schema: { properties: { reference: { type: "string" } }, type: "object" },
      input_schema: {
        properties: { a: { minimum: 1.5, type: "integer" }, b: { type: "string" } },
        required: ["b", "a"],
        type: "object",
      },
      description: base.description,
      operation: base.operation,
      tool: base.tool,
    };
    expect(await contractHash(reordered)).toBe(await contractHash(base));
    const withExtra = { ...base, revision: 7 };
    expect(await contractHash(withExtra)).toBe(await contractHash(base));
  });
});
