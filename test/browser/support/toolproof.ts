/**
 * toolproof as a newcomer starts it: the local server (`npm start`'s startToolproof) on a free
 * port with fresh state, the demo tenant, key, tools and InvoiceDesk suite, and the `demo-model`
 * connection pointed at the shared local model server playing the scripted demo agent and judge
 * (the same script as `npm run demo-model`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEMO_MODEL, demoModelScript } from "../../../scripts/local/demo-model-script.js";
import { startToolproof, type RunningToolproof } from "../../../scripts/local-server.js";
import { modelServer, uniqueModel } from "../../support/model-server/in-tests.js";

export interface DemoToolproof {
  url: string;
  key: string;
  server: RunningToolproof;
  /** The JSON API with the demo key; throws with the body on an unexpected status. */
  api(method: string, route: string, body?: unknown, expected?: number): Promise<unknown>;
  /** Starts a run of the demo suite and waits for it to end; answers its id. */
  runDemoSuite(runsPerScenario?: number, label?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startDemo(): Promise<DemoToolproof> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-browser-"));
  const models = modelServer();
  const model = uniqueModel(DEMO_MODEL);
  await models.script(model, demoModelScript());
  const server = await startToolproof({ port: 0, stateDir, quiet: true });
  if (server.seedError) throw new Error(`the demo data could not be seeded: ${server.seedError}`);
  const api = async (method: string, route: string, body?: unknown, expected?: number): Promise<unknown> => {
    const init: RequestInit = {
      method,
      headers: { authorization: `Bearer ${server.demoKey}`, "content-type": "application/json" },
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(`${server.url}${route}`, init);
    const text = await response.text();
    if (expected !== undefined ? response.status !== expected : response.status >= 300)
      throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
    return text === "" ? undefined : JSON.parse(text);
  };
  await api("PUT", "/api/connections/demo-model", { base_url: models.openaiBaseUrl, model, api_key: "not-needed" });
  const runDemoSuite = async (runsPerScenario = 1, label = "browser test"): Promise<string> => {
    const started = await api(
      "POST",
      "/api/suites/invoicedesk/runs",
      { runs_per_scenario: runsPerScenario, label },
      202,
    );
    const id = String(field(started, "id"));
    const deadline = Date.now() + 90_000;
    for (;;) {
      const run = await api("GET", `/api/runs/${id}`);
      const status = field(run, "status");
      if (status !== "queued" && status !== "running") return id;
      if (Date.now() > deadline) throw new Error(`run ${id} did not end in 90 s: ${JSON.stringify(run).slice(0, 800)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  return {
    url: server.url,
    key: server.demoKey,
    server,
    api,
    runDemoSuite,
    stop: async () => {
      await server.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
