/**
 * Versioned schemas for Durable Objects' own SQLite (the attempt object's and the run
 * coordinator's). Objects outlive deploys, so a table changed in a later version must reach objects
 * that already exist: the `meta` table records the version a storage is at, and each load applies
 * the steps it lacks, in order. Storage made before versioning (its tables, no `meta`) counts as
 * version 0 and migrates like any other.
 */

/** One step of an object's schema: the statements that take storage from version - 1 to version. */
export interface Migration {
  version: number;
  statements: readonly string[];
}

const META_TABLE = `CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), schema_version INTEGER NOT NULL)`;

export function hasTable(sql: SqlStorage, name: string): boolean {
  return sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, name).toArray().length > 0;
}

/** The version the storage is at: 0 for tables made before versioning (or for none at all). */
export function schemaVersion(sql: SqlStorage): number {
  if (!hasTable(sql, "meta")) return 0;
  return sql.exec<{ schema_version: number }>(`SELECT schema_version FROM meta`).toArray()[0]?.schema_version ?? 0;
}

/** Applies every step newer than the storage's version, in order; the caller runs it inside a transaction. */
export function applyPending(sql: SqlStorage, migrations: readonly Migration[]): { from: number; to: number } {
  const from = schemaVersion(sql);
  const pending = migrations.filter((step) => step.version > from).sort((a, b) => a.version - b.version);
  if (pending.length === 0) return { from, to: from };
  for (const step of pending) for (const statement of step.statements) sql.exec(statement);
  const to = pending[pending.length - 1]?.version ?? from;
  sql.exec(META_TABLE);
  sql.exec(
    `INSERT INTO meta (id, schema_version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET schema_version = excluded.schema_version`,
    to,
  );
  return { from, to };
}
