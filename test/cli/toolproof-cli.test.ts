/**
 * The real CLI as a pipeline runs it: bin/toolproof.mjs spawned as a child process on files,
 * asserting exit codes, stdout and stderr.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(ROOT, "bin/toolproof.mjs");
const work = mkdtempSync(path.join(tmpdir(), "toolproof-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function toolproof(args: string[], input?: string): Run {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: "utf8", timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function file(name: string, content: unknown): string {
  const target = path.join(work, name);
  writeFileSync(target, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return target;
}

const POLICY = "examples/policy/policy.json";

describe("toolproof policy check", () => {
  it("exits 0 on the seed agent's manifest", () => {
    expect(toolproof(["policy", "check", "--policy", POLICY, "--manifest", "examples/policy/manifest.json"])).toEqual({
      code: 0,
      stdout:
        "toolproof policy check: examples/policy/manifest.json (toolproof manifest) against examples/policy/policy.json\n\nPASS: the manifest matches the reviewed policy (no findings)\n",
      stderr: "",
    });
  });

  it("exits 1 on drift, naming each rule and tool", () => {
    const run = toolproof([
      "policy",
      "check",
      "--policy",
      POLICY,
      "--manifest",
      "examples/policy/manifest-drifted.json",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
    expect(run.stdout.split("\n").filter((line) => /^ {2}\S/.test(line))).toEqual([
      "  tool_set.unexpected  release_invoice_hold",
      "  approval.mismatch  place_invoice_on_hold",
      "  approval.write_verb  place_invoice_on_hold",
      "  approval.write_verb  release_invoice_hold",
      "  description.too_short  release_invoice_hold",
      "  enum.values  place_invoice_on_hold",
    ]);
    expect(run.stdout).toContain(
      "    place_invoice_on_hold runs with never_require but the policy reviewed always_require\n",
    );
    expect(run.stdout.endsWith("FAIL: 6 findings\n")).toBe(true);
  });

  it("prints the report as JSON with --json", () => {
    const manifest = file("relaxed.json", {
      tools: [
        {
          name: "get_invoice",
          description: "Return the supplier, amount and status of one invoice.",
          approval_mode: "never_require",
        },
        {
          name: "place_invoice_on_hold",
          description: "Stop an approved invoice from being paid until someone releases the hold.",
          approval_mode: "never_require",
          parameters: { type: "object", properties: { reason: { enum: ["disputed", "duplicate", "awaiting_po"] } } },
        },
      ],
    });
    const run = toolproof(["policy", "check", "--policy", POLICY, "--manifest", manifest, "--json"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
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
      policy_file: POLICY,
      manifest_file: manifest,
      format: "toolproof",
    });
  });

  it("reads OpenAI and MCP manifests, YAML policies and stdin", () => {
    expect(
      toolproof([
        "policy",
        "check",
        "--policy",
        POLICY,
        "--manifest",
        "examples/policy/openai-tools.json",
        "--format",
        "openai",
      ]).code,
    ).toBe(0);
    expect(
      toolproof([
        "policy",
        "check",
        "--policy",
        "examples/policy/policy-with-mcp.yaml",
        "--manifest",
        "examples/policy/manifest-with-mcp.json",
      ]).code,
    ).toBe(0);
    const unfiltered = toolproof(
      [
        "policy",
        "check",
        "--policy",
        "examples/policy/policy-with-mcp.yaml",
        "--manifest",
        "-",
        "--format",
        "mcp",
        "--json",
      ],
      '{"tools": []}',
    );
    expect({ code: unfiltered.code, findings: JSON.parse(unfiltered.stdout).findings }).toEqual({
      code: 1,
      findings: [
        {
          rule: "mcp.unfiltered",
          tool: "vendors",
          server: "vendors",
          message:
            'MCP server "vendors" has no allowed_tools, so every tool the server offers (it offers 0 today), including any it adds later, reaches the model; set allowed_tools to the reviewed list [lookup_vendor, update_vendor_bank]',
        },
      ],
    });
    const filtered = toolproof([
      "policy",
      "check",
      "--policy",
      "examples/policy/policy-with-mcp.yaml",
      "--manifest",
      "examples/policy/vendors-tools-list.json",
      "--format",
      "mcp",
      "--server",
      "vendors",
      "--allowed-tools",
      "lookup_vendor",
    ]);
    expect(filtered.code).toBe(1);
    expect(filtered.stdout).toContain("  mcp.filter_mismatch  update_vendor_bank @ vendors\n");
  });

  it("exits 2 naming the file and field of a malformed policy", () => {
    const policy = file("bad-policy.json", {
      tools: { get_invoice: "never_require", place_invoice_on_hold: "sometimes" },
      min_desc_length: 10,
    });
    expect(toolproof(["policy", "check", "--policy", policy, "--manifest", "examples/policy/manifest.json"])).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        `toolproof: the policy file ${policy} has 2 problems`,
        '  /min_desc_length: unknown field "min_desc_length"; did you mean "min_description_length"?',
        '  /tools/place_invoice_on_hold: expected "never_require" or "always_require", got "sometimes"',
        "",
      ].join("\n"),
    });
  });

  it("exits 2 naming the file and field of a malformed manifest, in JSON too", () => {
    const manifest = file("bad-manifest.yaml", "tools:\n  - name: get_invoice\n    approval_mode: maybe\n");
    const run = toolproof(["policy", "check", "--policy", POLICY, "--manifest", manifest, "--json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `toolproof: the manifest file ${manifest} has a problem\n  /tools/0/approval_mode: expected "never_require" or "always_require", got "maybe"\n`,
    );
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        code: "unusable_input",
        message: `the manifest file ${manifest} has a problem`,
        source: manifest,
        problems: [
          { path: "/tools/0/approval_mode", message: 'expected "never_require" or "always_require", got "maybe"' },
        ],
      },
    });
  });

  it.each([
    [
      ["policy", "check", "--manifest", "examples/policy/manifest.json"],
      'toolproof: missing --policy <file>: the reviewed policy to check against; run "toolproof policy check --help" for the options\n',
    ],
    [
      ["policy", "check", "--policy", "nope.json", "--manifest", "examples/policy/manifest.json"],
      "toolproof: cannot read the policy file nope.json: no such file\n",
    ],
    [
      ["policy", "check", "--policy", POLICY, "--manifest", "examples/policy/manifest.json", "--strict"],
      `toolproof: Unknown option '--strict'; run "toolproof policy check --help" for the options\n`,
    ],
    [
      ["policy", "check", "--policy", POLICY, "--manifest", "examples/policy/manifest.json", "--format", "yaml"],
      'toolproof: --format: expected one of toolproof, openai, mcp, got "yaml"\n',
    ],
    [
      ["policy", "check", "--policy", POLICY, "--manifest", "examples/policy/openai-tools.json"],
      `toolproof: the manifest file examples/policy/openai-tools.json has a problem\n  (document): expected a toolproof manifest object ({"tools": [...]}), got an array; an OpenAI tools array needs format "openai"\n`,
    ],
    [["policy", "lint"], 'toolproof: unknown command "policy lint"; did you mean "policy check"?\n'],
  ])("exits 2 with a usable message for %j", (args, stderr) => {
    expect(toolproof(args)).toEqual({ code: 2, stdout: "", stderr });
  });

  it("prints help with exit 0", () => {
    const run = toolproof(["policy", "check", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: toolproof policy check --policy <file> --manifest <file> [options]");
    expect(run.stdout).toContain("  approval.mismatch");
  });
});

describe("toolproof permission", () => {
  it("exits 0 when every call is authorized", () => {
    expect(
      toolproof([
        "permission",
        "--allowed",
        "get_invoice,place_invoice_on_hold",
        "--called",
        "examples/policy/called.json",
      ]),
    ).toEqual({
      code: 0,
      stdout:
        "toolproof permission: examples/policy/called.json\n\n  score      1 (3 of 3 calls authorized)\n  threshold  1\n\n  All 3 tool calls stayed within the permitted tools.\n\nPASS\n",
      stderr: "",
    });
  });

  it("exits 1 below the threshold and prints the metric as JSON", () => {
    const called = file("called.json", ["get_invoice", "pay_invoice", "pay_invoice"]);
    const run = toolproof(["permission", "--policy", POLICY, "--called", called, "--json"]);
    expect(run.code).toBe(1);
    // 1 authorized of 3 calls: 1/3.
    expect(JSON.parse(run.stdout)).toEqual({
      score: 1 / 3,
      success: false,
      threshold: 1,
      reason: "2 of 3 tool calls were unauthorized: pay_invoice (2 calls, in denied_tools).",
      unauthorized: [{ tool: "pay_invoice", count: 2, cause: "denied" }],
      total_calls: 3,
      authorized_calls: 1,
    });
  });

  it("passes at --threshold 0.5, fails the same calls with --strict", () => {
    const called = file("half.json", [{ name: "get_invoice" }, { function: { name: "delete_invoice" } }]);
    expect(toolproof(["permission", "--denied", "delete_invoice", "--called", called, "--threshold", "0.5"]).code).toBe(
      0,
    );
    const strict = toolproof([
      "permission",
      "--denied",
      "delete_invoice",
      "--called",
      called,
      "--threshold",
      "0.5",
      "--strict",
      "--json",
      "--no-reason",
    ]);
    expect({ code: strict.code, result: JSON.parse(strict.stdout) }).toEqual({
      code: 1,
      result: {
        score: 0,
        success: false,
        threshold: 1,
        reason: null,
        unauthorized: [{ tool: "delete_invoice", count: 1, cause: "denied" }],
        total_calls: 2,
        authorized_calls: 1,
      },
    });
  });

  it.each([
    [
      ["permission", "--called", "examples/policy/called.json"],
      'toolproof: missing the permission lists: give --allowed <names>, --denied <names> or both (or --policy <file>); run "toolproof permission --help"\n',
    ],
    [
      ["permission", "--allowed", "a", "--called", "examples/policy/called.json", "--threshold", "2"],
      'toolproof: --threshold: expected a number from 0 to 1, got "2"\n',
    ],
    [
      ["permission", "--allowed", "a", "--policy", POLICY, "--called", "examples/policy/called.json"],
      "toolproof: give the lists either with --allowed/--denied or with --policy, not both\n",
    ],
    [
      ["permission", "--allowed", "a"],
      'toolproof: missing --called <file>: the tools the agent called; run "toolproof permission --help" for the options\n',
    ],
  ])("exits 2 with a usable message for %j", (args, stderr) => {
    expect(toolproof(args)).toEqual({ code: 2, stdout: "", stderr });
  });

  it("exits 2 naming the field of a malformed called-tools file", () => {
    const called = file("bad-called.json", { tools_called: [{ name: "get_invoice" }, { arguments: {} }] });
    expect(toolproof(["permission", "--allowed", "get_invoice", "--called", called])).toEqual({
      code: 2,
      stdout: "",
      stderr: `toolproof: the called-tools file ${called} has a problem\n  /tools_called/1: expected a tool name, or a call with "name", "tool" or "function.name", got an object\n`,
    });
  });

  it("exits 2 when the policy has no permission lists", () => {
    const policy = file("no-lists.json", { tools: {} });
    expect(toolproof(["permission", "--policy", policy, "--called", "examples/policy/called.json"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `toolproof: the policy file ${policy} has neither allowed_tools nor denied_tools; the permission metric needs at least one\n  /allowed_tools: required (or /denied_tools) for the permission metric\n`,
    });
  });
});

describe("toolproof", () => {
  it("prints its help with --help and exits 2 without a command", () => {
    const help = toolproof(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("toolproof policy check --policy <file> --manifest <file>");
    const none = toolproof([]);
    expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 2, stdout: "" });
    expect(none.stderr).toContain("Commands:");
  });
});
