/**
 * Checks an agent's tool manifest against the reviewed policy and answers every finding at once,
 * in a fixed order (rule, server, tool, message), so two runs on the same inputs print the same
 * report and a CI diff shows only real changes.
 *
 * Which tools reach the model: the agent's function tools, plus for each MCP server the tools its
 * allowed_tools filter lets through (every tool the server lists, when unfiltered). Per-tool rules
 * run on exactly those; description, enum and annotation rules need the tool's definition, so for
 * an MCP server whose tools/list is not in the manifest they check only what the names allow.
 */
import type { JsonValue } from "../json.js";
import { resolveApproval, UNSET_APPROVAL_SOURCE, type ResolvedApproval } from "./approval.js";
import { enumDifference, parameterShape } from "./enum-schema.js";
import { ruleOrder, type RuleId } from "./rules.js";
import {
  DEFAULT_APPROVAL_MODE,
  type ApprovalMode,
  type CheckReport,
  type Finding,
  type Manifest,
  type ManifestMcpServer,
  type ManifestTool,
  type Policy,
  type PolicyMcpServer,
} from "./types.js";

/** A tool as the model would see it, with what the manifest tells about it. */
interface ExposedTool {
  name: string;
  /** The definition, or null when only the name is known (MCP filter without tools/list). */
  definition: ManifestTool | null;
  approval: ResolvedApproval;
  defaultSource: string;
  /** The reviewed approval mode, when the policy reviews this tool. */
  reviewed: ApprovalMode | undefined;
  server: { name: string; review: PolicyMcpServer | undefined } | undefined;
}

export function checkManifest(policy: Policy, manifest: Manifest): CheckReport {
  const findings = new FindingList();
  if (manifest.scope === "agent") {
    checkToolSet(policy, manifest.tools, findings);
    checkServerSet(policy, manifest.mcp_servers, findings);
  }
  const exposed: ExposedTool[] = manifest.tools.map((tool) => ({
    name: tool.name,
    definition: tool,
    approval:
      tool.approval_mode === null
        ? { mode: DEFAULT_APPROVAL_MODE, explicit: false }
        : { mode: tool.approval_mode, explicit: true },
    defaultSource: UNSET_APPROVAL_SOURCE,
    reviewed: policy.tools.get(tool.name),
    server: undefined,
  }));
  for (const server of manifest.mcp_servers) exposed.push(...checkServer(policy, server, manifest.scope, findings));
  for (const tool of exposed) {
    checkApproval(policy, tool, findings);
    if (tool.definition) {
      checkDescription(policy, tool, tool.definition, findings);
      checkEnums(policy, tool, tool.definition, findings);
    }
  }
  const sorted = findings.sorted();
  return { passed: sorted.length === 0, findings: sorted };
}

// ---------------------------------------------------------------------------------------------
// The tool set and the server set

function checkToolSet(policy: Policy, tools: readonly ManifestTool[], findings: FindingList): void {
  const counts = countNames(tools.map((tool) => tool.name));
  for (const [name, mode] of policy.tools) {
    if (!counts.has(name))
      findings.add(
        "tool_set.missing",
        name,
        `${name} is reviewed in the policy (${mode}) but the manifest does not have it`,
      );
  }
  for (const [name, count] of counts) {
    if (!policy.tools.has(name)) {
      findings.add(
        "tool_set.unexpected",
        name,
        `${name} is in the manifest but not in the policy; review it and add it to "tools" with an explicit approval mode`,
      );
    }
    if (count > 1)
      findings.add(
        "tool_set.duplicate",
        name,
        `${name} is declared ${count} times in the manifest; tool names must be unique`,
      );
  }
}

function checkServerSet(policy: Policy, servers: readonly ManifestMcpServer[], findings: FindingList): void {
  const counts = countNames(servers.map((server) => server.name));
  for (const [name, review] of policy.mcp_servers) {
    if (!counts.has(name)) {
      findings.add(
        "mcp.missing_server",
        name,
        `MCP server "${name}" is reviewed in the policy (allowed_tools ${list(review.allowed_tools)}) but the manifest does not connect it`,
        name,
      );
    }
  }
  for (const [name, count] of counts) {
    if (!policy.mcp_servers.has(name))
      findings.add(
        "mcp.unexpected_server",
        name,
        `the manifest connects MCP server "${name}", which the policy does not review; add it to "mcp_servers" with its reviewed allowed_tools`,
        name,
      );
    if (count > 1)
      findings.add(
        "mcp.duplicate_server",
        name,
        `MCP server "${name}" is declared ${count} times in the manifest; server names must be unique`,
        name,
      );
  }
}

