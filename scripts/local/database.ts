/**
 * toolproof's local D1 database, opened through Miniflare on the state directory (the same
 * files `npm start`, `npm run dev` and `wrangler d1 --local --persist-to` use), with migrations
 * applied. The admin CLI uses this whether or not a server is running: local D1 is SQLite in WAL
 * mode, and SQLite's own locking lets two processes share it.
 */
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../../src/adapters/d1/schema.js";
import type { Database } from "../../src/worker/platform/env.js";
import { applyMigrations } from "./migrations.js";
import { createMiniflare, type LocalMiniflare } from "./miniflare.js";
import { resourcePersistencePath } from "./paths.js";
import type { LocalD1Database, LocalWorkerConfig } from "./wrangler-config.js";

/** The binding the Worker reads toolproof's data from (src/worker/platform/env.ts). */
export const DB_BINDING = "DB";

export function toolproofDatabase(config: LocalWorkerConfig): LocalD1Database {
  const database = config.d1Databases.find((d) => d.binding === DB_BINDING);
  if (!database) throw new Error(`${config.configPath}: no D1 database with binding "${DB_BINDING}"`);
  return database;
}

/** Migrates the database behind a running Miniflare and wraps it in drizzle; answers the migrations applied now. */
export async function prepareDatabase(
  miniflare: LocalMiniflare,
  config: LocalWorkerConfig,
  workerName?: string,
): Promise<{ db: Database; applied: string[] }> {
  const database = toolproofDatabase(config);
  const d1 = await miniflare.getD1Database(database.binding, workerName);
  const applied = await applyMigrations(d1, database);
  return { db: drizzle(d1, { schema }), applied };
}

export interface OpenedDatabase {
  db: Database;
  applied: string[];
  close(): Promise<void>;
}

/** Opens the database without serving the Worker: a script-less Miniflare that only binds D1. */
export async function openLocalDatabase(stateDir: string, config: LocalWorkerConfig): Promise<OpenedDatabase> {
  const database = toolproofDatabase(config);
  const miniflare = createMiniflare({
    name: `${config.name}-admin`,
    modules: true,
    script: "export default {};",
    compatibilityDate: config.workerOptions.compatibilityDate,
    d1Databases: { [database.binding]: database.id },
    resourcePersistencePath: resourcePersistencePath(stateDir),
    // Only the loopback interface, on a port the OS picks: never in the way of a running server.
    host: "127.0.0.1",
    port: 0,
  });
  try {
    await miniflare.ready;
    const { db, applied } = await prepareDatabase(miniflare, config);
    return { db, applied, close: () => miniflare.dispose() };
  } catch (error) {
    await miniflare.dispose().catch(() => undefined);
    throw error;
  }
}
