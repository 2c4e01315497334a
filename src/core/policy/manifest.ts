/**
 * One entry point for every manifest shape: reads the document in the named format into a
 * Manifest, or answers every problem with its JSON Pointer. When a document clearly has another
 * shape than the one named, the problem says which format to name instead.
 */
import type { Problem } from "../json.js";
import { isRecord, ProblemList } from "./fields.js";
import { looksLikeMcpResult, readMcpManifest, type McpManifestOptions } from "./manifest-mcp.js";
import { readOpenAiManifest } from "./manifest-openai.js";
import { readToolproofManifest } from "./manifest-toolproof.js";
import type { Manifest, ManifestFormat, Policy } from "./types.js";

export interface ManifestOptions extends McpManifestOptions {
  /** Which shape the document has; toolproof's own when not given. */
  format?: ManifestFormat;
}

export type ManifestRead = { ok: true; manifest: Manifest } | { ok: false; problems: Problem[] };

/**
 * Reads a manifest. The policy is needed only to name an MCP server left unnamed: a policy that
 * reviews exactly one MCP server lends its name.
 */
export function readManifest(value: unknown, policy: Policy, options: ManifestOptions = {}): ManifestRead {
  const format = options.format ?? "toolproof";
  const problems = new ProblemList();
  const hint = formatHint(value, format);
  if (hint) return { ok: false, problems: [{ path: "", message: hint }] };

  if (format === "toolproof") {
    const manifest = readToolproofManifest(value, "", problems);
    return manifest && problems.isEmpty ? { ok: true, manifest } : { ok: false, problems: problems.items };
  }
  if (format === "openai") {
    const manifest = readOpenAiManifest(value, "", problems);
    return manifest && problems.isEmpty ? { ok: true, manifest } : { ok: false, problems: problems.items };
  }
  const server = readMcpManifest(value, "", problems, options);
  if (!server || !problems.isEmpty) return { ok: false, problems: problems.items };
  let name = server.name;
  if (name === null) {
    const reviewed = [...policy.mcp_servers.keys()];
    if (reviewed.length !== 1 || reviewed[0] === undefined) {
      const which =
        reviewed.length === 0
          ? "the policy reviews no MCP servers"
          : `the policy reviews ${reviewed.length}: ${reviewed.join(", ")}`;
      return {
        ok: false,
        problems: [
          { path: "/server", message: `required: the name of the MCP server this tools/list came from (${which})` },
        ],
      };
    }
    name = reviewed[0];
  }
  return { ok: true, manifest: { scope: "mcp_server", tools: [], mcp_servers: [{ ...server, name }] } };
}

function formatHint(value: unknown, format: ManifestFormat): string | undefined {
  if (format === "toolproof") {
    if (Array.isArray(value))
      return 'expected a toolproof manifest object ({"tools": [...]}), got an array; an OpenAI tools array needs format "openai"';
    if (looksLikeMcpResult(value))
      return 'this looks like an MCP tools/list result (its tools have "inputSchema"); use format "mcp"';
    if (isRecord(value) && Array.isArray(value.tools)) {
      const first: unknown = value.tools[0];
      if (isRecord(first) && typeof first.type === "string")
        return `this looks like an OpenAI tools array (its tools have "type": ${JSON.stringify(first.type)}); use format "openai"`;
    }
  }
  if (format === "mcp" && Array.isArray(value))
    return 'expected an MCP tools/list result ({"tools": [...]}), got an array; an OpenAI tools array needs format "openai"';
  return undefined;
}
