import { describe, expect, it } from "vitest";
import { toolFromPlatformOperations } from "../../../src/core/tools/import-platform.js";

const contactSchema = { type: "object", properties: { Id: { type: "string" } }, required: ["Id"] };

describe("toolFromPlatformOperations", () => {
  it("normalizes parameter lists to JSON Schema with enums, both required flags, coercions and the native envelope", () => {
    const result = toolFromPlatformOperations({
      name: "salesforce",
      description: "Salesforce adapter",
      operations: [
        {
          operation_id: "create_contact",
          description: "Create a contact record",
          required: ["LastName", "Email"],
          parameters: [
            { name: "LastName", type: "string", description: "Family name" },
            { name: "Email", type: "string", required: true },
            { name: "Status", type: "string", options: ["New", "Working"], required: true },
            { name: "Birthdate", type: "date" },
            { name: "sfdc_field_mapping", type: "string" },
            { name: "async_options", type: "object" },
            { name: "Extra", type: "json" },
          ],
          response: { status: 201, schema: contactSchema },
        },
        {
          operation_id: "ping",
          description: "Check the connection",
          parameters: [],
          response: { schema: { type: "boolean" } },
        },
      ],
    });
    expect(result).toEqual({
      ok: true,
      tool: {
        name: "salesforce",
        description: "Salesforce adapter",
        kind: "platform",
        output_schema: undefined,
        source: { format: "platform", coerce: { sfdc_field_mapping: "object", async_options: "string" } },
        operations: [
          {
            operation_id: "create_contact",
            description: "Create a contact record",
            input_schema: {
              type: "object",
              properties: {
                LastName: { type: "string", description: "Family name" },
                Email: { type: "string" },
                Status: { type: "string", enum: ["New", "Working"] },
                Birthdate: { type: "string", format: "date" },
                sfdc_field_mapping: { type: "object" },
                async_options: { type: "string" },
                Extra: {},
              },
              // field-level flags first, in parameter order, then the operation-level list
              required: ["Email", "Status", "LastName"],
              additionalProperties: false,
            },
            output_schema: {
              type: "object",
              properties: { status: { const: 201 }, data: contactSchema },
              required: ["status", "data"],
              additionalProperties: false,
            },
          },
          {
            operation_id: "ping",
            description: "Check the connection",
            input_schema: { type: "object", properties: {}, additionalProperties: false },
            output_schema: { type: "boolean" },
          },
        ],
      },
    });
  });

  it("keeps a parameter named __proto__ as a property of the input schema (and reads no coercion from Object.prototype)", () => {
    const result = toolFromPlatformOperations({
      name: "odd",
      description: "Odd names",
      operations: [
        {
          operation_id: "op",
          description: "d",
          parameters: [
            { name: "__proto__", type: "string", required: true },
            { name: "constructor", type: "integer" },
          ],
        },
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const schema = result.tool.operations[0]?.input_schema;
    expect(JSON.stringify(schema)).toBe(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"additionalProperties":false,"required":["__proto__"]}',
    );
  });

  it("lets declared coercions override the defaults", () => {
    const result = toolFromPlatformOperations({
      name: "crm",
      description: "CRM",
      coerce: { sfdc_field_mapping: "string", payload: "object" },
      operations: [
        {
          operation_id: "send",
          description: "Send",
          parameters: [
            { name: "sfdc_field_mapping", type: "json" },
            { name: "payload", type: "string" },
          ],
        },
      ],
    });
    expect(result.ok && result.tool.operations[0]?.input_schema).toEqual({
      type: "object",
      properties: { sfdc_field_mapping: { type: "string" }, payload: { type: "object" } },
      additionalProperties: false,
    });
  });

  it("names unknown required parameters and duplicates", () => {
    expect(
      toolFromPlatformOperations({
        name: "crm",
        description: "CRM",
        operations: [
          {
            operation_id: "a",
            description: "A",
            required: ["missing"],
            parameters: [
              { name: "x", type: "string" },
              { name: "x", type: "number" },
            ],
          },
        ],
      }),
    ).toEqual({
      ok: false,
      problems: [
        { path: "/operations/0/parameters/1/name", message: 'duplicate parameter "x"' },
        { path: "/operations/0/required/0", message: 'names no parameter of this operation: "missing"' },
      ],
    });
  });
});
