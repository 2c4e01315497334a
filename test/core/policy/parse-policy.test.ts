import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../../src/core/policy/parse-policy.js";
import { parseText } from "../../../src/core/policy/parse-text.js";

describe("parsePolicy", () => {
  it("fills the defaults of a minimal policy", () => {
    expect(parsePolicy({ tools: { get_invoice: "never_require" } })).toEqual({
      ok: true,
      policy: {
        tools: new Map([["get_invoice", "never_require"]]),
        mcp_servers: new Map(),
        write_verbs: ["place_", "release_", "create_", "send_", "delete_", "update_"],
        min_description_length: 20,
        required_description_words: { every_tool: [], by_tool: new Map() },
        closed_enums: new Map(),
        allowed_tools: null,
        denied_tools: null,
      },
    });
  });

  it("reads every field of a full policy", () => {
    const document = {
      $schema: "https://example.test/policy.schema.json",
      tools: { get_invoice: "never_require", place_invoice_on_hold: "always_require" },
      mcp_servers: {
        vendors: {
          allowed_tools: ["lookup_vendor"],
          approval: { never_require: ["lookup_vendor"] },
          read_only_tools: ["lookup_vendor"],
        },
      },
      write_verbs: ["place_"],
      min_description_length: 30,
      required_description_words: { get_invoice: ["invoice"] },
      closed_enums: { place_invoice_on_hold: { reason: ["disputed", "duplicate"] }, lookup_vendor: ["status"] },
      allowed_tools: ["get_invoice"],
      denied_tools: ["pay_invoice"],
    };
    expect(parsePolicy(document)).toEqual({
      ok: true,
      policy: {
        tools: new Map([
          ["get_invoice", "never_require"],
          ["place_invoice_on_hold", "always_require"],
        ]),
        mcp_servers: new Map([
          [
            "vendors",
            {
              allowed_tools: ["lookup_vendor"],
              approval: { always_require: [], never_require: ["lookup_vendor"] },
              read_only_tools: ["lookup_vendor"],
            },
          ],
        ]),
        write_verbs: ["place_"],
        min_description_length: 30,
        required_description_words: { every_tool: [], by_tool: new Map([["get_invoice", ["invoice"]]]) },
        closed_enums: new Map([
          ["place_invoice_on_hold", [{ parameter: "reason", values: ["disputed", "duplicate"] }]],
          ["lookup_vendor", [{ parameter: "status", values: null }]],
        ]),
        allowed_tools: ["get_invoice"],
        denied_tools: ["pay_invoice"],
      },
    });
  });

  it.each([
    ["not an object", [], [{ path: "", message: "expected a policy document (a JSON object), got an array" }]],
    [
      "no tools",
      {},
      [
        {
          path: "/tools",
          message:
            'required: the reviewed tools as {"<tool name>": "never_require" | "always_require"} (use {} when the agent has only MCP tools)',
        },
      ],
    ],
    [
      "an unknown approval mode",
      { tools: { place_invoice_on_hold: "sometimes" } },
      [
        {
          path: "/tools/place_invoice_on_hold",
          message: 'expected "never_require" or "always_require", got "sometimes"',
        },
      ],
    ],
    [
      "a misspelt field",
      { tools: {}, min_desc_length: 10 },
      [
        {
          path: "/min_desc_length",
          message: 'unknown field "min_desc_length"; did you mean "min_description_length"?',
        },
      ],
    ],
    [
      "a typo'd field",
      { tools: {}, denied_tool: ["x"] },
      [{ path: "/denied_tool", message: 'unknown field "denied_tool"; did you mean "denied_tools"?' }],
    ],
    [
      "a fractional minimum length",
      { tools: {}, min_description_length: 2.5 },
      [{ path: "/min_description_length", message: "expected a whole number of characters from 0 to 10000, got 2.5" }],
    ],
    [
      "a duplicate in a list",
      { tools: {}, allowed_tools: ["a", "b", "a"] },
      [{ path: "/allowed_tools/2", message: 'duplicate name "a" (already at /allowed_tools/0)' }],
    ],
    [
      "an empty name",
      { tools: {}, denied_tools: [""] },
      [{ path: "/denied_tools/0", message: "expected a non-empty string" }],
    ],
    [
      "a name with spaces around it",
      { tools: { " get_invoice": "never_require" } },
      [
        {
          path: "/tools/ get_invoice",
          message: 'expected a name without leading or trailing spaces, got " get_invoice"',
        },
      ],
    ],
    [
      "write verbs as a string",
      { tools: {}, write_verbs: "place_" },
      [{ path: "/write_verbs", message: 'expected an array of names, got "place_"' }],
    ],
    [
      "an MCP server without allowed_tools",
      { tools: {}, mcp_servers: { vendors: {} } },
      [
        {
          path: "/mcp_servers/vendors/allowed_tools",
          message: "required: the reviewed list of this server's tools that may reach the model",
        },
      ],
    ],
    [
      "an approval list naming a tool outside allowed_tools",
      {
        tools: {},
        mcp_servers: { vendors: { allowed_tools: ["lookup_vendor"], approval: { always_require: ["update_vendor"] } } },
      },
      [
        {
          path: "/mcp_servers/vendors/approval/always_require/0",
          message: '"update_vendor" is not in this server\'s allowed_tools',
        },
      ],
    ],
    [
      "a bad approval form",
      { tools: {}, mcp_servers: { vendors: { allowed_tools: [], approval: { always: [] } } } },
      [
        {
          path: "/mcp_servers/vendors/approval/always",
          message: 'unknown field "always"; did you mean "always_require"?',
        },
      ],
    ],
    [
      "a closed enum for a tool the policy does not review",
      { tools: { place_invoice_on_hold: "always_require" }, closed_enums: { place_invoice_hold: ["reason"] } },
      [{ path: "/closed_enums/place_invoice_hold", message: '"place_invoice_hold" is not a tool this policy reviews' }],
    ],
    [
      "empty enum values",
      { tools: { place_invoice_on_hold: "always_require" }, closed_enums: { place_invoice_on_hold: { reason: [] } } },
      [
        {
          path: "/closed_enums/place_invoice_on_hold/reason",
          message: "expected a non-empty array of the enum's values, got an empty array",
        },
      ],
    ],
    [
      "duplicate enum values",
      {
        tools: { place_invoice_on_hold: "always_require" },
        closed_enums: { place_invoice_on_hold: { reason: ["a", "b", "a"] } },
      },
      [
        {
          path: "/closed_enums/place_invoice_on_hold/reason/2",
          message: 'duplicate value "a" (already at /closed_enums/place_invoice_on_hold/reason/0)',
        },
      ],
    ],
    [
      "required words that are not words",
      { tools: {}, required_description_words: [1] },
      [{ path: "/required_description_words/0", message: "expected a string, got 1" }],
    ],
  ])("names the field for %s", (_case, document, problems) => {
    expect(parsePolicy(document)).toEqual({ ok: false, problems });
  });

  it("reports every problem at once", () => {
    const result = parsePolicy({ tools: { a: "maybe", b: 1 }, write_verbs: [3], colour: "blue" });
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          path: "/colour",
          message:
            'unknown field "colour"; expected one of: $schema, tools, mcp_servers, write_verbs, min_description_length, required_description_words, closed_enums, allowed_tools, denied_tools',
        },
        { path: "/tools/a", message: 'expected "never_require" or "always_require", got "maybe"' },
        { path: "/tools/b", message: 'expected "never_require" or "always_require", got 1' },
        { path: "/write_verbs/0", message: "expected a string, got 3" },
      ],
    });
  });
});

