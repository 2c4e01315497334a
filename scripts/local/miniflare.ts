/**
 * Miniflare, the copy that wrangler itself depends on. Using wrangler's copy (rather than the
 * one the vitest integration happens to hoist) keeps three things in step: the option format
 * `unstable_getMiniflareWorkerOptions` produces, the workerd build it runs on, and the on-disk
 * layout `wrangler dev` / `wrangler d1 --local` read and write.
 */
import { createRequire } from "node:module";

/** The part of Miniflare's API the local server and the admin CLI use. */
export interface LocalMiniflare {
  readonly ready: Promise<URL>;
  getD1Database(bindingName: string, workerName?: string): Promise<D1Database>;
  /** Where a worker's `unsafeDirectSockets` socket listens (the port it really got, when 0 was asked). */
  unsafeGetDirectURL(workerName?: string, entrypoint?: string): Promise<URL>;
  dispose(): Promise<void>;
}

interface MiniflareModule {
  /** Miniflare 5 takes its own option format; wrangler hands out the v4 one and converts it like this. */
  convertV4MiniflareOptions(options: Record<string, unknown>): unknown;
  Miniflare: new (options: unknown) => LocalMiniflare;
}

let loaded: MiniflareModule | undefined;

function loadMiniflare(): MiniflareModule {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  // Resolving from wrangler's entry point finds whichever copy wrangler uses, nested or hoisted.
  const fromWrangler = createRequire(require.resolve("wrangler"));
  const module: unknown = fromWrangler("miniflare");
  if (
    typeof module !== "object" ||
    module === null ||
    typeof Reflect.get(module, "Miniflare") !== "function" ||
    typeof Reflect.get(module, "convertV4MiniflareOptions") !== "function"
  ) {
    throw new Error(
      "wrangler's miniflare does not export Miniflare and convertV4MiniflareOptions; is wrangler installed (npm ci)?",
    );
  }
  // SAFETY: both members were checked above; their signatures are the documented Miniflare API
  // (only the subset declared in LocalMiniflare is used).
  loaded = module as MiniflareModule;
  return loaded;
}

/** Starts Miniflare from v4-style options (the shape wrangler's config helpers produce). */
export function createMiniflare(options: Record<string, unknown>): LocalMiniflare {
  const { Miniflare, convertV4MiniflareOptions } = loadMiniflare();
  return new Miniflare(convertV4MiniflareOptions(options));
}
