import { describe, expect, it } from "vitest";
import {
  check,
  GET_INVOICE_DESCRIPTION,
  getInvoice,
  HOLD_DESCRIPTION,
  placeInvoiceOnHold,
  seedManifest,
  seedPolicyDocument,
} from "./fixtures.js";

const UNSET = "never_require (approval mode unset; an unset mode means never_require)";

describe("the seed's accounts-payable agent", () => {
  it("passes its reviewed policy", () => {
    expect(check(seedPolicyDocument(), seedManifest())).toEqual({ passed: true, findings: [] });
  });

  it("fails with the tool's name when an approval is relaxed for a demo", () => {
    const manifest = seedManifest();
    manifest.tools[1] = { ...placeInvoiceOnHold(), approval_mode: "never_require" };
    expect(check(seedPolicyDocument(), manifest)).toEqual({
      passed: false,
      findings: [
        {
          rule: "approval.mismatch",
          tool: "place_invoice_on_hold",
          message: "place_invoice_on_hold runs with never_require but the policy reviewed always_require",
        },
        {
          rule: "approval.write_verb",
          tool: "place_invoice_on_hold",
          message:
            'place_invoice_on_hold starts with the write verb "place_", so it must be always_require, but it runs with never_require',
        },
      ],
    });
  });

  it("fails when a temporary tool is added without review", () => {
    const manifest = seedManifest();
    manifest.tools.push({
      name: "release_invoice_hold",
      description: "Release the hold on one invoice so it can be paid.",
    });
    expect(check(seedPolicyDocument(), manifest).findings).toEqual([
      {
        rule: "tool_set.unexpected",
        tool: "release_invoice_hold",
        message:
          'release_invoice_hold is in the manifest but not in the policy; review it and add it to "tools" with an explicit approval mode',
      },
      {
        rule: "approval.write_verb",
        tool: "release_invoice_hold",
        message: `release_invoice_hold starts with the write verb "release_", so it must be always_require, but it runs with ${UNSET}`,
      },
    ]);
  });
});

describe("tool_set rules", () => {
  it("names a reviewed tool that is missing", () => {
    expect(check(seedPolicyDocument(), { tools: [placeInvoiceOnHold()] }).findings).toEqual([
      {
        rule: "tool_set.missing",
        tool: "get_invoice",
        message: "get_invoice is reviewed in the policy (never_require) but the manifest does not have it",
      },
    ]);
  });

  it("names a tool declared twice", () => {
    const manifest = seedManifest();
    manifest.tools.push(getInvoice());
    expect(check(seedPolicyDocument(), manifest).findings).toEqual([
      {
        rule: "tool_set.duplicate",
        tool: "get_invoice",
        message: "get_invoice is declared 2 times in the manifest; tool names must be unique",
      },
    ]);
  });

  it("checks every declaration of a duplicated tool", () => {
    const manifest = seedManifest();
    manifest.tools.push({ ...getInvoice(), approval_mode: "always_require" });
    expect(check(seedPolicyDocument(), manifest).findings.map((finding) => finding.rule)).toEqual([
      "tool_set.duplicate",
      "approval.mismatch",
    ]);
  });
});

