/**
 * `npm run demo-model`: a scripted OpenAI-compatible endpoint on 127.0.0.1 that plays a
 * well-behaved InvoiceDesk agent and its judge (scripts/local/demo-model-script.ts), so the
 * demo suite can be run end to end with no model account and no network.
 *
 *   npm run demo-model                    listens on 127.0.0.1:8788
 *   npm run demo-model -- --port 9000 --latency 200
 *   npm run demo-model -- --toolproof http://127.0.0.1:8812   (or TOOLPROOF_URL=...): the curl it prints targets that toolproof
 */
import { startModelServer } from "../test/support/model-server/server.js";
import { DEMO_MODEL, demoModelScript } from "./local/demo-model-script.js";
import { messageOf } from "../src/core/message-of.js";

/** Where toolproof is, when neither --toolproof nor TOOLPROOF_URL says: npm start's default. */
const DEFAULT_TOOLPROOF_URL = "http://127.0.0.1:8787";

const HELP = `npm run demo-model [-- --port 8788] [--latency MS] [--toolproof URL]

  --port N          port this endpoint listens on (default 8788)
  --latency MS      milliseconds before every answer (default 0)
  --toolproof URL   the toolproof the printed curl command connects (default the TOOLPROOF_URL
                    environment variable, else ${DEFAULT_TOOLPROOF_URL}, npm start's default)

A scripted stand-in for a model endpoint: it answers the demo InvoiceDesk suite's five queries as
a correct agent would, and grades them as a judge would. Not a model: any other query gets a
fixed answer. Use it to watch a run end to end, then point the connection at a real endpoint.`;

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`--${name}: expected a whole number, got ${JSON.stringify(process.argv[index + 1] ?? "")}`);
    process.exit(2);
  }
  return value;
}

/** The toolproof URL for the printed command: the flag, else TOOLPROOF_URL, else npm start's default. */
function toolproofUrl(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  const index = argv.indexOf("--toolproof");
  const raw = index >= 0 ? argv[index + 1] : env.TOOLPROOF_URL;
  const source = index >= 0 ? "--toolproof" : "TOOLPROOF_URL";
  if (raw === undefined || raw === "") {
    if (index >= 0) throw new Error("--toolproof: expected toolproof's URL, e.g. http://127.0.0.1:8787");
    return DEFAULT_TOOLPROOF_URL;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${source}: expected toolproof's URL (http://host:port), got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`${source}: expected an http or https URL, got ${JSON.stringify(raw)}`);
  return url.origin;
}

async function main(): Promise<void> {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    console.log(HELP);
    return;
  }
  let toolproof: string;
  try {
    toolproof = toolproofUrl(process.argv, process.env);
  } catch (error) {
    console.error(messageOf(error));
    process.exit(2);
  }
  const port = flag("port", 8788);
  const server = await startModelServer({ port });
  server.script(DEMO_MODEL, demoModelScript(flag("latency", 0)));
  console.log(
    [
      `demo model endpoint at ${server.url}/v1 (model "${DEMO_MODEL}", any API key)`,
      "connect toolproof to it (npm start prints the key):",
      `  curl -s -X PUT ${toolproof}/api/connections/demo-model -H "Authorization: Bearer $KEY" \\`,
      `    -H "content-type: application/json" -d '{"base_url": "${server.url}/v1", "model": "${DEMO_MODEL}", "api_key": "not-needed"}'`,
    ].join("\n"),
  );
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(messageOf(error));
  process.exit(1);
});
