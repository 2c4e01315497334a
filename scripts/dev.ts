/**
 * `npm run dev`: `wrangler dev` with live reload, on the same state directory as `npm start`
 * (wrangler's `--persist-to`), after the same preparation: migrations, the demo tenant and key,
 * and (once wrangler answers) the demo tools. Every request pays for wrangler's dev proxy here;
 * use `npm start` for agents and benchmarks.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { banner } from "./local/banner.js";
import { openLocalDatabase } from "./local/database.js";
import { type DemoCredentials, ensureDemoTenant } from "./local/demo-tenant.js";
import { ensureDeploymentSecret } from "./local/deployment-secret.js";
import { resolveStateDir, WRANGLER_CONFIG } from "./local/paths.js";
import { seedDemoSuite, seedDemoTools, type SeededSuite, type SeededTool } from "./local/seed-demo.js";
import { isLoopback, serverArgsOrExit, serverHelp } from "./local/server-args.js";
import { lockStateDir } from "./local/state-lock.js";
import { USAGE_EXIT_CODE, UsageError } from "./local/usage-error.js";
import { wranglerBin } from "./local/wrangler-api.js";
import { readWorkerConfig } from "./local/wrangler-config.js";
import { messageOf } from "../src/core/message-of.js";

const HELP = serverHelp(
  "npm run dev",
  `Runs toolproof under wrangler dev (live reload, dev proxy) on the local state of npm start,
after applying migrations and ensuring the demo tenant, key and tools.`,
);

/** How long wrangler dev may take to answer its first request (bundling, workerd start). */
const READY_TIMEOUT_MS = 120_000;

async function main(): Promise<void> {
  const args = serverArgsOrExit(HELP);
  if (!args) return;
  if (args.port === 0)
    throw new UsageError("--port", "npm run dev needs a fixed port (wrangler dev does not report a picked one)");
  if (!isLoopback(args.host)) console.warn(`warning: listening on ${args.host}, reachable beyond this machine.`);

  const stateDir = resolveStateDir(args.stateDir);
  await mkdir(stateDir, { recursive: true });
  // Held until this process exits (the lock removes itself then), like npm start's.
  lockStateDir(stateDir, `npm run dev on ${args.host}:${args.port}`);
  const config = await readWorkerConfig(WRANGLER_CONFIG);
  // Prepare the database before wrangler opens it, so only one process migrates.
  const database = await openLocalDatabase(stateDir, config);
  let demo: DemoCredentials;
  try {
    if (database.applied.length > 0) console.log(`Applied migrations: ${database.applied.join(", ")}`);
    demo = await ensureDemoTenant(database.db, stateDir);
  } finally {
    await database.close();
  }

  // The same deployment secret as npm start's, from a file (never on the command line, where ps would show it).
  const secret = await ensureDeploymentSecret(stateDir);
  const child = spawn(
    process.execPath,
    [
      wranglerBin(),
      "dev",
      "--config",
      WRANGLER_CONFIG,
      "--persist-to",
      stateDir,
      "--ip",
      args.host,
      "--port",
      String(args.port),
      "--env-file",
      secret.file,
    ],
    { stdio: "inherit", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

  const url = `http://${args.host.includes(":") && !args.host.startsWith("[") ? `[${args.host}]` : args.host}:${args.port}`;
  if (!(await waitForHealth(url, READY_TIMEOUT_MS))) {
    console.error(
      `wrangler dev did not answer ${url}/health within ${READY_TIMEOUT_MS / 1000} s; the demo tools were not seeded.`,
    );
    return;
  }
  let demoTools: SeededTool[] = [];
  let demoSuite: SeededSuite | undefined;
  let seedError: string | undefined;
  if (args.seedDemo) {
    try {
      demoTools = await seedDemoTools(url, demo.key);
      demoSuite = await seedDemoSuite(url, demo.key);
    } catch (error) {
      seedError = messageOf(error);
    }
  }
  console.log(
    banner({
      url,
      stateDir,
      demoKey: demo.key,
      demoTools,
      demoSuite,
      seedError,
      servedBy: "wrangler dev, live reload",
    }),
  );
}

async function waitForHealth(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/health`);
      await response.body?.cancel();
      if (response.ok) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`error: ${error.message}`);
    process.exit(USAGE_EXIT_CODE);
  }
  console.error(`npm run dev could not start: ${messageOf(error)}`);
  process.exit(1);
});
