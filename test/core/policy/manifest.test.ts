import { describe, expect, it } from "vitest";
import { readManifest } from "../../../src/core/policy/manifest.js";
import {
  check,
  GET_INVOICE_DESCRIPTION,
  getInvoice,
  HOLD_DESCRIPTION,
  placeInvoiceOnHold,
  policyOf,
  seedManifest,
  seedPolicyDocument,
} from "./fixtures.js";

const seedPolicy = () => policyOf(seedPolicyDocument());

/** The seed's agent as the normalized manifest every shape should come to. */
function normalizedSeed(holdApproval: "always_require" | null) {
  return {
    scope: "agent",
    tools: [
      {
        name: "get_invoice",
        description: GET_INVOICE_DESCRIPTION,
        approval_mode: "never_require",
        parameters: getInvoice().parameters,
        annotations: null,
      },
      {
        name: "place_invoice_on_hold",
        description: HOLD_DESCRIPTION,
        approval_mode: holdApproval,
        parameters: placeInvoiceOnHold().parameters,
        annotations: null,
      },
    ],
    mcp_servers: [],
  };
}

describe("toolproof manifests", () => {
  it("read into the normalized manifest", () => {
    expect(readManifest(seedManifest(), seedPolicy())).toEqual({
      ok: true,
      manifest: normalizedSeed("always_require"),
    });
  });

  it.each([
    [
      "a misspelt approval field",
      { tools: [{ ...getInvoice(), aproval_mode: "never_require" }] },
      [{ path: "/tools/0/aproval_mode", message: 'unknown field "aproval_mode"; did you mean "approval_mode"?' }],
    ],
    [
      "an unknown approval mode",
      { tools: [{ ...getInvoice(), approval_mode: "on" }] },
      [{ path: "/tools/0/approval_mode", message: 'expected "never_require" or "always_require", got "on"' }],
    ],
    [
      "a nameless tool",
      { tools: [{ description: "x" }] },
      [{ path: "/tools/0/name", message: "expected a string, got nothing" }],
    ],
    [
      "a description that is not text",
      { tools: [{ name: "a", description: 5 }] },
      [{ path: "/tools/0/description", message: "expected a string, got 5" }],
    ],
    [
      "parameters that are not a schema",
      { tools: [{ name: "a", parameters: "object" }] },
      [{ path: "/tools/0/parameters", message: 'expected a JSON Schema (an object), got "object"' }],
    ],
    [
      "no tools",
      { mcp_servers: [] },
      [{ path: "/tools", message: "required: the agent's function tools (use [] when it has only MCP servers)" }],
    ],
    [
      "a server with a bad annotation",
      { tools: [], mcp_servers: [{ name: "vendors", tools: [{ name: "a", annotations: { readOnlyHint: "yes" } }] }] },
      [{ path: "/mcp_servers/0/tools/0/annotations/readOnlyHint", message: 'expected true or false, got "yes"' }],
    ],
    [
      "an OpenAI array given as toolproof",
      [],
      [
        {
          path: "",
          message:
            'expected a toolproof manifest object ({"tools": [...]}), got an array; an OpenAI tools array needs format "openai"',
        },
      ],
    ],
    [
      "OpenAI tools under a tools key",
      { tools: [{ type: "function", function: { name: "a" } }] },
      [
        {
          path: "",
          message: 'this looks like an OpenAI tools array (its tools have "type": "function"); use format "openai"',
        },
      ],
    ],
    [
      "an MCP result",
      { tools: [{ name: "a", inputSchema: {} }] },
      [
        {
          path: "",
          message: 'this looks like an MCP tools/list result (its tools have "inputSchema"); use format "mcp"',
        },
      ],
    ],
  ])("name the field for %s", (_case, document, problems) => {
    expect(readManifest(document, seedPolicy())).toEqual({ ok: false, problems });
  });
});