describe("policy text", () => {
  it("reads YAML and JSON to the same document", () => {
    const yaml = `# reviewed by finance
tools:
  get_invoice: never_require
  place_invoice_on_hold: always_require
closed_enums:
  place_invoice_on_hold:
    reason: [disputed, duplicate, awaiting_po]
`;
    const json =
      '{"tools":{"get_invoice":"never_require","place_invoice_on_hold":"always_require"},"closed_enums":{"place_invoice_on_hold":{"reason":["disputed","duplicate","awaiting_po"]}}}';
    expect(parseText(yaml, "yaml")).toEqual(parseText(json, "json"));
  });

  it.each([
    ["json", '{"tools": {', "not valid JSON: "],
    ["yaml", "tools:\n  a: b\n  a: c\n", "not valid YAML: Map keys must be unique at line 3, column 3:"],
    ["yaml", "n: .inf\n", "the YAML holds values JSON cannot represent (such as .inf or .nan)"],
    ["yaml", "   \n", "the document is empty"],
  ] as const)("explains unusable %s text", (syntax, text, start) => {
    const parsed = parseText(text, syntax);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message.startsWith(start)).toBe(true);
  });

  it("refuses a YAML alias bomb", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 8; i++)
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(", ")}]`,
      );
    const parsed = parseText(levels.join("\n"), "yaml");
    expect(parsed.ok).toBe(false);
  });
});
