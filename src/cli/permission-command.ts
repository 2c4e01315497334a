/**
 * `toolproof permission`: the tool-permission metric on a saved list of called tools. Exit 0 when
 * the score reaches the threshold, 1 when it does not, 2 when a file or flag cannot be used.
 */
import { parsePolicy } from "../core/policy/parse-policy.js";
import { measureToolPermission, type ToolPermissionOptions } from "../core/policy/permission-metric.js";
import { readCalledTools } from "./called-tools.js";
import { displayName, documentProblems, loadDocument } from "./documents.js";
import { nameList, parseFlags, requireFlag, thresholdFlag } from "./flags.js";
import { PERMISSION_HELP } from "./help.js";
import { EXIT_FAILED, EXIT_OK, UnusableInput, type CliIo } from "./io.js";
import { renderPermission } from "./render.js";

const COMMAND = "permission";

export async function permissionCommand(args: string[], io: CliIo): Promise<number> {
  const flags = parseFlags(
    args,
    {
      called: { type: "string" },
      allowed: { type: "string" },
      denied: { type: "string" },
      policy: { type: "string" },
      threshold: { type: "string" },
      strict: { type: "boolean" },
      "no-reason": { type: "boolean" },
      verbose: { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    COMMAND,
  );
  if (flags.help) {
    io.out(PERMISSION_HELP);
    return EXIT_OK;
  }
  const calledPath = requireFlag(flags.called, "--called <file>", "the tools the agent called", COMMAND);
  const threshold = thresholdFlag(flags.threshold);
  const lists = await permissionLists(io, flags);

  const called = readCalledTools(await loadDocument(io, calledPath, "called-tools"));
  if (!called.ok) throw documentProblems(calledPath, "called-tools", called.problems);

  const options: ToolPermissionOptions = {
    ...lists,
    ...(threshold === undefined ? {} : { threshold }),
    strict_mode: flags.strict ?? false,
    include_reason: !(flags["no-reason"] ?? false),
    verbose_mode: flags.verbose ?? false,
  };
  const outcome = measureToolPermission(options, called.names);
  if (!outcome.ok) {
    // Thresholds are checked above and lists are present by construction; this is the remaining guard.
    throw new UnusableInput(
      "command line",
      outcome.problems.map((problem) => `${problem.path}: ${problem.message}`).join("; "),
    );
  }
  const result = outcome.result;
  io.out(
    flags.json
      ? `${JSON.stringify(result, null, 2)}\n`
      : renderPermission(result, { called: displayName(calledPath), strict: options.strict_mode ?? false }),
  );
  return result.success ? EXIT_OK : EXIT_FAILED;
}

async function permissionLists(
  io: CliIo,
  flags: { allowed?: string | undefined; denied?: string | undefined; policy?: string | undefined },
): Promise<Pick<ToolPermissionOptions, "allowed_tools" | "denied_tools">> {
  if (flags.policy !== undefined) {
    if (flags.allowed !== undefined || flags.denied !== undefined) {
      throw new UnusableInput(
        "command line",
        "give the lists either with --allowed/--denied or with --policy, not both",
      );
    }
    const parsed = parsePolicy(await loadDocument(io, flags.policy, "policy"));
    if (!parsed.ok) throw documentProblems(flags.policy, "policy", parsed.problems);
    const { allowed_tools, denied_tools } = parsed.policy;
    if (allowed_tools === null && denied_tools === null) {
      throw new UnusableInput(
        displayName(flags.policy),
        `the policy file ${displayName(flags.policy)} has neither allowed_tools nor denied_tools; the permission metric needs at least one`,
        [{ path: "/allowed_tools", message: "required (or /denied_tools) for the permission metric" }],
      );
    }
    return { allowed_tools, denied_tools };
  }
  if (flags.allowed === undefined && flags.denied === undefined) {
    throw new UnusableInput(
      "command line",
      'missing the permission lists: give --allowed <names>, --denied <names> or both (or --policy <file>); run "toolproof permission --help"',
    );
  }
  return {
    allowed_tools: flags.allowed === undefined ? null : nameList(flags.allowed),
    denied_tools: flags.denied === undefined ? null : nameList(flags.denied),
  };
}