describe("approval rules", () => {
  it("reports an unset mode as the never_require it silently means", () => {
    const manifest = seedManifest();
    const { approval_mode: _dropped, ...unset } = placeInvoiceOnHold();
    manifest.tools[1] = unset;
    expect(check(seedPolicyDocument(), manifest).findings).toEqual([
      {
        rule: "approval.mismatch",
        tool: "place_invoice_on_hold",
        message: `place_invoice_on_hold runs with ${UNSET} but the policy reviewed always_require`,
      },
      {
        rule: "approval.write_verb",
        tool: "place_invoice_on_hold",
        message: `place_invoice_on_hold starts with the write verb "place_", so it must be always_require, but it runs with ${UNSET}`,
      },
    ]);
  });

  it("accepts an unset (or null) mode where never_require was reviewed", () => {
    for (const approval_mode of [undefined, null]) {
      const manifest = seedManifest();
      manifest.tools[0] = { ...getInvoice(), approval_mode };
      if (approval_mode === undefined) delete manifest.tools[0].approval_mode;
      expect(check(seedPolicyDocument(), manifest)).toEqual({ passed: true, findings: [] });
    }
  });

  it("reports a read tool made stricter than reviewed", () => {
    const manifest = seedManifest();
    manifest.tools[0] = { ...getInvoice(), approval_mode: "always_require" };
    expect(check(seedPolicyDocument(), manifest).findings).toEqual([
      {
        rule: "approval.mismatch",
        tool: "get_invoice",
        message: "get_invoice runs with always_require but the policy reviewed never_require",
      },
    ]);
  });

  it("holds every write-verb tool to always_require, even one reviewed otherwise, case-insensitively", () => {
    const policy = {
      ...seedPolicyDocument(),
      tools: { ...seedPolicyDocument().tools, Send_Reminder: "never_require" },
    };
    const manifest = seedManifest();
    manifest.tools.push({
      name: "Send_Reminder",
      description: "Email the supplier a reminder about one invoice.",
      approval_mode: "never_require",
    });
    expect(check(policy, manifest).findings).toEqual([
      {
        rule: "approval.write_verb",
        tool: "Send_Reminder",
        message:
          'Send_Reminder starts with the write verb "send_", so it must be always_require, but it runs with never_require',
      },
    ]);
  });

  it("applies the default write verbs when the policy lists none, and none when it lists []", () => {
    const tool = {
      name: "update_invoice_note",
      description: "Replace the free-text note on one invoice.",
      approval_mode: "never_require",
    };
    const { write_verbs: _omitted, ...withoutVerbs } = seedPolicyDocument();
    const policy = { ...withoutVerbs, tools: { ...seedPolicyDocument().tools, update_invoice_note: "never_require" } };
    const manifest = { tools: [...seedManifest().tools, tool] };
    expect(check(policy, manifest).findings).toEqual([
      {
        rule: "approval.write_verb",
        tool: "update_invoice_note",
        message:
          'update_invoice_note starts with the write verb "update_", so it must be always_require, but it runs with never_require',
      },
    ]);
    expect(check({ ...policy, write_verbs: [] }, manifest)).toEqual({ passed: true, findings: [] });
  });
});

describe("description rules", () => {
  it("names a missing description", () => {
    const manifest = seedManifest();
    manifest.tools[0] = { ...getInvoice(), description: null };
    expect(check(seedPolicyDocument(), manifest).findings).toEqual([
      {
        rule: "description.missing",
        tool: "get_invoice",
        message:
          "get_invoice has no description; the model chooses tools by their descriptions, and the policy requires at least 20 characters",
      },
    ]);
  });

  it("names a description shorter than the minimum (20 characters passes, 17 after trimming does not)", () => {
    const manifest = seedManifest();
    manifest.tools[0] = { ...getInvoice(), description: "Returns one invoice." }; // 20 characters
    expect(check(seedPolicyDocument(), manifest)).toEqual({ passed: true, findings: [] });
    manifest.tools[0] = { ...getInvoice(), description: "  Return an invoice  " }; // trimmed: 17 characters
    expect(check(seedPolicyDocument(), manifest).findings).toEqual([
      {
        rule: "description.too_short",
        tool: "get_invoice",
        message: 'get_invoice has a 17-character description ("Return an invoice"); the policy requires at least 20',
      },
    ]);
  });

  it("lets min_description_length 0 accept a missing description", () => {
    const manifest = seedManifest();
    manifest.tools[0] = { ...getInvoice(), description: "" };
    expect(check({ ...seedPolicyDocument(), min_description_length: 0 }, manifest)).toEqual({
      passed: true,
      findings: [],
    });
  });

  it("checks required words for every tool and per tool, ignoring case", () => {
    const policy = { ...seedPolicyDocument(), required_description_words: ["INVOICE"] };
    expect(check(policy, seedManifest())).toEqual({ passed: true, findings: [] });
    const perTool = {
      ...seedPolicyDocument(),
      required_description_words: { place_invoice_on_hold: ["approval", "hold"] },
    };
    expect(check(perTool, seedManifest()).findings).toEqual([
      {
        rule: "description.required_word",
        tool: "place_invoice_on_hold",
        message: 'place_invoice_on_hold\'s description does not contain the required word "approval"',
      },
    ]);
  });
});

