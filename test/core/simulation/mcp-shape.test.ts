import { describe, expect, it } from "vitest";
import { mcpTool, structuredContent } from "../../../src/core/simulation/mcp-shape.js";

const base = { function_name: "crm__get", description: "Get one customer." };

describe("MCP tool shapes", () => {
  it("passes object schemas as they are and declares object output schemas", () => {
    const input = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };
    const output = { type: "object", properties: { name: { type: "string" } } };
    expect(
      mcpTool({
        ...base,
        input_schema: input,
        output_schema: output,
        annotations: { readOnlyHint: true, destructiveHint: "no", custom: 1 },
      }),
    ).toEqual({
      name: "crm__get",
      description: "Get one customer.",
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: true },
    });
  });

  it("wraps schemas that are not object-typed, and leaves out output schemas MCP cannot carry", () => {
    expect(mcpTool({ ...base, input_schema: true, output_schema: { type: "array" }, annotations: null })).toEqual({
      name: "crm__get",
      description: "Get one customer.",
      inputSchema: { type: "object", allOf: [true] },
    });
    expect(
      mcpTool({
        ...base,
        input_schema: { properties: { a: { type: "string" } } },
        output_schema: true,
        annotations: {},
      }),
    ).toEqual({
      name: "crm__get",
      description: "Get one customer.",
      inputSchema: { type: "object", allOf: [{ properties: { a: { type: "string" } } }] },
    });
  });

  it("gives structuredContent as an object", () => {
    expect([
      structuredContent({ a: 1 }),
      structuredContent([1, 2]),
      structuredContent("x"),
      structuredContent(null),
    ]).toEqual([{ a: 1 }, { result: [1, 2] }, { result: "x" }, { result: null }]);
  });
});
