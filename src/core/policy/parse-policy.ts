/**
 * Reads a policy document (already parsed from JSON or YAML) into a Policy, reporting every
 * problem at once with the JSON Pointer of its field. Unknown fields are refused: a misspelt rule
 * would otherwise pass review and then never run.
 */
import { jsonEqual, type JsonValue, type Problem } from "../json.js";
import { readApprovalMode, readApprovalSpec } from "./approval.js";
import {
  at,
  describeValue,
  isJsonValue,
  isRecord,
  ProblemList,
  readName,
  readNameList,
  readObject,
  readString,
  refuseUnknownKeys,
} from "./fields.js";
import type { ApprovalMode, ApprovalSpec, ClosedEnumRule, Policy, PolicyMcpServer, RequiredWords } from "./types.js";

/**
 * Applied when a policy does not list write verbs: the prefixes of state-changing tools named in the
 * issue and the seed. A policy that forgets the field keeps the rule; `"write_verbs": []` turns it off.
 */
export const DEFAULT_WRITE_VERBS: readonly string[] = ["place_", "release_", "create_", "send_", "delete_", "update_"];
export const DEFAULT_MIN_DESCRIPTION_LENGTH = 20;
const MAX_DESCRIPTION_LENGTH_SETTING = 10_000;

const POLICY_FIELDS = [
  "$schema",
  "tools",
  "mcp_servers",
  "write_verbs",
  "min_description_length",
  "required_description_words",
  "closed_enums",
  "allowed_tools",
  "denied_tools",
] as const;
const SERVER_FIELDS = ["allowed_tools", "approval", "read_only_tools"] as const;

export type PolicyParse = { ok: true; policy: Policy } | { ok: false; problems: Problem[] };

export function parsePolicy(document: unknown): PolicyParse {
  const problems = new ProblemList();
  const root = readObject(document, "", problems, "a policy document");
  if (!root) return { ok: false, problems: problems.items };
  refuseUnknownKeys(root, POLICY_FIELDS, "", problems);
  if (root.$schema !== undefined) readString(root.$schema, "/$schema", problems);

  const tools = readTools(root.tools, problems);
  const mcpServers =
    root.mcp_servers === undefined ? new Map<string, PolicyMcpServer>() : readServers(root.mcp_servers, problems);
  const writeVerbs =
    root.write_verbs === undefined ? DEFAULT_WRITE_VERBS : readNameList(root.write_verbs, "/write_verbs", problems);
  const minLength =
    root.min_description_length === undefined
      ? DEFAULT_MIN_DESCRIPTION_LENGTH
      : readMinLength(root.min_description_length, problems);

  // Rules keyed by tool name must name a tool the policy reviews, or a typo would disable them.
  const reviewed = new Set<string>(tools?.keys() ?? []);
  for (const server of mcpServers?.values() ?? []) for (const name of server.allowed_tools) reviewed.add(name);
  const checkReviewed = tools !== undefined && mcpServers !== undefined;

  const words =
    root.required_description_words === undefined
      ? { every_tool: [], by_tool: new Map() }
      : readRequiredWords(root.required_description_words, reviewed, checkReviewed, problems);
  const closedEnums =
    root.closed_enums === undefined
      ? new Map<string, ClosedEnumRule[]>()
      : readClosedEnums(root.closed_enums, reviewed, checkReviewed, problems);
  const allowed =
    root.allowed_tools === undefined ? null : readNameList(root.allowed_tools, "/allowed_tools", problems);
  const denied = root.denied_tools === undefined ? null : readNameList(root.denied_tools, "/denied_tools", problems);

  if (
    !problems.isEmpty ||
    !tools ||
    !mcpServers ||
    !writeVerbs ||
    minLength === undefined ||
    !words ||
    !closedEnums ||
    allowed === undefined ||
    denied === undefined
  ) {
    return { ok: false, problems: problems.items };
  }
  return {
    ok: true,
    policy: {
      tools,
      mcp_servers: mcpServers,
      write_verbs: writeVerbs,
      min_description_length: minLength,
      required_description_words: words,
      closed_enums: closedEnums,
      allowed_tools: allowed,
      denied_tools: denied,
    },
  };
}

function readTools(value: unknown, problems: ProblemList): Map<string, ApprovalMode> | undefined {
  if (value === undefined) {
    problems.add(
      "/tools",
      'required: the reviewed tools as {"<tool name>": "never_require" | "always_require"} (use {} when the agent has only MCP tools)',
    );
    return undefined;
  }
  const object = readObject(
    value,
    "/tools",
    problems,
    'the reviewed tools, {"<tool name>": "never_require" | "always_require"}',
  );
  if (!object) return undefined;
  const tools = new Map<string, ApprovalMode>();
  for (const [name, mode] of Object.entries(object)) {
    const checkedName = readName(name, at("/tools", name), problems);
    const checkedMode = readApprovalMode(mode, at("/tools", name), problems);
    if (checkedName !== undefined && checkedMode !== undefined) tools.set(checkedName, checkedMode);
  }
  return tools;
}