describe("OpenAI tools arrays", () => {
  const chatCompletions = () => [
    {
      type: "function",
      function: { name: "get_invoice", description: GET_INVOICE_DESCRIPTION, parameters: getInvoice().parameters },
    },
    {
      type: "function",
      function: {
        name: "place_invoice_on_hold",
        description: HOLD_DESCRIPTION,
        parameters: placeInvoiceOnHold().parameters,
        strict: true,
      },
    },
  ];
  const responses = () => [
    {
      type: "function",
      name: "get_invoice",
      description: GET_INVOICE_DESCRIPTION,
      parameters: getInvoice().parameters,
    },
    {
      type: "function",
      name: "place_invoice_on_hold",
      description: HOLD_DESCRIPTION,
      parameters: placeInvoiceOnHold().parameters,
      strict: true,
    },
  ];

  it("read nested (Chat Completions) and flat (Responses) definitions alike; no approval mode means unset", () => {
    const expected = {
      ok: true,
      manifest: {
        ...normalizedSeed(null),
        tools: normalizedSeed(null).tools.map((tool, i) => (i === 0 ? { ...tool, approval_mode: null } : tool)),
      },
    };
    expect(readManifest(chatCompletions(), seedPolicy(), { format: "openai" })).toEqual(expected);
    expect(readManifest({ model: "gpt-x", tools: responses() }, seedPolicy(), { format: "openai" })).toEqual(expected);
  });

  it("fail the seed policy on the write tool, reported as the never_require it silently means", () => {
    expect(
      check(seedPolicyDocument(), chatCompletions(), { format: "openai" }).findings.map((finding) => [
        finding.rule,
        finding.tool,
      ]),
    ).toEqual([
      ["approval.mismatch", "place_invoice_on_hold"],
      ["approval.write_verb", "place_invoice_on_hold"],
    ]);
  });

  it("pass when the manifest supplies the approval mode beside type", () => {
    const tools = chatCompletions();
    const approved = [tools[0], { ...tools[1], approval_mode: "always_require" }];
    expect(check(seedPolicyDocument(), approved, { format: "openai" })).toEqual({ passed: true, findings: [] });
  });

  it("read remote MCP servers with OpenAI's approval default and filter forms, and hosted tools by type", () => {
    const tools = [
      {
        type: "mcp",
        server_label: "vendors",
        server_url: "https://vendors.test/mcp",
        allowed_tools: ["lookup_vendor"],
      },
      {
        type: "mcp",
        server_label: "crm",
        allowed_tools: { tool_names: ["find_contact"], read_only: true },
        require_approval: { never: { tool_names: ["find_contact"] } },
      },
      { type: "mcp", server_label: "wiki", require_approval: "never" },
      { type: "web_search" },
    ];
    expect(readManifest(tools, seedPolicy(), { format: "openai" })).toEqual({
      ok: true,
      manifest: {
        scope: "agent",
        tools: [{ name: "web_search", description: null, approval_mode: null, parameters: null, annotations: null }],
        mcp_servers: [
          {
            name: "vendors",
            allowed_tools: ["lookup_vendor"],
            approval: null,
            default_approval: "always_require",
            default_approval_source:
              "with require_approval unset, OpenAI asks for approval before every remote MCP call",
            tools: null,
          },
          {
            name: "crm",
            allowed_tools: ["find_contact"],
            approval: { always_require: [], never_require: ["find_contact"] },
            default_approval: "always_require",
            default_approval_source:
              "with require_approval unset, OpenAI asks for approval before every remote MCP call",
            tools: null,
          },
          {
            name: "wiki",
            allowed_tools: null,
            approval: "never_require",
            default_approval: "always_require",
            default_approval_source:
              "with require_approval unset, OpenAI asks for approval before every remote MCP call",
            tools: null,
          },
        ],
      },
    });
  });

  it("compare an unset OpenAI MCP approval as the always_require it means", () => {
    const policy = {
      ...seedPolicyDocument(),
      mcp_servers: { vendors: { allowed_tools: ["lookup_vendor"], approval: "never_require" } },
    };
    const tools = [
      ...chatCompletions().map((tool, i) => (i === 1 ? { ...tool, approval_mode: "always_require" } : tool)),
      { type: "mcp", server_label: "vendors", allowed_tools: ["lookup_vendor"] },
    ];
    expect(check(policy, tools, { format: "openai" }).findings).toEqual([
      {
        rule: "approval.mismatch",
        tool: "lookup_vendor",
        server: "vendors",
        message:
          'lookup_vendor (MCP server "vendors") runs with always_require (approval mode unset; with require_approval unset, OpenAI asks for approval before every remote MCP call) but the policy reviewed never_require',
      },
    ]);
  });

  it.each([
    [
      "an object without tools",
      { model: "gpt-x" },
      [
        {
          path: "/tools",
          message: 'required: an OpenAI manifest is the tools array itself, or an object holding it under "tools"',
        },
      ],
    ],
    [
      "a nameless function",
      [{ type: "function", function: { description: "x" } }],
      [{ path: "/0/function/name", message: "expected a string, got nothing" }],
    ],
    [
      "a bad require_approval",
      [{ type: "mcp", server_label: "s", require_approval: "sometimes" }],
      [
        {
          path: "/0/require_approval",
          message:
            'expected "always", "never" or {"always": {"tool_names": [...]}, "never": {"tool_names": [...]}}, got "sometimes"',
        },
      ],
    ],
    [
      "an MCP entry without a label",
      [{ type: "mcp" }],
      [{ path: "/0/server_label", message: "expected a string, got nothing" }],
    ],
    [
      "a numeric type",
      [{ type: 1 }],
      [{ path: "/0/type", message: 'expected a string such as "function" or "mcp", got 1' }],
    ],
  ])("name the field for %s", (_case, document, problems) => {
    expect(readManifest(document, seedPolicy(), { format: "openai" })).toEqual({ ok: false, problems });
  });
});

