/**
 * The reviewed tool policy, an agent's tool manifest (normalized from whichever shape it came in),
 * and the findings of checking one against the other. docs/policy.md describes the document formats.
 */
import type { JsonValue } from "../json.js";
import type { RuleId } from "./rules.js";

export const APPROVAL_MODES = ["never_require", "always_require"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/**
 * What an unset approval mode means in agent frameworks (Microsoft Agent Framework's @tool, and an
 * OpenAI function tool, which has no approval at all): the tool runs without asking. This is why an
 * unset mode is compared as this value and never skipped.
 */
export const DEFAULT_APPROVAL_MODE: ApprovalMode = "never_require";

/**
 * The per-tool form used for MCP servers: some tools always need approval, some never. A tool in
 * both lists needs approval; a tool in neither falls back to the client's default.
 */
interface ApprovalLists {
  always_require: readonly string[];
  never_require: readonly string[];
}

/** One mode for every tool of a server, or the per-tool form. */
export type ApprovalSpec = ApprovalMode | ApprovalLists;

// ---------------------------------------------------------------------------------------------
// Policy

export interface PolicyMcpServer {
  /** The reviewed filter: exactly these server tools may reach the model. */
  allowed_tools: readonly string[];
  /** Reviewed approval; null means none was written, which reads as the default (never_require). */
  approval: ApprovalSpec | null;
  /**
   * Tools the reviewer has judged read-only although their annotations do not say so (MCP tools
   * without readOnlyHint: true are otherwise treated as writes that must always require approval).
   */
  read_only_tools: readonly string[];
}

export interface ClosedEnumRule {
  parameter: string;
  /** The exact values the enum must have (order ignored), or null when any closed set will do. */
  values: readonly JsonValue[] | null;
}

export interface RequiredWords {
  /** Words every tool's description must contain. */
  every_tool: readonly string[];
  /** Words particular tools' descriptions must contain, in addition. */
  by_tool: ReadonlyMap<string, readonly string[]>;
}

export interface Policy {
  /** The reviewed function tools and their approval modes. */
  tools: ReadonlyMap<string, ApprovalMode>;
  mcp_servers: ReadonlyMap<string, PolicyMcpServer>;
  /** Name prefixes that mark a tool as a write; every matching tool must be always_require. */
  write_verbs: readonly string[];
  min_description_length: number;
  required_description_words: RequiredWords;
  /** Tool name → parameters that must be closed enums. */
  closed_enums: ReadonlyMap<string, readonly ClosedEnumRule[]>;
  /** For the tool-permission metric; null when the policy does not give the list. */
  allowed_tools: readonly string[] | null;
  denied_tools: readonly string[] | null;
}

// ---------------------------------------------------------------------------------------------
// Manifest

/** The MCP behaviour hints a server declares on a tool (MCP spec, ToolAnnotations). */
export interface McpAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

export interface ManifestTool {
  name: string;
  /** null when the tool declares no description at all. */
  description: string | null;
  /** null when the tool leaves the mode unset (it then runs with its client's default). */
  approval_mode: ApprovalMode | null;
  /** The parameters' JSON Schema, or null when none is declared. */
  parameters: JsonValue | null;
  /** MCP annotations for server tools; null for function tools and unannotated server tools. */
  annotations: McpAnnotations | null;
}

export interface ManifestMcpServer {
  name: string;
  /** The client-side filter; null when the connection is unfiltered. */
  allowed_tools: readonly string[] | null;
  approval: ApprovalSpec | null;
  /** What an unset approval silently means for this client, and where that default comes from. */
  default_approval: ApprovalMode;
  default_approval_source: string;
  /** The server's tools/list, when the manifest carries it; null when only the filter is known. */
  tools: readonly ManifestTool[] | null;
}

export interface Manifest {
  /**
   * "agent": the whole agent (its function tools and its MCP servers), so the tool set is checked.
   * "mcp_server": one server's tools/list only; the agent's other tools are simply not in view.
   */
  scope: "agent" | "mcp_server";
  tools: readonly ManifestTool[];
  mcp_servers: readonly ManifestMcpServer[];
}

export const MANIFEST_FORMATS = ["toolproof", "openai", "mcp"] as const;
export type ManifestFormat = (typeof MANIFEST_FORMATS)[number];

// ---------------------------------------------------------------------------------------------
// Findings

export interface Finding {
  /** A stable rule id (see rules.ts) that a CI log can grep for. */
  rule: RuleId;
  /** The tool concerned; for findings about a whole MCP server, the server's name. */
  tool: string;
  /** A sentence a reviewer understands without reading the policy format. */
  message: string;
  /** The MCP server, for findings about MCP servers and their tools. */
  server?: string;
}

export interface CheckReport {
  passed: boolean;
  findings: Finding[];
}
