/**
 * `npm start`: toolproof on the local Workers runtime (see scripts/local-server.ts), with the
 * demo tenant, key and tools, until Ctrl-C or SIGTERM.
 */
import { parseArgs } from "node:util";
import { banner } from "./local/banner.js";
import { fromParseArgsError, integerArgument, USAGE_EXIT_CODE, UsageError } from "./local/usage-error.js";
import { DEFAULT_HOST, DEFAULT_PORT, startToolproof, type StartOptions } from "./local-server.js";

const HELP = `Usage: npm start -- [options]

Serves toolproof on the local Workers runtime (workerd through Miniflare, no dev proxy) with
local D1 and Durable Objects, applies migrations, and seeds a demo tenant, key and tools.

Options:
  --port <n>         port to listen on (default ${DEFAULT_PORT}, or the PORT environment variable; 0 picks a free one)
  --host <address>   address to listen on (default ${DEFAULT_HOST})
  --state-dir <dir>  local state (default .toolproof/state)
  --no-demo          do not register the demo tools (the demo tenant and key are still ensured)
  -h, --help         show this help
`;

function parse(argv: string[]): StartOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "state-dir": { type: "string" },
      "no-demo": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return "help";
  const options: StartOptions = { seedDemo: !values["no-demo"] };
  const port = values.port ?? process.env.PORT;
  if (port !== undefined) options.port = integerArgument(values.port !== undefined ? "--port" : "PORT", port, 0, 65535);
  if (values.host !== undefined) {
    if (values.host.trim() === "") throw new UsageError("--host", "--host must name an address, e.g. 127.0.0.1");
    options.host = values.host;
  }
  if (values["state-dir"] !== undefined) {
    if (values["state-dir"].trim() === "") throw new UsageError("--state-dir", "--state-dir must name a directory");
    options.stateDir = values["state-dir"];
  }
  return options;
}

async function main(): Promise<void> {
  let options: StartOptions | "help";
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    const usage = fromParseArgsError(error);
    if (usage instanceof UsageError) {
      console.error(`error: ${usage.message}\n\n${HELP}`);
      process.exit(USAGE_EXIT_CODE);
    }
    throw usage;
  }
  if (options === "help") {
    process.stdout.write(HELP);
    return;
  }

  const host = options.host ?? DEFAULT_HOST;
  if (!isLoopback(host)) {
    console.warn(`warning: listening on ${host}, reachable beyond this machine; the demo key is for local development only.`);
  }
  const server = await startToolproof(options);
  console.log(
    banner({
      url: server.url,
      stateDir: server.stateDir,
      demoKey: server.demoKey,
      demoTools: server.demoTools,
      seedError: server.seedError,
      servedBy: "Workers runtime via Miniflare, no dev proxy",
    }),
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C while stopping: the user wants out now.
      process.exit(130);
    }
    stopping = true;
    console.log(`\n${signal}: stopping toolproof…`);
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("error while stopping:", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);
}

main().catch((error: unknown) => {
  console.error(`toolproof could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
