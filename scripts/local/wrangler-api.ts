/**
 * wrangler, as a library and as a command. The library is loaded on first use: loading it costs
 * seconds of CPU, so the local server starts its bundling child process first and loads the
 * library while the child works.
 */
import { createRequire } from "node:module";
import path from "node:path";

type WranglerApi = typeof import("wrangler");

let api: Promise<WranglerApi> | undefined;

export function wranglerApi(): Promise<WranglerApi> {
  api ??= import("wrangler");
  return api;
}

/** wrangler's command-line entry, to run as `node <it> …` on this process's Node (22). */
export function wranglerBin(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
}
