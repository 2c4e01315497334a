/**
 * Applies the D1 migrations in migrations/ to a local database the way `wrangler d1 migrations
 * apply --local` does: the same `d1_migrations` tracking table, the same file order, wrangler's
 * own SQL splitter, one atomic batch per migration together with its tracking row. Either tool
 * can therefore be used on the same state directory and neither re-applies the other's work.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { migrationRenameStatements } from "./renamed-migrations.js";
import { wranglerApi } from "./wrangler-api.js";
import type { LocalD1Database } from "./wrangler-config.js";
import { messageOf } from "../../src/core/message-of.js";

export interface Migration {
  name: string;
  queries: string[];
}

/** `<dir>/*.sql`, ordered by leading number and then by name, as wrangler orders them. */
export async function readMigrations(migrationsDir: string): Promise<Migration[]> {
  const { unstable_splitSqlQuery } = await wranglerApi();
  const names = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".sql"))
    .map((entry) => entry.name)
    .sort(compareMigrationNames);
  return names.map((name) => ({
    name,
    queries: unstable_splitSqlQuery(readFileSync(path.join(migrationsDir, name), "utf8")),
  }));
}

function compareMigrationNames(a: string, b: string): number {
  const left = Number.parseInt(a.split("_")[0] ?? "", 10);
  const right = Number.parseInt(b.split("_")[0] ?? "", 10);
  if (left !== right && Number.isFinite(left) && Number.isFinite(right)) return left - right;
  if (Number.isFinite(left) !== Number.isFinite(right)) return Number.isFinite(left) ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Applies what is missing and answers the names it applied (empty when the database was current). */
export async function applyMigrations(db: D1Database, database: LocalD1Database): Promise<string[]> {
  const table = `"${database.migrationsTable.replace(/"/g, '""')}"`;
  await db.batch(migrationRenameStatements(table).map((statement) => db.prepare(statement)));
  const appliedNow: string[] = [];
  let applied = await appliedNames(db, table);
  for (const migration of await readMigrations(database.migrationsDir)) {
    if (applied.has(migration.name)) continue;
    const statements = migration.queries.map((query) => db.prepare(query));
    statements.push(db.prepare(`INSERT INTO ${table} (name) VALUES (?);`).bind(migration.name));
    try {
      await db.batch(statements);
      appliedNow.push(migration.name);
    } catch (error) {
      // Another process (a second `npm start`, the admin CLI) may have applied it a moment ago;
      // the batch is atomic, so either it is fully there now or the error is real.
      applied = await appliedNames(db, table);
      if (!applied.has(migration.name)) {
        const reason = messageOf(error);
        throw new Error(`migration ${migration.name} failed: ${reason}`);
      }
    }
  }
  return appliedNow;
}

async function appliedNames(db: D1Database, table: string): Promise<Set<string>> {
  const { results } = await db.prepare(`SELECT name FROM ${table} ORDER BY id`).all<{ name: unknown }>();
  return new Set(results.map((row) => row.name).filter((name): name is string => typeof name === "string"));
}
