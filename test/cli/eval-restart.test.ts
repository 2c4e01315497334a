/**
 * A run survives `npm start` being restarted in the middle of it. Locally the queue broker lives
 * in memory, so the restart loses every queued message and kills the repetitions in flight; the
 * run's coordinator (a Durable Object, on disk) must notice through its watchdog, send what is
 * missing again, and finish with every repetition recorded exactly once, none of them carrying
 * calls made before the restart. Real local server, real queue, the shared model server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_MODEL, demoModelScript } from "../../scripts/local/demo-model-script.js";
import { startToolproof, type RunningToolproof } from "../../scripts/local-server.js";
import { modelServer, uniqueModel } from "../support/model-server/in-tests.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** How long a repetition may go without a result before the watchdog sends it again: short, so the test is. */
const WATCHDOG_VARS = { EVAL_REPETITION_TIMEOUT_MS: "4000" };
const RUNS_PER_SCENARIO = 4;
const SCENARIOS = ["status-lookup", "duplicate-question", "hold-request", "pay-refusal", "injection-refusal"];

async function api(
  server: RunningToolproof,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const init: RequestInit = {
    method,
    headers: { authorization: `Bearer ${server.demoKey}`, "content-type": "application/json" },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${server.url}${route}`, init);
  return { status: response.status, body: await response.json() };
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value).slice(0, 1500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a run across a restart of the local server", () => {
  it("finishes with every repetition recorded once", { timeout: 300_000 }, async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-restart-run-"));
    dirs.push(stateDir);
    const models = modelServer();
    const model = uniqueModel("restart-run");
    // Slow answers, so the run is still in progress when the server goes down.
    await models.script(model, demoModelScript(300));

    let server = await startToolproof({ port: 0, stateDir, quiet: true, vars: WATCHDOG_VARS });
    let runId: string;
    try {
      const connection = await api(server, "PUT", "/api/connections/demo-model", {
        base_url: models.openaiBaseUrl,
        model,
        api_key: "not-needed",
      });
      expect(connection.status).toBe(201);
      const started = await api(server, "POST", "/api/suites/invoicedesk/runs", {
        runs_per_scenario: RUNS_PER_SCENARIO,
        label: "restart",
      });
      expect(started.status).toBe(202);
      runId = String(field(started.body, "id"));
      // Some repetitions done, most not: then the server goes away with the queue's messages.
      await until(
        "the first results",
        async () => (await api(server, "GET", `/api/runs/${runId}`)).body,
        (run) => Number(field(run, "finished_repetitions")) >= 2,
        60_000,
      );
    } finally {
      await server.stop();
    }
    const before = (await models.log(model)).length;

    server = await startToolproof({ port: 0, stateDir, quiet: true, vars: WATCHDOG_VARS });
    try {
      const run = await until(
        "the run to end after the restart",
        async () => (await api(server, "GET", `/api/runs/${runId}`)).body,
        (value) => field(value, "status") !== "running" && field(value, "status") !== "queued",
        120_000,
      );
      const total = SCENARIOS.length * RUNS_PER_SCENARIO;
      expect([
        field(run, "status"),
        field(run, "verdict"),
        field(run, "finished_repetitions"),
        field(run, "passed"),
        field(run, "errors"),
      ]).toEqual(["finished", "pass", total, total, 0]);
      // The model was called again after the restart: the lost repetitions were carried out then.
      expect((await models.log(model)).length).toBeGreaterThan(before);

      const list = await api(server, "GET", `/api/runs/${runId}/repetitions?limit=100`);
      const items = field(list.body, "items") as Array<Record<string, unknown>>;
      const identities = items.map((item) => `${String(item.scenario)}#${String(item.repetition)}`);
      expect(identities.sort()).toEqual(
        SCENARIOS.flatMap((id) => Array.from({ length: RUNS_PER_SCENARIO }, (_, i) => `${id}#${i + 1}`)).sort(),
      );

      // Each repetition's calls are its own run's: one lookup or one proposed hold, or none.
      const callsPerScenario = new Map<string, number[]>();
      for (const item of items) {
        const detail = await api(server, "GET", `/api/runs/${runId}/repetitions/${String(item.n)}`);
        const calls = field(field(detail.body, "record") ?? detail.body, "calls");
        const counts = callsPerScenario.get(String(item.scenario)) ?? [];
        counts.push(Array.isArray(calls) ? calls.length : -1);
        callsPerScenario.set(String(item.scenario), counts);
      }
      expect(Object.fromEntries(callsPerScenario)).toEqual({
        "status-lookup": [1, 1, 1, 1],
        "duplicate-question": [1, 1, 1, 1],
        "hold-request": [1, 1, 1, 1],
        "pay-refusal": [0, 0, 0, 0],
        "injection-refusal": [0, 0, 0, 0],
      });
    } finally {
      await server.stop();
    }
  });
});

void DEMO_MODEL;
