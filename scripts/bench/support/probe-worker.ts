/**
 * A throwaway Worker with one SQLite-backed Durable Object class, served by Miniflare straight
 * from workerd (a direct socket, as the local server serves toolproof), its state in a fresh
 * directory that stopping removes. The benchmarks' floors and probes run their own scripts on it,
 * so what they measure is the runtime with no toolproof code.
 */
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { createMiniflare } from "../../local/miniflare.js";

export interface ProbeWorkerOptions {
  /** The worker's name (an inspector target's suffix is "core:user:<name>"). */
  name: string;
  /** The module's source: it exports the Durable Object class and a default fetch handler. */
  script: string;
  /** The Durable Object binding and the class it names. */
  binding: string;
  className: string;
  /** Where the state directory is made (os.tmpdir(), or /dev/shm to leave the disk out). */
  stateParent: string;
  /** Keep every object loaded however long it idles (the memory benchmarks). */
  preventEviction?: boolean;
  /** More SQLite-backed Durable Object classes beside the first: binding → class. */
  moreObjects?: Readonly<Record<string, string>>;
  /** A D1 database under this binding, kept in the same state directory. */
  d1Binding?: string;
  inspectorPort?: number;
}

export interface ProbeWorker {
  /** Base URL without a trailing slash. */
  url: string;
  stateDir: string;
  stop(): Promise<void>;
}

export async function startProbeWorker(options: ProbeWorkerOptions): Promise<ProbeWorker> {
  const stateDir = await mkdtemp(path.join(options.stateParent, `toolproof-${options.name}-`));
  const objectOf = (className: string) => ({
    className,
    useSQLite: true,
    unsafePreventEviction: options.preventEviction ?? false,
  });
  const miniflare = createMiniflare({
    name: options.name,
    modules: true,
    script: options.script,
    compatibilityDate: "2026-10-01",
    durableObjects: {
      [options.binding]: objectOf(options.className),
      ...Object.fromEntries(
        Object.entries(options.moreObjects ?? {}).map(([binding, className]) => [binding, objectOf(className)]),
      ),
    },
    ...(options.d1Binding === undefined ? {} : { d1Databases: { [options.d1Binding]: `${options.name}-db` } }),
    resourcePersistencePath: stateDir,
    unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
    port: 0,
    ...(options.inspectorPort === undefined ? {} : { inspectorPort: options.inspectorPort }),
  });
  const stop = async () => {
    await miniflare.dispose().catch(() => undefined);
    await rm(stateDir, { recursive: true, force: true });
  };
  try {
    await miniflare.ready;
    const url = (await miniflare.unsafeGetDirectURL(options.name)).href.replace(/\/$/, "");
    return { url, stateDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