function readServers(value: unknown, problems: ProblemList): Map<string, PolicyMcpServer> | undefined {
  const object = readObject(
    value,
    "/mcp_servers",
    problems,
    'the reviewed MCP servers, {"<server>": {"allowed_tools": [...]}}',
  );
  if (!object) return undefined;
  const servers = new Map<string, PolicyMcpServer>();
  for (const [name, entry] of Object.entries(object)) {
    const path = at("/mcp_servers", name);
    readName(name, path, problems);
    const server = readObject(entry, path, problems, `the review of MCP server "${name}"`);
    if (!server) continue;
    refuseUnknownKeys(server, SERVER_FIELDS, path, problems);
    if (server.allowed_tools === undefined) {
      problems.add(
        at(path, "allowed_tools"),
        "required: the reviewed list of this server's tools that may reach the model",
      );
      continue;
    }
    const allowed = readNameList(server.allowed_tools, at(path, "allowed_tools"), problems);
    const approval: ApprovalSpec | null | undefined =
      server.approval === undefined ? null : readApprovalSpec(server.approval, at(path, "approval"), problems);
    const readOnly =
      server.read_only_tools === undefined
        ? []
        : readNameList(server.read_only_tools, at(path, "read_only_tools"), problems);
    if (!allowed || approval === undefined || !readOnly) continue;
    // Names outside allowed_tools can never apply: almost certainly a typo of an allowed name.
    const outside = (list: readonly string[], field: string): void => {
      list.forEach((tool, index) => {
        if (!allowed.includes(tool))
          problems.add(at(path, ...field.split("/"), index), `"${tool}" is not in this server's allowed_tools`);
      });
    };
    if (approval !== null && typeof approval !== "string") {
      outside(approval.always_require, "approval/always_require");
      outside(approval.never_require, "approval/never_require");
    }
    outside(readOnly, "read_only_tools");
    servers.set(name, { allowed_tools: allowed, approval, read_only_tools: readOnly });
  }
  return servers;
}

function readMinLength(value: unknown, problems: ProblemList): number | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_DESCRIPTION_LENGTH_SETTING)
    return value;
  problems.add(
    "/min_description_length",
    `expected a whole number of characters from 0 to ${MAX_DESCRIPTION_LENGTH_SETTING}, got ${describeValue(value)}`,
  );
  return undefined;
}

function readRequiredWords(
  value: unknown,
  reviewed: ReadonlySet<string>,
  checkReviewed: boolean,
  problems: ProblemList,
): RequiredWords | undefined {
  const path = "/required_description_words";
  if (Array.isArray(value)) {
    const words = readWords(value, path, problems);
    return words ? { every_tool: words, by_tool: new Map() } : undefined;
  }
  if (!isRecord(value)) {
    problems.add(
      path,
      `expected an array of words every description must contain, or {"<tool>": [words]}, got ${describeValue(value)}`,
    );
    return undefined;
  }
  const byTool = new Map<string, readonly string[]>();
  for (const [tool, list] of Object.entries(value)) {
    if (checkReviewed && !reviewed.has(tool))
      problems.add(at(path, tool), `"${tool}" is not a tool this policy reviews`);
    const words = readWords(list, at(path, tool), problems);
    if (words) byTool.set(tool, words);
  }
  return { every_tool: [], by_tool: byTool };
}

function readWords(value: unknown, path: string, problems: ProblemList): string[] | undefined {
  if (!Array.isArray(value)) {
    problems.add(path, `expected an array of words, got ${describeValue(value)}`);
    return undefined;
  }
  const words: string[] = [];
  value.forEach((item, index) => {
    const word = readString(item, at(path, index), problems, { nonEmpty: true, maxLength: 200 });
    if (word !== undefined) words.push(word.trim());
  });
  return words.length === value.length ? words : undefined;
}

function readClosedEnums(
  value: unknown,
  reviewed: ReadonlySet<string>,
  checkReviewed: boolean,
  problems: ProblemList,
): Map<string, ClosedEnumRule[]> | undefined {
  const object = readObject(
    value,
    "/closed_enums",
    problems,
    'closed-enum parameters, {"<tool>": ["<parameter>", ...] or {"<parameter>": [values]}}',
  );
  if (!object) return undefined;
  const rules = new Map<string, ClosedEnumRule[]>();
  for (const [tool, entry] of Object.entries(object)) {
    const path = at("/closed_enums", tool);
    if (checkReviewed && !reviewed.has(tool)) problems.add(path, `"${tool}" is not a tool this policy reviews`);
    if (Array.isArray(entry)) {
      const parameters = readNameList(entry, path, problems);
      if (parameters)
        rules.set(
          tool,
          parameters.map((parameter) => ({ parameter, values: null })),
        );
      continue;
    }
    if (!isRecord(entry)) {
      problems.add(
        path,
        `expected an array of parameter names or {"<parameter>": [values]}, got ${describeValue(entry)}`,
      );
      continue;
    }
    const toolRules: ClosedEnumRule[] = [];
    for (const [parameter, values] of Object.entries(entry)) {
      const valuesPath = at(path, parameter);
      readName(parameter, valuesPath, problems);
      const checked = readEnumValues(values, valuesPath, problems);
      if (checked) toolRules.push({ parameter, values: checked });
    }
    rules.set(tool, toolRules);
  }
  return rules;
}

function readEnumValues(value: unknown, path: string, problems: ProblemList): JsonValue[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    problems.add(
      path,
      `expected a non-empty array of the enum's values, got ${Array.isArray(value) ? "an empty array" : describeValue(value)}`,
    );
    return undefined;
  }
  if (!value.every(isJsonValue)) {
    problems.add(path, "expected JSON values");
    return undefined;
  }
  const values: JsonValue[] = value;
  for (let i = 0; i < values.length; i++) {
    for (let j = 0; j < i; j++) {
      if (jsonEqual(values[i], values[j])) {
        problems.add(at(path, i), `duplicate value ${describeValue(values[i])} (already at ${at(path, j)})`);
        return undefined;
      }
    }
  }
  return values;
}
