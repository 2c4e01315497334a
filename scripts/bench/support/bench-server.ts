/**
 * The toolproof an HTTP benchmark loads: the one at TOOLPROOF_URL with TOOLPROOF_KEY (loopback
 * only), or, without them, its own, started with the code `npm start` runs on a fresh state
 * directory under `stateParent` and removed again by stop().
 */
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { assertLoopback } from "../wrk.js";
import type { Toolproof } from "./dispatch-workloads.js";
import { freePort } from "./free-port.js";

export interface BenchServer extends Toolproof {
  /** Started by this benchmark (so its runtime's core placement and CPU time are known). */
  own: boolean;
  stateDir: string | null;
  inspectorPort: number | null;
  stop: () => Promise<void>;
}

export async function benchToolproof(stateParent: string, withInspector = false): Promise<BenchServer> {
  const url = process.env.TOOLPROOF_URL;
  const key = process.env.TOOLPROOF_KEY;
  if (url && key) {
    assertLoopback(url);
    return {
      url: url.replace(/\/$/, ""),
      key,
      own: false,
      stateDir: null,
      inspectorPort: null,
      stop: async () => undefined,
    };
  }
  if (url || key)
    throw new Error("set both TOOLPROOF_URL and TOOLPROOF_KEY, or neither (to start a server for the run)");
  const { startToolproof } = await import("../../local-server.js");
  const stateDir = await mkdtemp(path.join(stateParent, "toolproof-bench-"));
  const inspectorPort = withInspector ? await freePort() : undefined;
  const server = await startToolproof({
    port: 0,
    stateDir,
    quiet: true,
    seedDemo: false,
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
  });
  return {
    url: server.url,
    key: server.demoKey,
    own: true,
    stateDir,
    inspectorPort: inspectorPort ?? null,
    stop: async () => {
      await server.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
