/**
 * Migration files renamed after they were applied somewhere. D1 (and wrangler) track applied
 * migrations by file name, so a database that applied a file under its old name would see the new
 * name as missing and run it again (and fail: its tables exist). Before applying, the recorded old
 * names are rewritten to the new ones; the statements do nothing on a database that never had them.
 */
export const RENAMED_MIGRATIONS: readonly { from: string; to: string }[] = [
  { from: "0007_session10.sql", to: "0007_agent_jobs_secrets_sessions_upstreams.sql" },
  { from: "0008_session11.sql", to: "0008_callback_sends_and_job_acceptance.sql" },
];

/** `table` is the quoted tracking table's name; wrangler's own CREATE first, so a new database works too. */
export function migrationRenameStatements(table: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${table}(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`,
    ...RENAMED_MIGRATIONS.map(({ from, to }) => `UPDATE ${table} SET name = '${to}' WHERE name = '${from}';`),
  ];
}
