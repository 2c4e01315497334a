/**
 * `npm run deploy`: the D1 migrations applied to the remote database, then the Worker deployed.
 *
 *   npm run deploy                       uses ./wrangler.toml
 *   npm run deploy -- --config <file>    another wrangler config
 *
 * Checked first, so a deploy never half happens: wrangler.toml names a real D1 database (not the
 * local placeholder id it ships with), and wrangler is logged in (`wrangler whoami --json` exits
 * non-zero when it is not; CLOUDFLARE_API_TOKEN counts). Then, in order, each step stopping the
 * deploy when it fails:
 *   1. wrangler d1 execute <database_name> --remote --command …  (migrations renamed since a database
 *      applied them keep counting as applied: local/renamed-migrations.ts)
 *   2. wrangler d1 migrations apply <database_name> --remote   (new tables before code that needs them)
 *   3. wrangler deploy
 * What to create once on the account (database, queues, secrets): README, Deploy.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { field } from "./local/narrow.js";
import { migrationRenameStatements } from "./local/renamed-migrations.js";
import { WRANGLER_CONFIG } from "./local/paths.js";
import { wranglerApi, wranglerBin } from "./local/wrangler-api.js";
import { messageOf } from "../src/core/message-of.js";

/** The id wrangler.toml ships with so that local runs work; no Cloudflare database has it. */
export const PLACEHOLDER_DATABASE_ID = "00000000-0000-4000-8000-000000000000";

class DeployRefused extends Error {}

function configPathOf(argv: readonly string[]): string {
  const index = argv.indexOf("--config");
  if (index < 0) return WRANGLER_CONFIG;
  const value = argv[index + 1];
  if (value === undefined || value.startsWith("--"))
    throw new DeployRefused("--config needs a path to a wrangler config file");
  return path.resolve(value);
}

/** The D1 database the Worker binds as DB, checked to be a real one, and its migrations tracking table. */
async function remoteDatabase(configPath: string): Promise<{ name: string; migrationsTable: string }> {
  const { unstable_readConfig } = await wranglerApi();
  const config: unknown = unstable_readConfig({ config: configPath }, { hideWarnings: true });
  const databases = field(config, "d1_databases");
  const db = (Array.isArray(databases) ? databases : []).find((entry: unknown) => field(entry, "binding") === "DB");
  const name = field(db, "database_name");
  const id = field(db, "database_id");
  if (typeof name !== "string" || name === "")
    throw new DeployRefused(
      `${configPath} binds no D1 database as DB (a [[d1_databases]] entry with binding = "DB" and a database_name)`,
    );
  if (id === PLACEHOLDER_DATABASE_ID || typeof id !== "string" || id === "") {
    throw new DeployRefused(
      `${configPath}: database_id of "${name}" is the local placeholder, not a database on your account. Create it once with \`npx wrangler d1 create ${name}\` and put the database_id it prints into [[d1_databases]] (README, Deploy).`,
    );
  }
  const table = field(db, "migrations_table");
  return { name, migrationsTable: typeof table === "string" && table !== "" ? table : "d1_migrations" };
}

function wrangler(
  args: string[],
  configPath: string,
  capture: boolean,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wranglerBin(), ...args, "--config", configPath], {
      cwd: path.dirname(configPath),
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      // Migrations ask before they touch a remote database: the person deploying answers.
      stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

async function requireLogin(configPath: string): Promise<void> {
  const { code, output } = await wrangler(["whoami", "--json"], configPath, true);
  if (code === 0) return;
  const loggedOut = /"loggedIn"\s*:\s*false/.test(output);
  throw new DeployRefused(
    loggedOut
      ? "wrangler is not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID for CI), then `npm run deploy` again. Nothing was deployed."
      : `could not ask Cloudflare who is logged in (\`wrangler whoami\` exited with ${code}); is this machine online? Nothing was deployed.\n${output.trim().split("\n").slice(-10).join("\n")}`,
  );
}

async function step(label: string, args: string[], configPath: string): Promise<void> {
  console.log(`\n== ${label}: wrangler ${args.join(" ")}`);
  const { code } = await wrangler(args, configPath, false);
  if (code !== 0)
    throw new DeployRefused(`${label} failed (wrangler exited with ${code}); the steps after it were not run.`);
}

async function main(): Promise<number> {
  const configPath = configPathOf(process.argv.slice(2));
  const { name, migrationsTable } = await remoteDatabase(configPath);
  await requireLogin(configPath);
  const renames = migrationRenameStatements(`"${migrationsTable.replace(/"/g, '""')}"`).join("\n");
  await step("1/3 renamed migrations", ["d1", "execute", name, "--remote", "--command", renames], configPath);
  await step("2/3 D1 migrations", ["d1", "migrations", "apply", name, "--remote"], configPath);
  await step("3/3 deploy", ["deploy"], configPath);
  console.log("\nDeployed. A first Admin key for a new deployment: README, Deploy (POST /api/bootstrap).");
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`npm run deploy: ${messageOf(error)}`);
    process.exit(1);
  },
);
