/**
 * Deleting runs from D1: DELETE /api/runs/:id (an ended run and everything it owns) and the
 * retention sweep of the Cron Trigger's scheduled handler (TOOLPROOF_RETENTION_DAYS), through the
 * Worker's own fetch and scheduled handlers.
 */
import { createScheduledController, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/worker/index.js";
import type { Env } from "../../../src/worker/platform/env.js";
import { sweepRetention } from "../../../src/worker/runs/retention.js";
import { RUN_KEYED_TABLES, RUN_KEYED_TABLES_KEPT } from "../../../src/adapters/d1/run-deletion.js";
import { answer, call, keyWith } from "../helpers.js";
import {
  invoiceDeskWorld,
  invoiceWorld,
  runWithLostMessages,
  startRun,
  waitForRun,
  type InvoiceWorld,
} from "../run-helpers.js";

let world: InvoiceWorld;

beforeAll(async () => {
  world = await invoiceDeskWorld("retention", { runs_per_scenario: 1 });
});

async function finishedRun(): Promise<string> {
  const { id } = await startRun(world, "invoicedesk");
  await waitForRun(world, id);
  return id;
}

/** Every D1 row a run owns, counted per table: by the run's id, and by its attempts' and simulations' ids as they were before any deletion. */
async function rowsOf(
  runId: string,
  owned?: { attempts: string[]; simulations: string[] },
): Promise<{ owned: { attempts: string[]; simulations: string[] }; counts: Record<string, number> }> {
  const ids = owned ?? {
    attempts: (
      await env.DB.prepare("SELECT attempt_id AS id FROM run_repetitions WHERE run_id = ?")
        .bind(runId)
        .all<{ id: string }>()
    ).results.map((row) => row.id),
    simulations: (
      await env.DB.prepare(
        "SELECT DISTINCT simulation_id AS id FROM attempts WHERE id IN (SELECT attempt_id FROM run_repetitions WHERE run_id = ?)",
      )
        .bind(runId)
        .all<{ id: string }>()
    ).results.map((row) => row.id),
  };
  const count = async (sql: string, value: string) =>
    (await env.DB.prepare(sql).bind(value).first<{ n: number }>())?.n ?? -1;
  const attemptsJson = JSON.stringify(ids.attempts);
  const simulationsJson = JSON.stringify(ids.simulations);
  const inJson = "(SELECT value FROM json_each(?))";
  return {
    owned: ids,
    counts: {
      runs: await count("SELECT count(*) AS n FROM runs WHERE id = ?", runId),
      run_repetitions: await count("SELECT count(*) AS n FROM run_repetitions WHERE run_id = ?", runId),
      judge_labels: await count("SELECT count(*) AS n FROM judge_labels WHERE run_id = ?", runId),
      callback_deliveries: await count("SELECT count(*) AS n FROM callback_deliveries WHERE run_id = ?", runId),
      callback_sends: await count("SELECT count(*) AS n FROM callback_sends WHERE run_id = ?", runId),
      agent_jobs: await count("SELECT count(*) AS n FROM agent_jobs WHERE run_id = ?", runId),
      attempts: await count(`SELECT count(*) AS n FROM attempts WHERE id IN ${inJson}`, attemptsJson),
      attempt_calls: await count(`SELECT count(*) AS n FROM attempt_calls WHERE attempt_id IN ${inJson}`, attemptsJson),
      simulations: await count(`SELECT count(*) AS n FROM simulations WHERE id IN ${inJson}`, simulationsJson),
    },
  };
}

const NONE = {
  runs: 0,
  run_repetitions: 0,
  judge_labels: 0,
  callback_deliveries: 0,
  callback_sends: 0,
  agent_jobs: 0,
  attempts: 0,
  attempt_calls: 0,
  simulations: 0,
};

/** The Worker's scheduled handler, as the Cron Trigger calls it, with `vars` over the test env. */
async function cronTick(vars: Partial<Env>, at = Date.now()): Promise<void> {
  // The handler awaits its sweep itself (it uses no waitUntil), so its promise is the whole tick.
  await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "17 * * * *" }), {
    ...env,
    ...vars,
  } as Env);
}

async function ageRun(runId: string, days: number): Promise<void> {
  await env.DB.prepare("UPDATE runs SET finished_at = ? WHERE id = ?")
    .bind(new Date(Date.now() - days * 86_400_000).toISOString(), runId)
    .run();
}

