/**
 * Local migrations against a real local D1 (Miniflare on a temporary state directory): the
 * tracking table lists every migration file once, and a state directory migrated before two
 * files were renamed for what they change (0007, 0008) opens without re-applying them.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openLocalDatabase, type OpenedDatabase } from "../../scripts/local/database.js";
import { PROJECT_ROOT, WRANGLER_CONFIG } from "../../scripts/local/paths.js";
import { readWorkerConfig } from "../../scripts/local/wrangler-config.js";

const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-migrations-"));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const SLOW = 240_000;

const migrationFiles = readdirSync(path.join(PROJECT_ROOT, "migrations"))
  .filter((name) => name.endsWith(".sql"))
  .sort();

async function recordedNames(database: OpenedDatabase): Promise<string[]> {
  const rows = await database.db.all<{ name: string }>(sql`SELECT name FROM d1_migrations ORDER BY id`);
  return rows.map((row) => row.name);
}

async function open(): Promise<OpenedDatabase> {
  return openLocalDatabase(stateDir, await readWorkerConfig(WRANGLER_CONFIG));
}

describe("local migrations", () => {
  it(
    "record every migration file once, under the file's own name",
    async () => {
      const database = await open();
      try {
        expect(database.applied).toEqual(migrationFiles);
        expect(await recordedNames(database)).toEqual(migrationFiles);
      } finally {
        await database.close();
      }
    },
    SLOW,
  );

  it(
    "keep a state directory migrated under the old names working: nothing re-applied, the names updated",
    async () => {
      const before = await open();
      try {
        // What a state directory made before the rename holds.
        await before.db.run(
          sql`UPDATE d1_migrations SET name = '0007_session10.sql' WHERE name = '0007_agent_jobs_secrets_sessions_upstreams.sql'`,
        );
        await before.db.run(
          sql`UPDATE d1_migrations SET name = '0008_session11.sql' WHERE name = '0008_callback_sends_and_job_acceptance.sql'`,
        );
        expect(await recordedNames(before)).toContain("0007_session10.sql");
      } finally {
        await before.close();
      }
      const after = await open();
      try {
        expect({ applied: after.applied, recorded: await recordedNames(after) }).toEqual({
          applied: [],
          recorded: migrationFiles,
        });
        expect(migrationFiles).toContain("0007_agent_jobs_secrets_sessions_upstreams.sql");
        expect(migrationFiles).toContain("0008_callback_sends_and_job_acceptance.sql");
      } finally {
        await after.close();
      }
    },
    SLOW,
  );
});
