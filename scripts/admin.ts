/**
 * `npm run admin -- <command>`: tenants and API keys in the local database. Prints JSON on
 * stdout; errors are JSON on stderr in the API's error shape, exit 2 for a bad argument.
 * Run `npm run --silent admin -- …` to keep npm's banner out of piped output.
 */
import { openLocalDatabase } from "./local/database.js";
import { ADMIN_HELP, parseAdminArgs, runAdminCommand } from "./local/admin-commands.js";
import { resolveStateDir, WRANGLER_CONFIG } from "./local/paths.js";
import { USAGE_EXIT_CODE, UsageError } from "./local/usage-error.js";
import { readWorkerConfig } from "./local/wrangler-config.js";
import { messageOf } from "../src/core/message-of.js";

async function main(): Promise<number> {
  const parsed = parseAdminArgs(process.argv.slice(2));
  if (parsed.command === "help") {
    process.stdout.write(ADMIN_HELP);
    return 0;
  }
  const config = await readWorkerConfig(WRANGLER_CONFIG);
  const database = await openLocalDatabase(resolveStateDir(parsed.stateDir), config);
  try {
    const result = await runAdminCommand(database.db, parsed.command);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

function report(error: unknown): number {
  if (error instanceof UsageError) {
    const body = {
      error: {
        code: "bad_argument",
        message: error.message,
        details: { argument: error.argument, usage: "npm run admin -- --help" },
      },
    };
    process.stderr.write(`${JSON.stringify(body, null, 2)}\n`);
    return USAGE_EXIT_CODE;
  }
  const message = messageOf(error);
  process.stderr.write(`${JSON.stringify({ error: { code: "internal_error", message } }, null, 2)}\n`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(report(error)),
);
