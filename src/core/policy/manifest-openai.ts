/**
 * An OpenAI `tools` array, as sent to Chat Completions or the Responses API (the bare array, or an
 * object holding it under "tools", such as a saved request body):
 *
 * - function tools, nested `{"type": "function", "function": {name, description, parameters}}`
 *   (Chat Completions) or flat `{"type": "function", name, description, parameters}` (Responses);
 *   an entry with a name and no type (the legacy `functions` list) reads the same way;
 * - remote MCP servers, `{"type": "mcp", "server_label", "allowed_tools", "require_approval"}`;
 * - any other hosted tool (web_search, code_interpreter, ...) counts as a tool named by its type,
 *   so adding one shows up as an unexpected tool.
 *
 * OpenAI function tools carry no approval mode: approval is the application's business, and a tool
 * without one runs unasked, so it is read as never_require unless the entry supplies toolproof's
 * "approval_mode" beside "type". For remote MCP servers OpenAI's own default applies: with
 * require_approval unset, OpenAI asks for approval before every call.
 */
import { readApprovalMode } from "./approval.js";
import { at, describeValue, isRecord, type ProblemList, readName, readNameList, readObject } from "./fields.js";
import { readList, readOptionalDescription, readOptionalSchema } from "./manifest-parts.js";
import type { ApprovalSpec, Manifest, ManifestMcpServer, ManifestTool } from "./types.js";

const OPENAI_MCP_DEFAULT_SOURCE = "with require_approval unset, OpenAI asks for approval before every remote MCP call";

type Entry = { kind: "tool"; tool: ManifestTool } | { kind: "server"; server: ManifestMcpServer };

export function readOpenAiManifest(value: unknown, path: string, problems: ProblemList): Manifest | undefined {
  let list = value;
  let listPath = path;
  if (isRecord(value)) {
    list = value.tools;
    listPath = at(path, "tools");
    if (list === undefined) {
      problems.add(
        listPath,
        'required: an OpenAI manifest is the tools array itself, or an object holding it under "tools"',
      );
      return undefined;
    }
  }
  const entries = readList(list, listPath, problems, "an OpenAI tools array", (entry, entryPath) =>
    readEntry(entry, entryPath, problems),
  );
  if (!entries) return undefined;
  const tools: ManifestTool[] = [];
  const servers: ManifestMcpServer[] = [];
  for (const entry of entries) {
    if (entry.kind === "tool") tools.push(entry.tool);
    else servers.push(entry.server);
  }
  return { scope: "agent", tools, mcp_servers: servers };
}

function readEntry(value: unknown, path: string, problems: ProblemList): Entry | undefined {
  const entry = readObject(value, path, problems, "an OpenAI tool definition");
  if (!entry) return undefined;
  const type = entry.type;
  if (type !== undefined && typeof type !== "string") {
    problems.add(at(path, "type"), `expected a string such as "function" or "mcp", got ${describeValue(type)}`);
    return undefined;
  }
  if (type === "mcp") {
    const server = readMcpEntry(entry, path, problems);
    return server && { kind: "server", server };
  }
  const approval =
    entry.approval_mode === undefined || entry.approval_mode === null
      ? null
      : readApprovalMode(entry.approval_mode, at(path, "approval_mode"), problems);
  if (approval === undefined) return undefined;
  if (type === "function" || type === undefined) {
    // Chat Completions nests the definition under "function"; Responses keeps it flat.
    const nested = entry.function !== undefined;
    const definitionPath = nested ? at(path, "function") : path;
    const definition = nested
      ? readObject(entry.function, definitionPath, problems, "a function definition ({name, description, parameters})")
      : entry;
    if (!definition) return undefined;
    const name = readName(definition.name, at(definitionPath, "name"), problems);
    const description = readOptionalDescription(definition.description, at(definitionPath, "description"), problems);
    const parameters = readOptionalSchema(definition.parameters, at(definitionPath, "parameters"), problems);
    if (name === undefined || description === undefined || parameters === undefined) return undefined;
    return { kind: "tool", tool: { name, description, approval_mode: approval, parameters, annotations: null } };
  }
  // Hosted tools have no function name; their type is the name the policy reviews.
  const name = entry.name === undefined ? type : readName(entry.name, at(path, "name"), problems);
  const description = readOptionalDescription(entry.description, at(path, "description"), problems);
  if (name === undefined || description === undefined) return undefined;
  return { kind: "tool", tool: { name, description, approval_mode: approval, parameters: null, annotations: null } };
}

function readMcpEntry(
  entry: Record<string, unknown>,
  path: string,
  problems: ProblemList,
): ManifestMcpServer | undefined {
  const name = readName(entry.server_label, at(path, "server_label"), problems);
  const allowed = readAllowedTools(entry.allowed_tools, at(path, "allowed_tools"), problems);
  const approval = readRequireApproval(entry.require_approval, at(path, "require_approval"), problems);
  if (name === undefined || allowed === undefined || approval === undefined) return undefined;
  return {
    name,
    allowed_tools: allowed,
    approval,
    default_approval: "always_require",
    default_approval_source: OPENAI_MCP_DEFAULT_SOURCE,
    tools: null,
  };
}

/** `["a", "b"]` or `{"tool_names": [...], "read_only"?: bool}`; without tool names there is no name filter. */
function readAllowedTools(value: unknown, path: string, problems: ProblemList): string[] | null | undefined {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return readNameList(value, path, problems);
  const filter = readObject(value, path, problems, 'allowed tool names, or a filter {"tool_names": [...]}');
  if (!filter) return undefined;
  if (filter.tool_names === undefined || filter.tool_names === null) return null;
  return readNameList(filter.tool_names, at(path, "tool_names"), problems);
}

/** `"always"`, `"never"`, or `{"always": {"tool_names": [...]}, "never": {"tool_names": [...]}}`. */
function readRequireApproval(value: unknown, path: string, problems: ProblemList): ApprovalSpec | null | undefined {
  if (value === undefined || value === null) return null;
  if (value === "always") return "always_require";
  if (value === "never") return "never_require";
  if (!isRecord(value)) {
    problems.add(
      path,
      `expected "always", "never" or {"always": {"tool_names": [...]}, "never": {"tool_names": [...]}}, got ${describeValue(value)}`,
    );
    return undefined;
  }
  const names = (key: "always" | "never"): string[] | undefined => {
    const part = value[key];
    if (part === undefined || part === null) return [];
    const object = readObject(part, at(path, key), problems, 'a tool filter {"tool_names": [...]}');
    if (!object) return undefined;
    if (object.tool_names === undefined || object.tool_names === null) return [];
    return readNameList(object.tool_names, at(path, key, "tool_names"), problems);
  };
  const always = names("always");
  const never = names("never");
  if (always === undefined || never === undefined) return undefined;
  return { always_require: always, never_require: never };
}
