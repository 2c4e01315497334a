/**
 * The toolproof command line: dispatches to a command and maps every outcome to an exit code.
 * bin/toolproof.mjs calls `run` with the process's arguments; tests spawn that bin.
 */
import { bootstrapCommand } from "./bootstrap-command.js";
import { evalRunCommand, evalShowCommand } from "./eval-command.js";
import { EVAL_HELP, MAIN_HELP, POLICY_CHECK_HELP, SUITE_HELP } from "./help.js";
import { EXIT_OK, EXIT_UNUSABLE, processIo, UnusableInput, type CliIo } from "./io.js";
import { permissionCommand } from "./permission-command.js";
import { policyCheckCommand } from "./policy-check-command.js";
import { renderUnusable } from "./render.js";
import { ServiceError } from "./service.js";
import { suitePushCommand } from "./suite-push-command.js";

export async function run(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const args = [...argv];
  try {
    return await dispatch(args, io);
  } catch (error) {
    if (error instanceof UnusableInput) {
      io.err(renderUnusable(error));
      // With --json a pipeline parses stdout, so the error goes there too, in the API's error shape.
      if (args.includes("--json")) {
        io.out(
          `${JSON.stringify({ error: { code: "unusable_input", message: error.message, source: error.source, problems: error.problems } }, null, 2)}\n`,
        );
      }
      return EXIT_UNUSABLE;
    }
    if (error instanceof ServiceError) {
      io.err(renderUnusable(new UnusableInput(error.request, error.message, error.problems)));
      if (args.includes("--json"))
        io.out(
          `${JSON.stringify({ error: { code: error.code ?? "service_error", status: error.status, message: error.message, problems: error.problems } }, null, 2)}\n`,
        );
      return EXIT_UNUSABLE;
    }
    io.err(`toolproof: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_UNUSABLE;
  }
}

async function dispatch(args: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined) {
    io.err(MAIN_HELP);
    return EXIT_UNUSABLE;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    io.out(MAIN_HELP);
    return EXIT_OK;
  }
  if (command === "policy") {
    const [sub, ...subArgs] = rest;
    if (sub === "check") return policyCheckCommand(subArgs, io);
    if (sub === undefined || sub === "--help" || sub === "-h") {
      (sub === undefined ? io.err : io.out)(POLICY_CHECK_HELP);
      return sub === undefined ? EXIT_UNUSABLE : EXIT_OK;
    }
    throw new UnusableInput("command line", `unknown command "policy ${sub}"; did you mean "policy check"?`);
  }
  if (command === "permission") return permissionCommand(rest, io);
  if (command === "bootstrap") return bootstrapCommand(rest, io);
  if (command === "eval")
    return subcommand("eval", rest, { run: evalRunCommand, show: evalShowCommand }, EVAL_HELP, io);
  if (command === "suite") return subcommand("suite", rest, { push: suitePushCommand }, SUITE_HELP, io);
  throw new UnusableInput("command line", `unknown command "${command}"; run "toolproof --help" for the commands`);
}

type Command = (args: string[], io: CliIo) => Promise<number>;

/** `toolproof <group> <sub> ...`: the sub-command, or the group's help (exit 2 when nothing was asked). */
async function subcommand(
  group: string,
  args: string[],
  commands: Record<string, Command>,
  help: string,
  io: CliIo,
): Promise<number> {
  const [sub, ...subArgs] = args;
  if (sub === undefined || sub === "--help" || sub === "-h") {
    (sub === undefined ? io.err : io.out)(help);
    return sub === undefined ? EXIT_UNUSABLE : EXIT_OK;
  }
  const command = commands[sub];
  if (command === undefined)
    throw new UnusableInput(
      "command line",
      `unknown command "${group} ${sub}"; the ${group} commands are ${Object.keys(commands)
        .map((name) => `"${group} ${name}"`)
        .join(", ")}`,
    );
  return command(subArgs, io);
}
