/**
 * Where local toolproof keeps things. The state directory uses wrangler's own layout
 * (`<state>/v3/d1`, `<state>/v3/do`, ...), so `wrangler d1 migrations apply --local --persist-to <state>`
 * and `wrangler dev --persist-to <state>` work on the very same data as `npm start`.
 */
import path from "node:path";

export const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..");
export const WRANGLER_CONFIG = path.join(PROJECT_ROOT, "wrangler.toml");
export const DEFAULT_STATE_DIR = path.join(PROJECT_ROOT, ".toolproof", "state");

/** wrangler's `--persist-to X` stores resources under `X/v3`; Miniflare calls that the resource persistence path. */
export function resourcePersistencePath(stateDir: string): string {
  return path.join(stateDir, "v3");
}

/** The demo tenant's key, kept beside the database it belongs to (local development only). */
export function demoKeyFile(stateDir: string): string {
  return path.join(stateDir, "demo-key.json");
}

/** A state directory given on the command line is relative to where the command was run. */
export function resolveStateDir(stateDir: string | undefined): string {
  return stateDir === undefined ? DEFAULT_STATE_DIR : path.resolve(process.cwd(), stateDir);
}
