/**
 * toolproof's own manifest shape, which an agent's repository exports from the one place its tool
 * list is assembled:
 *
 * {"tools": [{"name", "description", "approval_mode"?, "parameters"?}],
 *  "mcp_servers"?: [{"name", "allowed_tools"?, "approval"?, "tools"?: [<MCP tools/list entries>]}]}
 *
 * Our own format is strict about unknown fields (a typo such as "aproval_mode" must not read as an
 * unset mode); the MCP tool entries inside it are read as MCP defines them.
 */
import { readApprovalMode, readApprovalSpec, UNSET_APPROVAL_SOURCE } from "./approval.js";
import { at, type ProblemList, readName, readNameList, readObject, refuseUnknownKeys } from "./fields.js";
import { readList, readMcpTool, readOptionalDescription, readOptionalSchema } from "./manifest-parts.js";
import {
  DEFAULT_APPROVAL_MODE,
  type ApprovalSpec,
  type Manifest,
  type ManifestMcpServer,
  type ManifestTool,
} from "./types.js";

const MANIFEST_FIELDS = ["$schema", "tools", "mcp_servers"] as const;
const TOOL_FIELDS = ["name", "description", "approval_mode", "parameters"] as const;
const SERVER_FIELDS = ["name", "allowed_tools", "approval", "tools"] as const;

export function readToolproofManifest(value: unknown, path: string, problems: ProblemList): Manifest | undefined {
  const root = readObject(value, path, problems, 'a toolproof manifest ({"tools": [...], "mcp_servers"?: [...]})');
  if (!root) return undefined;
  refuseUnknownKeys(root, MANIFEST_FIELDS, path, problems);
  if (root.tools === undefined)
    problems.add(at(path, "tools"), "required: the agent's function tools (use [] when it has only MCP servers)");
  const tools =
    root.tools === undefined
      ? undefined
      : readList(root.tools, at(path, "tools"), problems, "the agent's tools", (entry, entryPath) =>
          readFunctionTool(entry, entryPath, problems),
        );
  const servers =
    root.mcp_servers === undefined
      ? []
      : readList(root.mcp_servers, at(path, "mcp_servers"), problems, "the agent's MCP servers", (entry, entryPath) =>
          readServer(entry, entryPath, problems),
        );
  if (!tools || !servers) return undefined;
  return { scope: "agent", tools, mcp_servers: servers };
}

function readFunctionTool(value: unknown, path: string, problems: ProblemList): ManifestTool | undefined {
  const tool = readObject(value, path, problems, 'a tool ({"name", "description", "approval_mode", "parameters"})');
  if (!tool) return undefined;
  refuseUnknownKeys(tool, TOOL_FIELDS, path, problems);
  const name = readName(tool.name, at(path, "name"), problems);
  const description = readOptionalDescription(tool.description, at(path, "description"), problems);
  // null is how exporters write an unset mode (Python's None); it means the same as leaving it out.
  const approval =
    tool.approval_mode === undefined || tool.approval_mode === null
      ? null
      : readApprovalMode(tool.approval_mode, at(path, "approval_mode"), problems);
  const parameters = readOptionalSchema(tool.parameters, at(path, "parameters"), problems);
  if (name === undefined || description === undefined || approval === undefined || parameters === undefined)
    return undefined;
  return { name, description, approval_mode: approval, parameters, annotations: null };
}

function readServer(value: unknown, path: string, problems: ProblemList): ManifestMcpServer | undefined {
  const server = readObject(value, path, problems, 'an MCP server ({"name", "allowed_tools", "approval", "tools"})');
  if (!server) return undefined;
  refuseUnknownKeys(server, SERVER_FIELDS, path, problems);
  const name = readName(server.name, at(path, "name"), problems);
  const allowed =
    server.allowed_tools === undefined || server.allowed_tools === null
      ? null
      : readNameList(server.allowed_tools, at(path, "allowed_tools"), problems);
  const approval: ApprovalSpec | null | undefined =
    server.approval === undefined || server.approval === null
      ? null
      : readApprovalSpec(server.approval, at(path, "approval"), problems);
  const tools =
    server.tools === undefined || server.tools === null
      ? null
      : readList(server.tools, at(path, "tools"), problems, "the server's tools/list entries", (entry, entryPath) =>
          readMcpTool(entry, entryPath, problems),
        );
  if (name === undefined || allowed === undefined || approval === undefined || tools === undefined) return undefined;
  return {
    name,
    allowed_tools: allowed,
    approval,
    default_approval: DEFAULT_APPROVAL_MODE,
    default_approval_source: UNSET_APPROVAL_SOURCE,
    tools,
  };
}