describe("closed-enum rules", () => {
  const withReason = (reason: unknown, extra: Record<string, unknown> = {}) => {
    const hold = placeInvoiceOnHold();
    hold.parameters.properties.reason = reason;
    return { tools: [getInvoice(), { ...hold, parameters: { ...hold.parameters, ...extra } }] };
  };

  it("names a parameter that became free text", () => {
    expect(check(seedPolicyDocument(), withReason({ type: "string", description: "Why" })).findings).toEqual([
      {
        rule: "enum.not_closed",
        tool: "place_invoice_on_hold",
        message:
          "place_invoice_on_hold.reason is not a closed enum (it accepts any string); the policy requires an enum so the model cannot invent values",
      },
    ]);
  });

  it("names a parameter that disappeared", () => {
    const hold = placeInvoiceOnHold();
    delete hold.parameters.properties.reason;
    expect(check(seedPolicyDocument(), { tools: [getInvoice(), hold] }).findings).toEqual([
      {
        rule: "enum.missing_parameter",
        tool: "place_invoice_on_hold",
        message: 'place_invoice_on_hold has no parameter "reason", which the policy requires to be a closed enum',
      },
    ]);
  });

  it("names values added and removed, ignoring order", () => {
    expect(check(seedPolicyDocument(), withReason({ enum: ["awaiting_po", "duplicate", "disputed"] }))).toEqual({
      passed: true,
      findings: [],
    });
    expect(check(seedPolicyDocument(), withReason({ enum: ["disputed", "duplicate", "other"] })).findings).toEqual([
      {
        rule: "enum.values",
        tool: "place_invoice_on_hold",
        message:
          'place_invoice_on_hold.reason allows ["disputed", "duplicate", "other"] but the policy lists ["disputed", "duplicate", "awaiting_po"] (not reviewed: ["other"]; missing: ["awaiting_po"])',
      },
    ]);
  });

  it("recognises the closed sets code generators emit", () => {
    const values = ["disputed", "duplicate", "awaiting_po"];
    // A Python Enum class: Pydantic puts it in $defs and refers to it.
    expect(
      check(
        seedPolicyDocument(),
        withReason({ $ref: "#/$defs/HoldReason" }, { $defs: { HoldReason: { type: "string", enum: values } } }),
      ).passed,
    ).toBe(true);
    // Optional[Literal[...]]: the null branch only makes it optional.
    expect(check(seedPolicyDocument(), withReason({ anyOf: [{ enum: values }, { type: "null" }] })).passed).toBe(true);
    // Older Pydantic wraps a $ref with a description in allOf.
    expect(
      check(
        seedPolicyDocument(),
        withReason({ allOf: [{ $ref: "#/definitions/R" }] }, { definitions: { R: { enum: values } } }),
      ).passed,
    ).toBe(true);
    // One-value Literal becomes const; the parameter-name-only form accepts any closed set.
    const anyClosed = { ...seedPolicyDocument(), closed_enums: { place_invoice_on_hold: ["reason"] } };
    expect(check(anyClosed, withReason({ const: "disputed" })).passed).toBe(true);
    expect(check(anyClosed, withReason({ $ref: "#/$defs/Missing" })).findings).toEqual([
      {
        rule: "enum.not_closed",
        tool: "place_invoice_on_hold",
        message:
          'place_invoice_on_hold.reason is not a closed enum (its $ref "#/$defs/Missing" does not resolve inside the parameters schema); the policy requires an enum so the model cannot invent values',
      },
    ]);
  });
});

