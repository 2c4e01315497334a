/**
 * One MCP server as the client sees it: the server's `tools/list` result plus the client's filter.
 *
 * {"server"?: "<name>", "allowed_tools"?: [...], "approval"?: ..., "tools": [<tools/list entries>]}
 *
 * The result may also be the raw JSON-RPC response ({"jsonrpc", "id", "result": {"tools": [...]}}),
 * with "server", "allowed_tools" and "approval" beside "result". The server name and filter may
 * instead come from the caller (CLI flags). With no server name, a policy that reviews exactly one
 * MCP server lends its name (see check-input.ts).
 */
import { readApprovalSpec, UNSET_APPROVAL_SOURCE } from "./approval.js";
import { at, describeValue, isRecord, type ProblemList, readName, readNameList, readObject } from "./fields.js";
import { readList, readMcpTool } from "./manifest-parts.js";
import { DEFAULT_APPROVAL_MODE, type ApprovalSpec, type ManifestMcpServer } from "./types.js";

export interface McpManifestOptions {
  /** The server's name, when not in the document. */
  server?: string;
  /** The client's allowed_tools, when not in the document. */
  allowed_tools?: readonly string[];
}

/** The server with its name still open (null) when neither the document nor the options give one. */
type UnnamedServer = Omit<ManifestMcpServer, "name"> & { name: string | null };

export function readMcpManifest(
  value: unknown,
  path: string,
  problems: ProblemList,
  options: McpManifestOptions,
): UnnamedServer | undefined {
  const root = readObject(value, path, problems, 'an MCP tools/list result ({"tools": [...]})');
  if (!root) return undefined;
  let listHolder = root;
  let listPath = path;
  if (root.tools === undefined && root.result !== undefined) {
    listPath = at(path, "result");
    const result = readObject(root.result, listPath, problems, "the JSON-RPC result of tools/list");
    if (!result) return undefined;
    listHolder = result;
  }
  if (listHolder.tools === undefined) {
    problems.add(at(listPath, "tools"), "required: the server's tools, as returned by tools/list");
    return undefined;
  }
  // A paginated result holds only some of the server's tools; checking a page would miss the rest.
  const cursor = listHolder.nextCursor;
  if (cursor !== undefined && cursor !== null) {
    problems.add(
      at(listPath, "nextCursor"),
      `this tools/list result is one page (nextCursor ${describeValue(cursor)}); follow nextCursor and merge every page's tools before checking`,
    );
  }
  const tools = readList(listHolder.tools, at(listPath, "tools"), problems, "the server's tools", (entry, entryPath) =>
    readMcpTool(entry, entryPath, problems),
  );

  const documentName =
    root.server === undefined || root.server === null ? undefined : readName(root.server, at(path, "server"), problems);
  if (documentName !== undefined && options.server !== undefined && documentName !== options.server) {
    problems.add(
      at(path, "server"),
      `the document names server "${documentName}" but "${options.server}" was given separately; give the name once`,
    );
  }
  let allowed: readonly string[] | null | undefined = null;
  if (root.allowed_tools !== undefined && root.allowed_tools !== null) {
    allowed = readNameList(root.allowed_tools, at(path, "allowed_tools"), problems);
    if (options.allowed_tools !== undefined)
      problems.add(
        at(path, "allowed_tools"),
        "allowed_tools is given both in the document and separately; give it once",
      );
  } else if (options.allowed_tools !== undefined) {
    allowed = options.allowed_tools;
  }
  const approval: ApprovalSpec | null | undefined =
    root.approval === undefined || root.approval === null
      ? null
      : readApprovalSpec(root.approval, at(path, "approval"), problems);
  if (!problems.isEmpty || tools === undefined || allowed === undefined || approval === undefined) return undefined;
  return {
    name: documentName ?? options.server ?? null,
    allowed_tools: allowed,
    approval,
    default_approval: DEFAULT_APPROVAL_MODE,
    default_approval_source: UNSET_APPROVAL_SOURCE,
    tools,
  };
}

/** True when a value looks like an MCP tools/list result (used to hint at the right format). */
export function looksLikeMcpResult(value: unknown): boolean {
  const holder = isRecord(value) && isRecord(value.result) ? value.result : value;
  if (!isRecord(holder) || !Array.isArray(holder.tools)) return false;
  const first: unknown = holder.tools[0];
  return isRecord(first) && first.inputSchema !== undefined;
}