/** The server's filter findings, and the tools it lets through to the model. */
function checkServer(
  policy: Policy,
  server: ManifestMcpServer,
  scope: Manifest["scope"],
  findings: FindingList,
): ExposedTool[] {
  const review = policy.mcp_servers.get(server.name);
  if (scope === "mcp_server" && !review) {
    findings.add(
      "mcp.unexpected_server",
      server.name,
      `MCP server "${server.name}" is not reviewed in the policy; add it to "mcp_servers" with its reviewed allowed_tools`,
      server.name,
    );
  }
  const allowed = server.allowed_tools;
  if (allowed === null) {
    const offered = server.tools === null ? "" : ` (it offers ${server.tools.length} today)`;
    const fix = review
      ? `set allowed_tools to the reviewed list ${list(review.allowed_tools)}`
      : "set allowed_tools to a reviewed list";
    findings.add(
      "mcp.unfiltered",
      server.name,
      `MCP server "${server.name}" has no allowed_tools, so every tool the server offers${offered}, including any it adds later, reaches the model; ${fix}`,
      server.name,
    );
  } else if (review) {
    for (const name of allowed) {
      if (!review.allowed_tools.includes(name))
        findings.add(
          "mcp.filter_mismatch",
          name,
          `MCP server "${server.name}" allows ${name}, which is not in the reviewed allowed_tools ${list(review.allowed_tools)}`,
          server.name,
        );
    }
    for (const name of review.allowed_tools) {
      if (!allowed.includes(name))
        findings.add(
          "mcp.filter_mismatch",
          name,
          `MCP server "${server.name}" does not allow ${name}, which the reviewed allowed_tools includes; the filter must equal the reviewed list`,
          server.name,
        );
    }
  }
  const passes = (name: string): boolean => allowed === null || allowed.includes(name);
  const known =
    server.tools === null
      ? (allowed ?? []).map((name) => ({ name, definition: null }))
      : server.tools.filter((tool) => passes(tool.name)).map((tool) => ({ name: tool.name, definition: tool }));
  return known.map(({ name, definition }) => ({
    name,
    definition,
    approval: resolveApproval(server.approval, name, server.default_approval),
    defaultSource: server.default_approval_source,
    reviewed: review?.allowed_tools.includes(name)
      ? resolveApproval(review.approval, name, DEFAULT_APPROVAL_MODE).mode
      : undefined,
    server: { name: server.name, review },
  }));
}

// ---------------------------------------------------------------------------------------------
// Per-tool rules

function checkApproval(policy: Policy, tool: ExposedTool, findings: FindingList): void {
  const runsWith = describeApproval(tool);
  const serverName = tool.server?.name;
  const label = toolLabel(tool);
  if (tool.reviewed !== undefined && tool.approval.mode !== tool.reviewed) {
    findings.add(
      "approval.mismatch",
      tool.name,
      `${label} runs with ${runsWith} but the policy reviewed ${tool.reviewed}`,
      serverName,
    );
  }
  if (tool.approval.mode === "always_require") return;
  const lower = tool.name.toLowerCase();
  const verb = policy.write_verbs.find((prefix) => lower.startsWith(prefix.toLowerCase()));
  if (verb !== undefined) {
    findings.add(
      "approval.write_verb",
      tool.name,
      `${label} starts with the write verb "${verb}", so it must be always_require, but it runs with ${runsWith}`,
      serverName,
    );
  }
  if (tool.server && tool.definition && !tool.server.review?.read_only_tools.includes(tool.name)) {
    const why = mcpWriteReason(tool.definition);
    if (why !== undefined) {
      findings.add(
        "approval.mcp_write",
        tool.name,
        `${label} ${why}, so it is treated as a write and must be always_require, but it runs with ${runsWith}; if it only reads, list it in the policy's read_only_tools for "${tool.server.name}"`,
        serverName,
      );
    }
  }
}

