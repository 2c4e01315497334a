/**
 * `npm start`: toolproof on the local Workers runtime (see scripts/local-server.ts), with the
 * demo tenant, key and tools, until Ctrl-C or SIGTERM.
 */
import os from "node:os";
import { banner } from "./local/banner.js";
import { isLoopback, serverArgsOrExit, serverHelp } from "./local/server-args.js";
import { startToolproof } from "./local-server.js";
import { messageOf } from "../src/core/message-of.js";

const HELP = serverHelp(
  "npm start",
  `Serves toolproof on the local Workers runtime (workerd through Miniflare, no dev proxy) with
local D1 and Durable Objects, applies migrations, and seeds a demo tenant, key and tools.`,
);

async function main(): Promise<void> {
  const args = serverArgsOrExit(HELP);
  if (!args) return;
  if (!isLoopback(args.host)) {
    console.warn(
      `warning: listening on ${args.host}, reachable beyond this machine; the demo key is for local development only.`,
    );
  }

  // Miniflare's own exit hook answers SIGINT/SIGTERM by killing workerd and exiting 130/143 at
  // once, so nothing asynchronous can run after a signal. This handler goes first and exits
  // itself: 0 once the server runs (a requested stop is not a failure, and npm then prints no
  // error), 128+n while still starting. Exiting still runs Miniflare's exit hook, which stops
  // workerd, and ours, which removes the build directory.
  let running = false;
  const stop = (signal: NodeJS.Signals) => {
    console.log(`\n${signal}: toolproof stopped.`);
    process.exit(running ? 0 : 128 + (os.constants.signals[signal] ?? 0));
  };
  process.prependListener("SIGINT", stop);
  process.prependListener("SIGTERM", stop);

  const server = await startToolproof(args);
  running = true;
  stopWhenOrphaned();
  console.log(
    banner({
      url: server.url,
      stateDir: server.stateDir,
      demoKey: server.demoKey,
      demoTools: server.demoTools,
      demoSuite: server.demoSuite,
      seedError: server.seedError,
      servedBy: "Workers runtime via Miniflare, no dev proxy",
    }),
  );
}

/**
 * `npm start` runs this script under npm and a shell. A SIGTERM sent to npm alone (a process
 * manager stopping "npm start") ends npm, but the shell in between does not pass it on, which
 * would leave this server running, holding its port, with no parent. So a changed parent means
 * the session that started us is gone, and we stop.
 */
function stopWhenOrphaned(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) {
      console.log("\nThe process that started toolproof has gone: toolproof stopped.");
      process.exit(0);
    }
  }, 1000).unref();
}

main().catch((error: unknown) => {
  console.error(`toolproof could not start: ${messageOf(error)}`);
  process.exit(1);
});
