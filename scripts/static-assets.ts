/**
 * The Worker's static assets (wrangler.toml [assets], served through the ASSETS binding): files
 * copied from npm packages into build/assets, so what /docs loads comes from node_modules and
 * never from a CDN. Nothing here is committed; every entry point that reads wrangler.toml runs
 * this first (vitest.config.ts, npm start / npm run dev via local-server.ts and dev.ts, and
 * `wrangler deploy` through [build]), because wrangler refuses an [assets] directory that is missing.
 *
 * `node --import tsx scripts/static-assets.ts` runs it by hand.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const STATIC_ASSETS_DIR = path.join(ROOT, "build", "assets");

/** URL path under the assets directory → the package file it is copied from. */
const COPIED: ReadonlyArray<{ url: string; from: string }> = [
  // The API reference viewer (GET /docs): Swagger UI's self-contained browser bundle and its styles.
  { url: "docs/assets/swagger-ui-bundle.js", from: "swagger-ui-dist/swagger-ui-bundle.js" },
  { url: "docs/assets/swagger-ui.css", from: "swagger-ui-dist/swagger-ui.css" },
];

/** Copies every asset into build/assets (idempotent, synchronous: config files call it before they return). */
export function buildStaticAssets(): string {
  const require = createRequire(path.join(ROOT, "package.json"));
  for (const { url, from } of COPIED) {
    const target = path.join(STATIC_ASSETS_DIR, ...url.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(require.resolve(from), target);
  }
  return STATIC_ASSETS_DIR;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`static assets copied to ${path.relative(process.cwd(), buildStaticAssets()) || "."}`);
}
