/**
 * A run whose scenarios share large pinned definitions starts and runs to the end, and its D1 row
 * stays small however many scenarios pin the same operations. τ-bench's retail
 * environment pins ~700 KB of definitions; its 115-task suite used to be started with every
 * scenario's copy of them in one RunStart: one RPC to the coordinator over workerd's 32 MiB limit,
 * and one SQLite value far over a Durable Object's ~2 MB. Here 56 scenarios share the invoices tool
 * with its two definitions padded to ~235 KB each (the testing route's 256 KB limit), so the copies
 * would total well over 32 MiB; each distinct list is stored once instead.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_SCENARIOS } from "../../../src/core/evals/suite-parse.js";
import { call, newTenant } from "../helpers.js";
import { libraryTool } from "../simulation-helpers.js";
import { invoicesWithLookups, padded } from "../padded-invoices.js";
import {
  GET,
  GOOD_JUDGE,
  HOLD,
  invoiceSuite,
  putSuite,
  QUERIES,
  repetitions,
  server,
  startRun,
  startRunDirect,
  waitForRun,
  wellBehaved,
  type InvoiceWorld,
} from "../run-helpers.js";
import { uniqueModel } from "../../support/model-server/in-tests.js";

const SCENARIOS = 44;
/** Copies of get_invoice added to the tool, so its definitions total ~750 KB. */
const LOOKUPS = 6;
let world: InvoiceWorld;

/** The InvoiceDesk suite with the large tool's lookups added, each scenario asking for an invoice's status. */
function largeSuite(scenarioIds: string[]): Record<string, unknown> {
  const suite = invoiceSuite(world, {
    scenarios: scenarioIds.map((id) => ({ id, query: QUERIES.status, expect: GET, forbid: [HOLD] })),
    runs_per_scenario: 1,
  });
  // SAFETY: invoiceSuite's agent is an object with a tools list.
  const agent = suite.agent as { tools: unknown[] };
  const lookups = Array.from({ length: LOOKUPS }, (_, i) => ({
    tool_id: world.toolId,
    operation_id: `lookup_${i + 1}`,
    approval_mode: "never_require",
  }));
  return { ...suite, agent: { ...agent, tools: [...agent.tools, ...lookups] } };
}

beforeAll(async () => {
  const tenant = await newTenant();
  const { spec, definitions } = invoicesWithLookups(LOOKUPS, padded);
  const total = Object.values(definitions).reduce((sum, definition) => sum + JSON.stringify(definition).length, 0);
  expect(total).toBeGreaterThan(700_000);
  const tool = await libraryTool(tenant, spec, definitions);
  const model = uniqueModel("large-start");
  const put = await call("PUT", "/api/connections/model", {
    key: tenant.key,
    body: { base_url: server.openaiBaseUrl, model, api_key: "sk-test", max_retries: 0, timeout_ms: 10_000 },
  });
  expect(put.status).toBe(201);
  world = { tenant, toolId: tool.id, model, connection: "model" };
  await server.script(world.model, { conversations: wellBehaved(), judge_default: GOOD_JUDGE });
  await putSuite(world, "large", largeSuite(Array.from({ length: SCENARIOS }, (_, i) => `status-${i + 1}`)));
});

describe("a run of many scenarios sharing large definitions", () => {
  it("starts, runs every repetition and passes", async () => {
    const started = await startRun(world, "large");
    expect(started).toMatchObject({ status: "queued", total_repetitions: SCENARIOS });
    const run = await waitForRun(world, started.id);
    expect({ status: run.status, verdict: run.verdict, finished: run.finished_repetitions }).toEqual({
      status: "finished",
      verdict: "pass",
      finished: SCENARIOS,
    });
    const items = await repetitions(world, started.id);
    expect(items.map((item) => [item.n, item.scenario, item.outcome])).toEqual(
      Array.from({ length: SCENARIOS }, (_, i) => [i + 1, `status-${i + 1}`, "pass"]),
    );
  });
});

describe("the D1 row of a run of the most scenarios a suite may have", () => {
  it("holds each pinned operation once, and the run's view still lists every scenario's pins", async () => {
    const ids = Array.from({ length: MAX_SCENARIOS }, (_, i) => `many-${i + 1}`);
    await putSuite(world, "many", largeSuite(ids));
    // Started as the route starts it, with its queue messages dropped: only the start is under test.
    const started = await startRunDirect(world, "many", { send: async () => undefined });

    // D1 refuses a row over 2,000,000 bytes (Miniflare does not), and each progress update rewrites
    // the whole row. A copy of the 8 pinned operations per scenario made 2.02 MB here.
    const row = await env.DB.prepare(
      "SELECT length(pinned) + length(trigger) + coalesce(length(summary), 0) AS bytes FROM runs WHERE id = ?",
    )
      .bind(started.run_id)
      .first<{ bytes: number }>();
    expect(row?.bytes).toBeLessThan(100_000);

    const view = await call("GET", `/api/runs/${started.run_id}`, { key: world.tenant.key });
    expect(view.status).toBe(200);
    const { pinned } = (await view.json()) as { pinned: Array<{ scenario: string; pinned: unknown[] }> };
    const pins = pinned[0]?.pinned ?? [];
    expect(pins.map((pin) => (pin as { function_name: string }).function_name)).toEqual([
      "invoices__get_invoice",
      "invoices__place_invoice_on_hold",
      ...Array.from({ length: LOOKUPS }, (_, i) => `invoices__lookup_${i + 1}`),
    ]);
    expect(pinned).toEqual(ids.map((scenario) => ({ scenario, pinned: pins })));
  });
});

describe("a run row written before the pinned column held each record once", () => {
  it("reads as it was written: every scenario with its own list", async () => {
    const started = await startRunDirect(world, "large", { send: async () => undefined });
    const read = async () => {
      const view = await call("GET", `/api/runs/${started.run_id}`, { key: world.tenant.key });
      expect(view.status).toBe(200);
      return ((await view.json()) as { pinned: unknown }).pinned;
    };
    const pinned = await read();
    expect(pinned).toHaveLength(SCENARIOS);
    await env.DB.prepare("UPDATE runs SET pinned = ? WHERE id = ?").bind(JSON.stringify(pinned), started.run_id).run();
    expect(await read()).toEqual(pinned);
  });
});