/** Why an MCP tool counts as a write, or undefined when its annotations say it only reads. */
function mcpWriteReason(tool: ManifestTool): string | undefined {
  const hints = tool.annotations;
  if (hints?.destructiveHint === true) return "is annotated destructiveHint: true";
  if (hints?.readOnlyHint === true) return undefined;
  if (hints?.readOnlyHint === false) return "is annotated readOnlyHint: false";
  return "is not annotated readOnlyHint: true";
}

function checkDescription(policy: Policy, tool: ExposedTool, definition: ManifestTool, findings: FindingList): void {
  const text = (definition.description ?? "").trim();
  const label = toolLabel(tool);
  const min = policy.min_description_length;
  const length = [...text].length;
  if (text === "" && min > 0) {
    findings.add(
      "description.missing",
      tool.name,
      `${label} has no description; the model chooses tools by their descriptions, and the policy requires at least ${min} characters`,
      tool.server?.name,
    );
  } else if (length < min) {
    findings.add(
      "description.too_short",
      tool.name,
      `${label} has a ${length}-character description (${JSON.stringify(text)}); the policy requires at least ${min}`,
      tool.server?.name,
    );
  }
  const words = [
    ...policy.required_description_words.every_tool,
    ...(policy.required_description_words.by_tool.get(tool.name) ?? []),
  ];
  const lower = text.toLowerCase();
  for (const word of words) {
    if (!lower.includes(word.toLowerCase())) {
      findings.add(
        "description.required_word",
        tool.name,
        `${label}'s description does not contain the required word "${word}"`,
        tool.server?.name,
      );
    }
  }
}

function checkEnums(policy: Policy, tool: ExposedTool, definition: ManifestTool, findings: FindingList): void {
  const label = toolLabel(tool);
  for (const rule of policy.closed_enums.get(tool.name) ?? []) {
    const shape = parameterShape(definition.parameters, rule.parameter);
    const where = `${label}.${rule.parameter}`;
    if (shape.kind === "missing") {
      findings.add(
        "enum.missing_parameter",
        tool.name,
        `${label} has no parameter "${rule.parameter}", which the policy requires to be a closed enum`,
        tool.server?.name,
      );
    } else if (shape.kind === "open") {
      findings.add(
        "enum.not_closed",
        tool.name,
        `${where} is not a closed enum (${shape.detail}); the policy requires an enum so the model cannot invent values`,
        tool.server?.name,
      );
    } else if (rule.values !== null) {
      const { extra, missing } = enumDifference(shape.values, rule.values);
      if (extra.length > 0 || missing.length > 0) {
        const parts = [
          ...(extra.length > 0 ? [`not reviewed: ${values(extra)}`] : []),
          ...(missing.length > 0 ? [`missing: ${values(missing)}`] : []),
        ];
        findings.add(
          "enum.values",
          tool.name,
          `${where} allows ${values(shape.values)} but the policy lists ${values(rule.values)} (${parts.join("; ")})`,
          tool.server?.name,
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Wording and bookkeeping

function toolLabel(tool: ExposedTool): string {
  return tool.server ? `${tool.name} (MCP server "${tool.server.name}")` : tool.name;
}

function describeApproval(tool: ExposedTool): string {
  return tool.approval.explicit
    ? tool.approval.mode
    : `${tool.approval.mode} (approval mode unset; ${tool.defaultSource})`;
}

function list(names: readonly string[]): string {
  return `[${names.join(", ")}]`;
}

function values(items: readonly JsonValue[]): string {
  return `[${items.map((item) => JSON.stringify(item)).join(", ")}]`;
}

/** Names in first-seen order with how often each occurs. */
function countNames(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

/** Findings without repeats (a duplicated tool is checked once per declaration), sorted for stable output. */
class FindingList {
  private readonly byKey = new Map<string, Finding>();

  add(rule: RuleId, tool: string, message: string, server?: string): void {
    const finding: Finding = server === undefined ? { rule, tool, message } : { rule, tool, message, server };
    this.byKey.set(JSON.stringify([rule, server ?? "", tool, message]), finding);
  }

  sorted(): Finding[] {
    return [...this.byKey.values()].sort(
      (a, b) =>
        ruleOrder(a.rule) - ruleOrder(b.rule) ||
        compare(a.server ?? "", b.server ?? "") ||
        compare(a.tool, b.tool) ||
        compare(a.message, b.message),
    );
  }
}

/** Code-unit order, not locale order, so the report is identical on every machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