describe("DELETE /api/runs/:id", () => {
  it("clears every D1 table with a run_id column but the delivery log", async () => {
    const tables = (
      await env.DB.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'",
      ).all<{ name: string }>()
    ).results.map((row) => row.name);
    const withRunId: string[] = [];
    for (const table of tables) {
      const columns = (
        await env.DB.prepare(`SELECT name FROM pragma_table_info('${table}')`).all<{ name: string }>()
      ).results.map((row) => row.name);
      if (columns.includes("run_id")) withRunId.push(table);
    }
    expect(withRunId.sort()).toEqual([...RUN_KEYED_TABLES, ...RUN_KEYED_TABLES_KEPT].sort());
  });

  it("deletes an ended run with its repetitions, labels, attempts and their calls, and nothing of another run", async () => {
    const runId = await finishedRun();
    const kept = await finishedRun();
    expect(
      (
        await call("POST", `/api/runs/${runId}/labels`, {
          key: world.tenant.key,
          body: { labels: [{ repetition: 1, label: "pass" }] },
        })
      ).status,
    ).toBe(200);
    const before = await rowsOf(runId);
    const keptBefore = await rowsOf(kept);
    // What there is to delete: 5 repetitions, each an attempt (the looked-up invoices made calls), one simulation per scenario, a label.
    expect(before.counts).toEqual({
      ...NONE,
      runs: 1,
      run_repetitions: 5,
      judge_labels: 1,
      attempts: 5,
      attempt_calls: expect.any(Number),
      simulations: 5,
    });
    expect(before.counts.attempt_calls).toBeGreaterThan(0);

    const reader = await keyWith(world.tenant.id, ["AIManager:ManageTools"]);
    expect((await call("DELETE", `/api/runs/${runId}`, { key: reader })).status).toBe(403);
    const evals = await keyWith(world.tenant.id, ["AIManager:RunEvals"]);
    expect(await answer(await call("DELETE", `/api/runs/${runId}`, { key: evals }))).toEqual({
      status: 200,
      body: { id: runId, deleted: true },
    });
    expect((await rowsOf(runId, before.owned)).counts).toEqual(NONE);
    expect(await answer(await call("GET", `/api/runs/${runId}`, { key: world.tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "run not found" } },
    });
    expect(await answer(await call("DELETE", `/api/runs/${runId}`, { key: world.tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "run not found" } },
    });
    expect(await rowsOf(kept, keptBefore.owned)).toEqual(keptBefore);
  });

  it("refuses a run that has not ended, and deletes it once cancelled", async () => {
    const runId = await runWithLostMessages(world);
    expect(await answer(await call("DELETE", `/api/runs/${runId}`, { key: world.tenant.key }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "run_not_ended",
          message: `run ${runId} is queued: only an ended run (finished or cancelled) can be deleted; cancel it first (POST /api/runs/${runId}/cancel)`,
        },
      },
    });
    expect((await call("POST", `/api/runs/${runId}/cancel`, { key: world.tenant.key })).status).toBe(200);
    await waitForRun(world, runId);
    expect(await answer(await call("DELETE", `/api/runs/${runId}`, { key: world.tenant.key }))).toEqual({
      status: 200,
      body: { id: runId, deleted: true },
    });
  });

  it("answers another tenant's run exactly as an unknown one", async () => {
    const runId = await finishedRun();
    const other = await invoiceWorld("retention-other");
    expect(await answer(await call("DELETE", `/api/runs/${runId}`, { key: other.tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "run not found" } },
    });
    expect((await call("GET", `/api/runs/${runId}`, { key: world.tenant.key })).status).toBe(200);
  });
});

describe("the retention sweep (scheduled handler)", () => {
  it("deletes ended runs older than TOOLPROOF_RETENTION_DAYS and keeps younger ones; unset or invalid, it deletes nothing", async () => {
    const old = await finishedRun();
    const young = await finishedRun();
    await ageRun(old, 31);
    await ageRun(young, 29);
    const oldRows = await rowsOf(old);

    await cronTick({ TOOLPROOF_RETENTION_DAYS: undefined });
    await cronTick({ TOOLPROOF_RETENTION_DAYS: "thirty" });
    await cronTick({ TOOLPROOF_RETENTION_DAYS: "0" });
    expect((await rowsOf(old, oldRows.owned)).counts).toEqual(oldRows.counts);

    await cronTick({ TOOLPROOF_RETENTION_DAYS: "30" });
    expect((await rowsOf(old, oldRows.owned)).counts).toEqual(NONE);
    expect((await call("GET", `/api/runs/${young}`, { key: world.tenant.key })).status).toBe(200);
  });

  it("never deletes a run that has not ended, however old", async () => {
    const live = await runWithLostMessages(world);
    await env.DB.prepare("UPDATE runs SET created_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 400 * 86_400_000).toISOString(), live)
      .run();
    await cronTick({ TOOLPROOF_RETENTION_DAYS: "1" });
    expect((await call("GET", `/api/runs/${live}`, { key: world.tenant.key })).status).toBe(200);
  });

  it("deletes in bounded sweeps, oldest first, and says when more are due", async () => {
    const runs = [await finishedRun(), await finishedRun(), await finishedRun()];
    await ageRun(runs[0] ?? "", 38);
    await ageRun(runs[1] ?? "", 37);
    await ageRun(runs[2] ?? "", 36);
    const retention = { ...env, TOOLPROOF_RETENTION_DAYS: "35" } as Env;
    // Earlier tests' runs are younger (29 days at most): only these three are due.
    expect(await sweepRetention(retention, Date.now(), 2)).toEqual({ deleted: 2, more: true });
    const status = async (id: string) => (await call("GET", `/api/runs/${id}`, { key: world.tenant.key })).status;
    expect([await status(runs[0] ?? ""), await status(runs[1] ?? ""), await status(runs[2] ?? "")]).toEqual([
      404, 404, 200,
    ]);
    expect(await sweepRetention(retention, Date.now(), 2)).toEqual({ deleted: 1, more: false });
  });
});