describe("MCP tools/list results", () => {
  const listResult = () => ({
    tools: [
      {
        name: "lookup_vendor",
        title: "Lookup",
        description: "Find a vendor by name and return its id.",
        inputSchema: { type: "object" },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      {
        name: "delete_vendor",
        description: "Remove a vendor and its payment details.",
        inputSchema: { type: "object" },
        annotations: { destructiveHint: true },
      },
    ],
  });
  const policy = () =>
    policyOf({
      tools: {},
      mcp_servers: { vendors: { allowed_tools: ["lookup_vendor"], approval: { never_require: ["lookup_vendor"] } } },
    });
  const expectedServer = (allowed: string[] | null) => ({
    name: "vendors",
    allowed_tools: allowed,
    approval: null,
    default_approval: "never_require",
    default_approval_source: "an unset mode means never_require",
    tools: [
      {
        name: "lookup_vendor",
        description: "Find a vendor by name and return its id.",
        approval_mode: null,
        parameters: { type: "object" },
        annotations: { readOnlyHint: true },
      },
      {
        name: "delete_vendor",
        description: "Remove a vendor and its payment details.",
        approval_mode: null,
        parameters: { type: "object" },
        annotations: { destructiveHint: true },
      },
    ],
  });

  it("take the server name from a policy that reviews one server, and the filter from the options", () => {
    expect(readManifest(listResult(), policy(), { format: "mcp", allowed_tools: ["lookup_vendor"] })).toEqual({
      ok: true,
      manifest: { scope: "mcp_server", tools: [], mcp_servers: [expectedServer(["lookup_vendor"])] },
    });
  });

  it("unwrap a raw JSON-RPC response with the filter beside it", () => {
    const rpc = { jsonrpc: "2.0", id: 1, result: listResult(), server: "vendors", allowed_tools: ["lookup_vendor"] };
    expect(readManifest(rpc, policy(), { format: "mcp" })).toEqual({
      ok: true,
      manifest: { scope: "mcp_server", tools: [], mcp_servers: [expectedServer(["lookup_vendor"])] },
    });
  });

  it("check only the server in view: filtered passes, unfiltered fails with the destructive tool named", () => {
    expect(
      check(
        { tools: { get_invoice: "never_require" }, mcp_servers: { vendors: { allowed_tools: ["lookup_vendor"] } } },
        { ...listResult(), allowed_tools: ["lookup_vendor"] },
        { format: "mcp" },
      ),
    ).toEqual({
      passed: true,
      findings: [],
    });
    expect(
      check({ tools: {}, mcp_servers: { vendors: { allowed_tools: ["lookup_vendor"] } } }, listResult(), {
        format: "mcp",
      }).findings.map((finding) => [finding.rule, finding.tool]),
    ).toEqual([
      ["approval.write_verb", "delete_vendor"],
      ["approval.mcp_write", "delete_vendor"],
      ["mcp.unfiltered", "vendors"],
    ]);
  });

  it.each([
    [
      "a paginated page",
      { ...listResult(), nextCursor: "page-2" },
      {},
      [
        {
          path: "/nextCursor",
          message:
            'this tools/list result is one page (nextCursor "page-2"); follow nextCursor and merge every page\'s tools before checking',
        },
      ],
    ],
    [
      "no tools",
      { result: {} },
      {},
      [{ path: "/result/tools", message: "required: the server's tools, as returned by tools/list" }],
    ],
    [
      "a filter given twice",
      { ...listResult(), allowed_tools: ["a"] },
      { allowed_tools: ["b"] },
      [{ path: "/allowed_tools", message: "allowed_tools is given both in the document and separately; give it once" }],
    ],
    [
      "two server names",
      { ...listResult(), server: "crm" },
      { server: "vendors" },
      [
        {
          path: "/server",
          message: 'the document names server "crm" but "vendors" was given separately; give the name once',
        },
      ],
    ],
    [
      "a bad input schema",
      { tools: [{ name: "a", inputSchema: [] }] },
      {},
      [{ path: "/tools/0/inputSchema", message: "expected a JSON Schema (an object), got an array" }],
    ],
  ])("name the field for %s", (_case, document, options, problems) => {
    expect(readManifest(document, policy(), { format: "mcp", ...options })).toEqual({ ok: false, problems });
  });

  it("ask for the server name when the policy cannot lend one", () => {
    const two = policyOf({ tools: {}, mcp_servers: { vendors: { allowed_tools: [] }, crm: { allowed_tools: [] } } });
    expect(readManifest(listResult(), two, { format: "mcp" })).toEqual({
      ok: false,
      problems: [
        {
          path: "/server",
          message:
            "required: the name of the MCP server this tools/list came from (the policy reviews 2: vendors, crm)",
        },
      ],
    });
  });
});
