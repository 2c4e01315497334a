/** The options `npm start` and `npm run dev` share: where to listen, where state lives, whether to seed. */
import { parseArgs } from "node:util";
import { fromParseArgsError, integerArgument, USAGE_EXIT_CODE, UsageError } from "./usage-error.js";

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = "127.0.0.1";

export interface ServerArgs {
  port: number;
  host: string;
  stateDir?: string;
  seedDemo: boolean;
}

export function serverHelp(command: string, summary: string): string {
  return `Usage: ${command} -- [options]

${summary}

Options:
  --port <n>         port to listen on (default ${DEFAULT_PORT}, or the PORT environment variable; 0 picks a free one)
  --host <address>   address to listen on (default ${DEFAULT_HOST})
  --state-dir <dir>  local state (default .toolproof/state)
  --no-demo          do not register the demo tools (the demo tenant and key are still ensured)
  -h, --help         show this help
`;
}

/** Throws UsageError naming the bad argument. */
export function parseServerArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ServerArgs | "help" {
  const values = parseOptions(argv);
  if (values.help) return "help";
  const rawPort = values.port ?? env.PORT;
  const port =
    rawPort === undefined
      ? DEFAULT_PORT
      : integerArgument(values.port !== undefined ? "--port" : "PORT", rawPort, 0, 65535);
  const host = values.host ?? DEFAULT_HOST;
  if (host.trim() === "") throw new UsageError("--host", "--host must name an address, e.g. 127.0.0.1");
  const args: ServerArgs = { port, host, seedDemo: !values["no-demo"] };
  const stateDir = values["state-dir"];
  if (stateDir !== undefined) {
    if (stateDir.trim() === "") throw new UsageError("--state-dir", "--state-dir must name a directory");
    args.stateDir = stateDir;
  }
  return args;
}

function parseOptions(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "state-dir": { type: "string" },
        "no-demo": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw fromParseArgsError(error);
  }
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);
}

/**
 * The command line of `npm start` and `npm run dev`: the parsed arguments, or undefined after
 * --help was answered. A bad argument prints the error and the help, then exits 2.
 */
export function serverArgsOrExit(
  help: string,
  argv: readonly string[] = process.argv.slice(2),
): ServerArgs | undefined {
  let args: ServerArgs | "help";
  try {
    args = parseServerArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\n\n${help}`);
    process.exit(USAGE_EXIT_CODE);
  }
  if (args === "help") {
    process.stdout.write(help);
    return undefined;
  }
  return args;
}
