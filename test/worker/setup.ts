import { applyD1Migrations, env, type D1Migration } from "cloudflare:test";

// SAFETY: vitest.config.ts adds TEST_MIGRATIONS as a test-only binding next to the Worker's own.
const migrations = (env as Cloudflare.Env & { TEST_MIGRATIONS: D1Migration[] }).TEST_MIGRATIONS;

// Storage is isolated per test file; each file starts from the app's real migrations.
await applyD1Migrations(env.DB, migrations);
