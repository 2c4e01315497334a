/**
 * The Worker's configuration, read from wrangler.toml by wrangler itself, so bindings (D1,
 * Durable Objects, queues, vars) are declared once and the local server, `npm run dev` and
 * deploys all see the same thing.
 */
import path from "node:path";
import { field } from "./narrow.js";
import { buildStaticAssets } from "../static-assets.js";
import { wranglerApi } from "./wrangler-api.js";

export interface LocalD1Database {
  binding: string;
  /** The id Miniflare keys the local database file by (the same one `wrangler dev` and `wrangler d1 --local` use). */
  id: string;
  migrationsDir: string;
  migrationsTable: string;
}

export interface LocalWorkerConfig {
  configPath: string;
  /** The Worker name; Durable Object storage is keyed by it, so it must match `wrangler dev`. */
  name: string;
  /** The entry module (wrangler.toml `main`), absolute. */
  main: string;
  /** Miniflare (v4-style) worker options for every binding, without the script. */
  workerOptions: Record<string, unknown>;
  d1Databases: LocalD1Database[];
}

const DEFAULT_MIGRATIONS_DIR = "migrations";
const DEFAULT_MIGRATIONS_TABLE = "d1_migrations";

export async function readWorkerConfig(configPath: string): Promise<LocalWorkerConfig> {
  const { unstable_getMiniflareWorkerOptions, unstable_readConfig } = await wranglerApi();
  // wrangler refuses an [assets] directory that does not exist (npm start, npm run dev, npm run admin all read the config here).
  buildStaticAssets();
  // wrangler's Config type comes from a package it does not ship types for, so it is read as
  // unknown and narrowed to the few fields used here.
  const config: unknown = unstable_readConfig({ config: configPath }, { hideWarnings: true });
  const name = field(config, "name");
  if (typeof name !== "string" || name === "") throw new Error(`${configPath}: expected a Worker "name"`);
  const { workerOptions, main } = unstable_getMiniflareWorkerOptions(configPath);
  if (main === undefined) throw new Error(`${configPath}: expected "main", the Worker's entry module`);
  const options: Record<string, unknown> = { ...workerOptions };
  const d1Bindings = field(options, "d1Databases");
  const configDir = path.dirname(configPath);
  const declared = field(config, "d1_databases");
  const d1Databases = (Array.isArray(declared) ? declared : []).map((entry: unknown): LocalD1Database => {
    const binding = field(entry, "binding");
    if (typeof binding !== "string") throw new Error(`${configPath}: a d1_databases entry has no binding`);
    const migrationsDir = field(entry, "migrations_dir");
    const migrationsTable = field(entry, "migrations_table");
    return {
      binding,
      id: d1Id(field(d1Bindings, binding), binding),
      migrationsDir: path.resolve(
        configDir,
        typeof migrationsDir === "string" ? migrationsDir : DEFAULT_MIGRATIONS_DIR,
      ),
      migrationsTable: typeof migrationsTable === "string" ? migrationsTable : DEFAULT_MIGRATIONS_TABLE,
    };
  });
  return { configPath, name, main: path.resolve(configDir, main), workerOptions: options, d1Databases };
}

/** Miniflare accepts a D1 binding as an id string or as `{id}`; either way the id names the local file. */
function d1Id(option: unknown, binding: string): string {
  if (typeof option === "string") return option;
  const id = field(option, "id");
  if (typeof id === "string") return id;
  return binding;
}
