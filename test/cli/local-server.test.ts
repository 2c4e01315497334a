/**
 * The local server: `npm start` spawned as a person runs it (its printed key must work, Ctrl-C
 * must stop it cleanly), then started again programmatically on the same state, which must be
 * reused without duplicating the demo data. Ports are picked by the OS; state is a temp dir.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startToolproof, type RunningToolproof } from "../../scripts/local-server.js";
import { field, stringField } from "../../scripts/local/narrow.js";
import { jsonOutput, runScript, spawnScript } from "./run-script.js";

const require = createRequire(import.meta.url);
const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-start-"));
const servers: RunningToolproof[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  rmSync(stateDir, { recursive: true, force: true });
});

/** Bundling, loading wrangler and starting workerd take seconds, more on a busy machine. */
const SLOW = 300_000;

interface ToolView {
  id: string;
  name: string;
  operations: Array<{ operation_id: string; contract_hash: string }>;
}

async function get(url: string, key: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json() };
}

async function demoTools(url: string, key: string): Promise<ToolView[]> {
  const list = await get(`${url}/api/tools?limit=200`, key);
  expect(list.status).toBe(200);
  // SAFETY: the list shape is the API's documented one; the assertions below check what is used.
  return (list.body as { items: ToolView[] }).items.filter(
    (tool) => tool.name === "invoices" || tool.name === "appointments",
  );
}

/** Waits for `npm start`'s banner and reads the URL and demo key from it. */
function waitForBanner(
  child: ReturnType<typeof spawnScript>,
  timeoutMs: number,
): Promise<{ url: string; key: string; output: string }> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`no banner within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /toolproof is running at (http:\/\/\S+)/.exec(output)?.[1];
      const key = /demo key:\s+(tpk_\S+)/.exec(output)?.[1];
      if (url && key && output.includes("Stop with Ctrl-C.")) {
        clearTimeout(timer);
        resolve({ url, key, output });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code} before it was ready:\n${output}`));
    });
  });
}

describe("npm start", () => {
  let firstRun: { key: string; toolIds: string[] } | undefined;

  it(
    "serves toolproof, prints a working demo key and curl commands, seeds the demo tools, and stops on SIGTERM",
    async () => {
      const child = spawnScript("start.ts", ["--port", "0", "--state-dir", stateDir]);
      try {
        const { url, key, output } = await waitForBanner(child, SLOW - 30_000);
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(output).toContain(`curl -s ${url}/api/tools -H "Authorization: Bearer ${key}"`);
        expect(output).toContain(`  dashboard:  ${url}/  (open it in a browser and sign in with the demo key)`);
        // The demo suite is seeded, and with no model connection the banner says how to add one.
        expect(output).toContain(
          "demo suite: invoicedesk v1  (5 scenarios x 3 runs, from examples/evals/invoicedesk.yaml)",
        );
        expect(output).toContain(
          `curl -s -X PUT ${url}/api/connections/demo-model -H "Authorization: Bearer ${key}" -H "content-type: application/json"`,
        );
        // The demo model leads (it needs no model account), told where this toolproof is.
        expect(output).toContain(`    npm run demo-model -- --toolproof ${url}\n`);
        expect(output.indexOf("npm run demo-model")).toBeLessThan(output.indexOf("11434"));

        expect((await fetch(`${url}/health`)).status).toBe(200);
        const tools = await demoTools(url, key);
        expect(tools.map((tool) => tool.name).sort()).toEqual(["appointments", "invoices"]);
        expect(tools.find((tool) => tool.name === "invoices")?.operations.map((op) => op.operation_id)).toEqual([
          "get_invoice",
          "place_invoice_on_hold",
        ]);

        for (const tool of tools) {
          expect(output).toContain(tool.id);
          const testing = await get(`${url}/api/tools/${tool.id}/testing`, key);
          expect(testing.status).toBe(200);
          expect(testing.body).toMatchObject({
            tool_id: tool.id,
            operations: tool.operations.map((op) => ({
              operation_id: op.operation_id,
              contract_hash: op.contract_hash,
              latest_revision: expect.objectContaining({ revision: 1, contract_hash: op.contract_hash }),
              stale: false,
            })),
          });
        }
        firstRun = { key, toolIds: tools.map((tool) => tool.id).sort() };

        // The admin CLI works on the same database while the server runs, and the server sees its keys at once.
        const created = await runScript("admin.ts", [
          "--state-dir",
          stateDir,
          "key",
          "create",
          "--tenant",
          "demo",
          "--name",
          "while-running",
        ]);
        expect(created.code, created.stderr).toBe(0);
        const newKey = stringField(jsonOutput(created.stdout), "key");
        expect(newKey).toMatch(/^tpk_/);
        expect((await get(`${url}/api/tools`, String(newKey))).status).toBe(200);
      } finally {
        const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
        child.kill("SIGTERM");
        expect(await exited).toBe(0);
      }
    },
    SLOW,
  );

  it(
    "starts again on the same state without duplicating the demo data, keeps the demo key, and refuses a second server on it",
    async () => {
      expect(firstRun, "needs the first start").toBeDefined();
      const server = await startToolproof({ port: 0, stateDir, quiet: true });
      servers.push(server);
      expect(server.seedError).toBeUndefined();
      expect(server.migrationsApplied).toEqual([]);
      expect(server.demoKey).toBe(firstRun?.key);
      expect(server.demoTools.every((tool) => !tool.created)).toBe(true);
      expect(server.demoSuite).toEqual({
        name: "invoicedesk",
        version: 1,
        changed: false,
        scenarios: 5,
        runs_per_scenario: 3,
        missing_connections: ["demo-model"],
      });

      // One server per state directory: a second one would run its own copy of every Durable Object.
      await expect(startToolproof({ port: 0, stateDir, quiet: true })).rejects.toThrow(
        /in use by another toolproof server/,
      );

      // The socket serves the Worker's DirectHttp entrypoint, past Miniflare's asset router: the API
      // reference and the static files it loads still come from the Worker's own /docs routes.
      const page = await fetch(`${server.url}/docs`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
      for (const file of ["swagger-ui.css", "swagger-ui-bundle.js"]) {
        const asset = await fetch(`${server.url}/docs/assets/${file}`);
        expect(asset.status).toBe(200);
        expect(await asset.text()).toBe(readFileSync(require.resolve(`swagger-ui-dist/${file}`), "utf8"));
      }
      expect((await fetch(`${server.url}/docs/assets/package.json`)).status).toBe(404);

      const tools = await demoTools(server.url, server.demoKey);
      expect(tools.map((tool) => tool.id).sort()).toEqual(firstRun?.toolIds);
      for (const tool of tools) {
        for (const op of tool.operations) {
          const history = await get(
            `${server.url}/api/tools/${tool.id}/operations/${op.operation_id}/revisions`,
            server.demoKey,
          );
          expect(history.status).toBe(200);
          expect(field(history.body, "items")).toEqual([expect.objectContaining({ revision: 1 })]);
        }
      }
    },
    SLOW,
  );

  it(
    "exits 2 naming a bad argument",
    async () => {
      const run = await runScript("start.ts", ["--port", "http"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--port must be a whole number");
      const unknown = await runScript("start.ts", ["--prot", "8787"]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("--prot");
    },
    SLOW,
  );
});