describe("MCP servers", () => {
  const vendorTools = () => [
    {
      name: "lookup_vendor",
      description: "Find a vendor by name and return its id and status.",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
    },
    {
      name: "update_vendor_bank",
      description: "Change the bank account a vendor is paid into.",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: false },
    },
    {
      name: "delete_vendor",
      description: "Remove a vendor and all of its payment details.",
      inputSchema: { type: "object" },
      annotations: { destructiveHint: true },
    },
  ];
  const policy = () => ({
    ...seedPolicyDocument(),
    mcp_servers: {
      vendors: {
        allowed_tools: ["lookup_vendor", "update_vendor_bank"],
        approval: { always_require: ["update_vendor_bank"], never_require: ["lookup_vendor"] },
      },
    },
  });
  const manifest = (server: Record<string, unknown>) => ({
    ...seedManifest(),
    mcp_servers: [{ name: "vendors", tools: vendorTools(), ...server }],
  });
  const reviewedServer = {
    allowed_tools: ["lookup_vendor", "update_vendor_bank"],
    approval: { always_require: ["update_vendor_bank"], never_require: ["lookup_vendor"] },
  };

  it("passes when filtered to the reviewed list with the reviewed approvals", () => {
    expect(check(policy(), manifest(reviewedServer))).toEqual({ passed: true, findings: [] });
  });

  it("names an unfiltered server and the writes it lets through", () => {
    expect(check(policy(), manifest({ approval: reviewedServer.approval })).findings).toEqual([
      {
        rule: "approval.mcp_write",
        tool: "delete_vendor",
        server: "vendors",
        message:
          'delete_vendor (MCP server "vendors") is annotated destructiveHint: true, so it is treated as a write and must be always_require, but it runs with never_require (approval mode unset; an unset mode means never_require); if it only reads, list it in the policy\'s read_only_tools for "vendors"',
      },
      {
        rule: "mcp.unfiltered",
        tool: "vendors",
        server: "vendors",
        message:
          'MCP server "vendors" has no allowed_tools, so every tool the server offers (it offers 3 today), including any it adds later, reaches the model; set allowed_tools to the reviewed list [lookup_vendor, update_vendor_bank]',
      },
    ]);
  });

  it("names each tool where the filter differs from the reviewed list", () => {
    expect(
      check(policy(), manifest({ ...reviewedServer, allowed_tools: ["lookup_vendor", "delete_vendor"] })).findings,
    ).toEqual([
      {
        rule: "approval.mcp_write",
        tool: "delete_vendor",
        server: "vendors",
        message:
          'delete_vendor (MCP server "vendors") is annotated destructiveHint: true, so it is treated as a write and must be always_require, but it runs with never_require (approval mode unset; an unset mode means never_require); if it only reads, list it in the policy\'s read_only_tools for "vendors"',
      },
      {
        rule: "mcp.filter_mismatch",
        tool: "delete_vendor",
        server: "vendors",
        message:
          'MCP server "vendors" allows delete_vendor, which is not in the reviewed allowed_tools [lookup_vendor, update_vendor_bank]',
      },
      {
        rule: "mcp.filter_mismatch",
        tool: "update_vendor_bank",
        server: "vendors",
        message:
          'MCP server "vendors" does not allow update_vendor_bank, which the reviewed allowed_tools includes; the filter must equal the reviewed list',
      },
    ]);
  });

  it("treats a tool in both approval lists as requiring approval", () => {
    const both = {
      ...reviewedServer,
      approval: { always_require: ["update_vendor_bank"], never_require: ["lookup_vendor", "update_vendor_bank"] },
    };
    expect(check(policy(), manifest(both))).toEqual({ passed: true, findings: [] });
  });

  it("treats unannotated tools as writes unless the policy lists them as read-only", () => {
    const tools = vendorTools().map((tool) =>
      tool.name === "lookup_vendor" ? { ...tool, annotations: undefined } : tool,
    );
    const server = { ...reviewedServer, tools };
    const finding = {
      rule: "approval.mcp_write",
      tool: "lookup_vendor",
      server: "vendors",
      message:
        'lookup_vendor (MCP server "vendors") is not annotated readOnlyHint: true, so it is treated as a write and must be always_require, but it runs with never_require; if it only reads, list it in the policy\'s read_only_tools for "vendors"',
    };
    expect(check(policy(), manifest(server)).findings).toEqual([finding]);
    const trusted = {
      ...policy(),
      mcp_servers: { vendors: { ...policy().mcp_servers.vendors, read_only_tools: ["lookup_vendor"] } },
    };
    expect(check(trusted, manifest(server))).toEqual({ passed: true, findings: [] });
  });

  it("compares approvals with the reviewed per-tool form (this policy's write verbs do not include update_)", () => {
    const relaxed = { ...reviewedServer, approval: "never_require" };
    expect(check(policy(), manifest(relaxed)).findings).toEqual([
      {
        rule: "approval.mismatch",
        tool: "update_vendor_bank",
        server: "vendors",
        message:
          'update_vendor_bank (MCP server "vendors") runs with never_require but the policy reviewed always_require',
      },
      {
        rule: "approval.mcp_write",
        tool: "update_vendor_bank",
        server: "vendors",
        message:
          'update_vendor_bank (MCP server "vendors") is annotated readOnlyHint: false, so it is treated as a write and must be always_require, but it runs with never_require; if it only reads, list it in the policy\'s read_only_tools for "vendors"',
      },
    ]);
  });

  it("names missing, unexpected and duplicated servers", () => {
    expect(check(policy(), seedManifest()).findings).toEqual([
      {
        rule: "mcp.missing_server",
        tool: "vendors",
        server: "vendors",
        message:
          'MCP server "vendors" is reviewed in the policy (allowed_tools [lookup_vendor, update_vendor_bank]) but the manifest does not connect it',
      },
    ]);
    const extra = {
      ...manifest(reviewedServer),
      mcp_servers: [
        { name: "vendors", ...reviewedServer },
        { name: "vendors", ...reviewedServer },
        { name: "crm", allowed_tools: [] },
      ],
    };
    expect(check(policy(), extra).findings).toEqual([
      {
        rule: "mcp.unexpected_server",
        tool: "crm",
        server: "crm",
        message:
          'the manifest connects MCP server "crm", which the policy does not review; add it to "mcp_servers" with its reviewed allowed_tools',
      },
      {
        rule: "mcp.duplicate_server",
        tool: "vendors",
        server: "vendors",
        message: 'MCP server "vendors" is declared 2 times in the manifest; server names must be unique',
      },
    ]);
  });

  it("checks descriptions and enums of MCP tools too", () => {
    const tools = vendorTools().map((tool) =>
      tool.name === "lookup_vendor" ? { ...tool, description: "Find vendor." } : tool,
    );
    expect(check(policy(), manifest({ ...reviewedServer, tools })).findings).toEqual([
      {
        rule: "description.too_short",
        tool: "lookup_vendor",
        server: "vendors",
        message:
          'lookup_vendor (MCP server "vendors") has a 12-character description ("Find vendor."); the policy requires at least 20',
      },
    ]);
  });
});

describe("report order", () => {
  it("is the same whatever order the manifest lists tools in", () => {
    const drifted = () => ({
      tools: [
        { name: "send_payment_reminder", description: "short" },
        { ...placeInvoiceOnHold(), approval_mode: "never_require" },
        { name: "create_vendor", description: "Create a vendor record for a new supplier." },
      ],
    });
    const forward = check(seedPolicyDocument(), drifted());
    const reversed = check(seedPolicyDocument(), { tools: drifted().tools.reverse() });
    expect(reversed).toEqual(forward);
    expect(forward.findings.map((finding) => `${finding.rule} ${finding.tool}`)).toEqual([
      "tool_set.missing get_invoice",
      "tool_set.unexpected create_vendor",
      "tool_set.unexpected send_payment_reminder",
      "approval.mismatch place_invoice_on_hold",
      "approval.write_verb create_vendor",
      "approval.write_verb place_invoice_on_hold",
      "approval.write_verb send_payment_reminder",
      "description.too_short send_payment_reminder",
    ]);
  });

  it("keeps the seed descriptions long enough (the fixtures are what the docs show)", () => {
    expect([GET_INVOICE_DESCRIPTION.length, HOLD_DESCRIPTION.length]).toEqual([54, 73]);
  });
});
