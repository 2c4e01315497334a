/**
 * toolproof on the local Workers runtime, for people (`npm start`), benchmarks and tests.
 *
 * The Worker is bundled as a deploy would bundle it and served by Miniflare's API straight from
 * workerd: no `wrangler dev` proxy sits in front, so throughput is the runtime's, not the dev
 * loop's. Bindings come from wrangler.toml; state lives on disk in wrangler's layout, so
 * `wrangler d1 ... --local --persist-to <state>` and `npm run dev` share it.
 *
 * @example
 * const server = await startToolproof({ port: 0, stateDir: "/tmp/tp", quiet: true });
 * await fetch(`${server.url}/api/tools`, { headers: { authorization: `Bearer ${server.demoKey}` } });
 * await server.stop();
 */
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { bundledModules, bundleWorker } from "./local/bundle.js";
import { prepareDatabase } from "./local/database.js";
import type { Database } from "../src/worker/platform/env.js";
import { ensureDemoTenant } from "./local/demo-tenant.js";
import { ensureDeploymentSecret, SECRET_BINDING } from "./local/deployment-secret.js";
import { createMiniflare, type LocalMiniflare } from "./local/miniflare.js";
import { resolveStateDir, resourcePersistencePath, WRANGLER_CONFIG } from "./local/paths.js";
import { seedDemoSuite, seedDemoTools, type SeededSuite, type SeededTool } from "./local/seed-demo.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "./local/server-args.js";
import { lockStateDir } from "./local/state-lock.js";
import { readWorkerConfig } from "./local/wrangler-config.js";
import { isRecord } from "./local/narrow.js";
import { buildStaticAssets } from "./static-assets.js";
import { messageOf } from "../src/core/message-of.js";

export { DEFAULT_HOST, DEFAULT_PORT } from "./local/server-args.js";

/** The Worker's named entrypoint the HTTP socket serves (src/worker/index.ts). */
const DIRECT_ENTRYPOINT = "DirectHttp";

export interface StartOptions {
  /** 0 lets the OS pick a free port (tests). Default 8787. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default .toolproof/state in the project. */
  stateDir?: string;
  /** No progress lines. */
  quiet?: boolean;
  /** Register the demo tools (default true). */
  seedDemo?: boolean;
  /** Create the demo tenant and its key (default true). false: the database holds no API key, as a fresh deployment (bootstrap tests); demoKey is "". */
  demoTenant?: boolean;
  /** Where progress lines go (default console.log). */
  log?: (line: string) => void;
  /** Default the project's wrangler.toml. */
  configPath?: string;
  /** Worker variables that override wrangler.toml's [vars] and .dev.vars (tests and benchmarks tune the run watchdog with these). */
  vars?: Record<string, string>;
  /** Opens workerd's V8 inspector on this loopback port (the memory probe reads the JS heap through it). */
  inspectorPort?: number;
  /**
   * Also serve the Worker's default entrypoint on a second loopback port (`routedUrl`), which passes
   * every request through Miniflare's asset router as the main socket did before DirectHttp, so a
   * benchmark can compare the two on one server (bench:dispatch-cpu --asset-router).
   */
  routedSocket?: boolean;
  /** Keep every Durable Object loaded however long it idles (Miniflare's unsafePreventEviction): the memory benchmark counts 1,000 live attempts. */
  preventEviction?: boolean;
}

export interface RunningToolproof {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:8787 */
  url: string;
  stateDir: string;
  demoKey: string;
  demoKeyId: string;
  demoTools: SeededTool[];
  /** The local D1 database, through Miniflare's bindings API (benchmarks count what attempts flushed to it). */
  db: Database;
  /** The file holding this state directory's deployment secret (TOOLPROOF_SECRET), made on the first start. */
  secretFile: string;
  /** The demo InvoiceDesk suite, when it could be saved (it needs the demo tools). */
  demoSuite?: SeededSuite;
  /** Why seeding the demo tools failed; the server runs anyway. */
  seedError?: string;
  /** Migrations applied by this start (empty when the database was current). */
  migrationsApplied: string[];
  /** With `routedSocket`: the default entrypoint's URL, through Miniflare's asset router. */
  routedUrl?: string;
  stop(): Promise<void>;
}

