/**
 * wrangler's programmatic API, loaded on first use. Loading it costs seconds of CPU, so the
 * local server starts its bundling child process first and loads this while the child works.
 */
type WranglerApi = typeof import("wrangler");

let api: Promise<WranglerApi> | undefined;

export function wranglerApi(): Promise<WranglerApi> {
  api ??= import("wrangler");
  return api;
}
