/**
 * `toolproof policy check`: the same core check the service runs, on local files. Exit 0 when the
 * manifest matches the policy, 1 with findings, 2 when a file or flag cannot be used.
 */
import { checkManifest } from "../core/policy/check.js";
import { readManifest } from "../core/policy/manifest.js";
import { parsePolicy } from "../core/policy/parse-policy.js";
import { MANIFEST_FORMATS, type ManifestFormat } from "../core/policy/types.js";
import { displayName, documentProblems, loadDocument } from "./documents.js";
import { nameList, parseFlags, requireFlag } from "./flags.js";
import { POLICY_CHECK_HELP } from "./help.js";
import { EXIT_FAILED, EXIT_OK, UnusableInput, type CliIo } from "./io.js";
import { renderCheck } from "./render.js";

const COMMAND = "policy check";

export async function policyCheckCommand(args: string[], io: CliIo): Promise<number> {
  const flags = parseFlags(
    args,
    {
      policy: { type: "string" },
      manifest: { type: "string" },
      format: { type: "string" },
      server: { type: "string" },
      "allowed-tools": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    COMMAND,
  );
  if (flags.help) {
    io.out(POLICY_CHECK_HELP);
    return EXIT_OK;
  }
  const policyPath = requireFlag(flags.policy, "--policy <file>", "the reviewed policy to check against", COMMAND);
  const manifestPath = requireFlag(flags.manifest, "--manifest <file>", "the agent's tool manifest to check", COMMAND);
  const format = manifestFormat(flags.format);
  if (format !== "mcp" && (flags.server !== undefined || flags["allowed-tools"] !== undefined)) {
    throw new UnusableInput(
      "command line",
      `--server and --allowed-tools describe an MCP tools/list manifest; add --format mcp`,
    );
  }

  const policy = parsePolicy(await loadDocument(io, policyPath, "policy"));
  if (!policy.ok) throw documentProblems(policyPath, "policy", policy.problems);
  const manifest = readManifest(await loadDocument(io, manifestPath, "manifest"), policy.policy, {
    format,
    ...(flags.server === undefined ? {} : { server: flags.server }),
    ...(flags["allowed-tools"] === undefined ? {} : { allowed_tools: nameList(flags["allowed-tools"]) }),
  });
  if (!manifest.ok) throw documentProblems(manifestPath, "manifest", manifest.problems);

  const report = checkManifest(policy.policy, manifest.manifest);
  const context = { policy: displayName(policyPath), manifest: displayName(manifestPath), format };
  // File names under *_file keys: the API's "policy" field is {name, version}, and one key should mean one thing.
  const json = { ...report, policy_file: context.policy, manifest_file: context.manifest, format };
  io.out(flags.json ? `${JSON.stringify(json, null, 2)}\n` : renderCheck(report, context));
  return report.passed ? EXIT_OK : EXIT_FAILED;
}

function manifestFormat(value: string | undefined): ManifestFormat {
  if (value === undefined) return "toolproof";
  const format = MANIFEST_FORMATS.find((candidate) => candidate === value);
  if (!format)
    throw new UnusableInput(
      "--format",
      `--format: expected one of ${MANIFEST_FORMATS.join(", ")}, got ${JSON.stringify(value)}`,
    );
  return format;
}