export async function startToolproof(options: StartOptions = {}): Promise<RunningToolproof> {
  const log = options.quiet ? () => undefined : (options.log ?? ((line: string) => console.log(line)));
  const stateDir = resolveStateDir(options.stateDir);
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  const configPath = options.configPath ?? WRANGLER_CONFIG;
  await mkdir(stateDir, { recursive: true });
  const lock = lockStateDir(stateDir, `toolproof server on ${host}:${port === 0 ? "(a free port)" : port}`);

  // A fresh build directory per start, so two servers (a test beside a developer's) never share one.
  const buildDir = await mkdtemp(path.join(os.tmpdir(), "toolproof-build-")).catch((error: unknown) => {
    lock.release();
    throw error;
  });
  // Miniflare kills workerd when the process exits, however it exits (its own exit hook); the
  // build directory is ours to remove on the same occasions.
  const removeBuildDir = () => rmSync(buildDir, { recursive: true, force: true });
  process.on("exit", removeBuildDir);
  let miniflare: LocalMiniflare | undefined;
  const cleanUp = async (): Promise<void> => {
    await miniflare?.dispose().catch(() => undefined);
    miniflare = undefined;
    process.removeListener("exit", removeBuildDir);
    await rm(buildDir, { recursive: true, force: true });
    lock.release();
  };

  try {
    // wrangler.toml's [assets] directory must exist before wrangler reads the config.
    buildStaticAssets();
    log("Bundling the Worker (wrangler deploy --dry-run)…");
    // The bundler is a child process; reading the config loads wrangler in this one meanwhile.
    // Both settle before anything is cleaned up, so a failure of one never removes files under the other.
    const [bundled, configRead] = await Promise.allSettled([
      bundleWorker({ configPath, outDir: buildDir }),
      readWorkerConfig(configPath),
    ]);
    if (configRead.status === "rejected") throw configRead.reason;
    if (bundled.status === "rejected") throw bundled.reason;
    const config = configRead.value;
    const modules = await bundledModules(buildDir, config.main);
    // wrangler's module rules were applied while bundling; Miniflare gets the resulting module list.
    const { modulesRules: _rules, ...bindings } = config.workerOptions;
    const secret = await ensureDeploymentSecret(stateDir);
    if (secret.created) log(`Made the deployment secret that seals model connection keys: ${secret.file}`);
    const vars = isRecord(bindings.bindings) ? bindings.bindings : {};
    miniflare = createMiniflare({
      ...bindings,
      ...(options.preventEviction ? { durableObjects: withoutEviction(bindings.durableObjects) } : {}),
      // A secret given some other way (.dev.vars) wins; otherwise the state directory's own.
      // A local instance may call loopback upstreams in real-tools runs (never a deployed one).
      // TOOLPROOF_PUBLIC_URL: where external agents reach this server (the base of their jobs' URLs).
      bindings: {
        [SECRET_BINDING]: secret.secret,
        ...(port === 0 ? {} : { TOOLPROOF_PUBLIC_URL: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}` }),
        TOOLPROOF_ALLOW_LOOPBACK_UPSTREAMS: "1",
        ...vars,
        ...options.vars,
      },
      name: config.name,
      modules,
      modulesRoot: buildDir,
      // Clients reach the Worker through a direct socket, one hop fewer per request than through
      // Miniflare's entry worker (routing, request.cf, pretty error pages: nothing this API needs;
      // measured 2 to 2.5 times the requests/s). The entry stays on a free loopback port, where
      // Miniflare serves its own bindings API (getD1Database).
      // Its entrypoint is DirectHttp (src/worker/index.ts), the default one's handler: the default
      // entrypoint of a Worker with [assets] passes every request through Miniflare's asset router
      // first (three more isolates per request, more CPU than the call itself; docs/simulations.md#performance).
      unsafeDirectSockets: [
        { host, port, entrypoint: DIRECT_ENTRYPOINT },
        ...(options.routedSocket ? [{ host: "127.0.0.1", port: 0 }] : []),
      ],
      host: "127.0.0.1",
      port: 0,
      resourcePersistencePath: resourcePersistencePath(stateDir),
      // No per-request log line: it costs a round trip through this Node process per request.
      logRequests: false,
      ...(options.inspectorPort === undefined ? {} : { inspectorPort: options.inspectorPort }),
    });
    const worker = miniflare;
    const direct = await worker.ready
      .then(() => worker.unsafeGetDirectURL(config.name, DIRECT_ENTRYPOINT))
      .catch((error: unknown) => {
        throw explainStartFailure(error, host, port);
      });
    const url = direct.href.replace(/\/$/, "");
    const routedUrl = options.routedSocket
      ? (await worker.unsafeGetDirectURL(config.name)).href.replace(/\/$/, "")
      : undefined;

    const { db, applied } = await prepareDatabase(miniflare, config, config.name);
    if (applied.length > 0) log(`Applied migrations: ${applied.join(", ")}`);
    const demo = options.demoTenant === false ? { key: "", keyId: "" } : await ensureDemoTenant(db, stateDir);

    let demoTools: SeededTool[] = [];
    let demoSuite: SeededSuite | undefined;
    let seedError: string | undefined;
    if ((options.seedDemo ?? true) && options.demoTenant !== false) {
      try {
        demoTools = await seedDemoTools(url, demo.key);
        demoSuite = await seedDemoSuite(url, demo.key);
      } catch (error) {
        seedError = messageOf(error);
      }
    }

    const running: RunningToolproof = {
      url,
      stateDir,
      demoKey: demo.key,
      demoKeyId: demo.keyId,
      demoTools,
      db,
      secretFile: secret.file,
      migrationsApplied: applied,
      stop: cleanUp,
    };
    if (seedError !== undefined) running.seedError = seedError;
    if (demoSuite !== undefined) running.demoSuite = demoSuite;
    if (routedUrl !== undefined) running.routedUrl = routedUrl;
    return running;
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

/** Every Durable Object binding of wrangler's options, marked never to be evicted. */
function withoutEviction(durableObjects: unknown): Record<string, unknown> {
  const marked: Record<string, unknown> = {};
  for (const [name, binding] of Object.entries(isRecord(durableObjects) ? durableObjects : {}))
    marked[name] = isRecord(binding) ? { ...binding, unsafePreventEviction: true } : binding;
  return marked;
}

function explainStartFailure(error: unknown, host: string, port: number): Error {
  const message = messageOf(error);
  if (/ERR_ADDRESS_IN_USE|EADDRINUSE|address already in use/i.test(message)) {
    return new Error(
      `${host}:${port} is already in use (is toolproof already running?). Pick another port with --port or PORT.`,
    );
  }
  return error instanceof Error ? error : new Error(message);
}
