/** The CLI's help texts, kept together so the wording of the commands stays consistent. */
import { RULES } from "../core/policy/rules.js";

export const MAIN_HELP = `toolproof: offline tool-policy checks for AI agents (no server, no network, no model)

Usage:
  toolproof policy check --policy <file> --manifest <file> [options]
  toolproof permission --called <file> (--allowed <names> | --denied <names> | --policy <file>) [options]

Commands:
  policy check   check an agent's tool manifest against the reviewed policy
  permission     score the tools an agent called with the tool-permission metric

Exit codes: 0 clean, 1 findings or a failed metric, 2 unusable input.
Run "toolproof <command> --help" for a command's options. Docs: docs/policy.md
`;

export const POLICY_CHECK_HELP = `Usage: toolproof policy check --policy <file> --manifest <file> [options]

Checks an agent's tool manifest against a reviewed policy and prints every finding at once.

Options:
  --policy <file>         the reviewed policy (JSON, or YAML by .yaml/.yml)
  --manifest <file>       the agent's tool manifest; "-" reads stdin
  --format <format>       the manifest's shape (default toolproof):
                            toolproof  {"tools": [...], "mcp_servers": [...]}
                            openai     an OpenAI tools array (function and mcp tools)
                            mcp        an MCP tools/list result for one server
  --server <name>         with --format mcp: the server's name (default: the policy's
                          only MCP server)
  --allowed-tools <a,b>   with --format mcp: the client's allowed_tools filter
  --json                  print {"passed", "findings", ...} as JSON
  -h, --help              show this help

Exit codes: 0 no findings, 1 findings, 2 unusable input (the message names the file and field).

Rules:
${RULES.map((rule) => `  ${rule.id.padEnd(26)}${rule.summary}`).join("\n")}
`;

export const PERMISSION_HELP = `Usage: toolproof permission --called <file> (--allowed <names> | --denied <names> | --policy <file>) [options]

Scores the tools an agent called: score = authorized calls / all calls (1 when nothing was called).
A call is unauthorized when its tool is denied, or when an allow list exists without it; a denial
beats an allow; repeated calls count each time.

Options:
  --called <file>       the called tools: ["a", "b"], [{"name": "a"}], {"tools_called": [...]} or
                        toolproof attempt evidence {"calls": [...]}; "-" reads stdin
  --allowed <a,b>       the allow list (comma-separated; "" allows nothing)
  --denied <a,b>        the deny list (comma-separated)
  --policy <file>       take allowed_tools and denied_tools from a policy file instead
  --threshold <n>       minimum passing score from 0 to 1 (default 1: any unauthorized call fails)
  --strict              binary score (1 or 0) and threshold 1
  --no-reason           leave out the reason
  --verbose             also print the intermediate steps
  --json                print {"score", "success", "reason", "unauthorized", ...} as JSON
  -h, --help            show this help

Exit codes: 0 success, 1 score below the threshold, 2 unusable input.
`;
