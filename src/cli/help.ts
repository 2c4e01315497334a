/** The CLI's help texts, kept together so the wording of the commands stays consistent. */
import { RULES } from "../core/policy/rules.js";

export const MAIN_HELP = `toolproof: tool-policy checks for AI agents (offline), and the behavioural eval gate (against a toolproof service)

Usage:
  toolproof policy check --policy <file> --manifest <file> [options]
  toolproof permission --called <file> (--allowed <names> | --denied <names> | --policy <file>) [options]
  toolproof eval run --suite <name> [--runs N] [--label L] [--wait] [--timeout 30m] [--junit FILE] [--summary FILE] [--json]
  toolproof eval show <run> [--junit FILE] [--summary FILE] [--json]
  toolproof suite push <file> [--name <name>] [--json]
  toolproof bootstrap --url <deployment> [--tenant <name>] [--token-env NAME] [--json]

Commands:
  policy check   check an agent's tool manifest against the reviewed policy (no server, no model)
  permission     score the tools an agent called with the tool-permission metric (no server)
  eval run       run a stored suite on the service and gate on its verdict
  eval show      print a run, with its JUnit and step summary
  suite push     save a suite file (YAML or JSON) on the service
  bootstrap      mint a deployment's first API key (token from TOOLPROOF_BOOTSTRAP_TOKEN)

The eval and suite commands reach the service with --url and --key, or TOOLPROOF_URL and
TOOLPROOF_API_KEY.

Exit codes: 0 clean (the gate passed), 1 findings, a failed metric or a failed gate (or a refused
suite), 2 unusable input, and for eval: an errored or uncalibrated run, a timeout, an unreachable
service. Run "toolproof <command> --help" for a command's options. Docs: docs/policy.md, docs/ci.md
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

const SERVICE_OPTIONS = `  --url <url>             the toolproof service (default: TOOLPROOF_URL)
  --key <key>             an API key with AIManager:RunEvals (default: TOOLPROOF_API_KEY)`;

const REPORT_OPTIONS = `  --junit <file>          write JUnit XML: a testsuite per scenario, a testcase per repetition
  --summary <file>        append a Markdown summary (use "$GITHUB_STEP_SUMMARY" on GitHub Actions)
  --json                  print {"conclusion", "exit_code", "run"} as JSON instead of the table`;

const EVAL_EXIT_CODES = `Exit codes: 0 the gate passed, 1 the gate failed (a forbidden call, or a pass rate below the
gate), 2 anything that is not a verdict: an errored or uncalibrated run, a cancelled one, a
timeout, a refused start, an unreachable service or bad usage.`;

export const EVAL_RUN_HELP = `Usage: toolproof eval run --suite <name> [options]

Starts a run of a stored suite (POST /api/suites/:name/runs). With --wait, follows it until it ends
(progress on stderr: a redrawn bar on a terminal, one line per finished scenario otherwise), then
prints the per-scenario table and the verdict, and exits with it. Without --wait, prints the run's
id and address and exits 0.

Options:
  --suite <name>          the suite to run (saved with "toolproof suite push" or PUT /api/suites/:name)
  --runs <n>              repetitions per scenario for this run (default: the suite's runs_per_scenario)
  --label <label>         a name for the run (a PR number, "nightly")
  --wait                  wait for the verdict and exit with it
  --timeout <duration>    with --wait: stop waiting after this long (default 30m; 90s, 2h, 500ms)
${REPORT_OPTIONS}
${SERVICE_OPTIONS}
  -h, --help              show this help

${EVAL_EXIT_CODES}
`;

export const EVAL_SHOW_HELP = `Usage: toolproof eval show <run> [options]

Prints a run (GET /api/runs/:id) the way "eval run --wait" does, and exits with its verdict.

Options:
${REPORT_OPTIONS}
${SERVICE_OPTIONS}
  -h, --help              show this help

${EVAL_EXIT_CODES} A run still going exits 2.
`;

export const SUITE_PUSH_HELP = `Usage: toolproof suite push <file> [options]

Saves a suite file, YAML or JSON, with PUT /api/suites/:name. The same file again adds no version,
so CI can push it on every build.

Options:
  --name <name>           the suite's name (default: the file name without .yaml, .yml or .json)
  --json                  print the service's answer as JSON
${SERVICE_OPTIONS}
  -h, --help              show this help

Exit codes: 0 saved (or unchanged), 1 refused (every problem is printed with its field), 2 an
unusable file or flag, a rejected key or an unreachable service.
`;

export const EVAL_HELP = `Usage:
  toolproof eval run --suite <name> [options]    run a suite and gate on its verdict
  toolproof eval show <run> [options]            print a run

Run "toolproof eval run --help" or "toolproof eval show --help" for the options. Docs: docs/ci.md
`;

export const SUITE_HELP = `Usage:
  toolproof suite push <file> [options]          save a suite file on the service

Run "toolproof suite push --help" for the options. Docs: docs/ci.md
`;

export const BOOTSTRAP_HELP = `Usage: toolproof bootstrap --url <deployment> [--tenant <name>] [--token-env NAME] [--json]

Mints the first API key of a deployed toolproof (POST /api/bootstrap) and prints it once, with
what to do next. Works only while the deployment has no API key at all.

The bootstrap token (the deployment's TOOLPROOF_BOOTSTRAP_TOKEN secret) is read from the
environment variable TOOLPROOF_BOOTSTRAP_TOKEN, or the one --token-env names; never from a flag,
so it stays out of shell history.

Options:
  --url <url>             the deployment (or TOOLPROOF_URL)
  --tenant <name>         the tenant the key belongs to (default "default")
  --key-name <label>      the key's name (default "bootstrap admin")
  --token-env <NAME>      the environment variable holding the token (default TOOLPROOF_BOOTSTRAP_TOKEN)
  --json                  print the API's answer as JSON
  -h, --help              show this help

Exit codes: 0 the key was minted, 2 anything else (a refused token, bootstrap off, a bad flag).
Docs: README, Deploy
`;
