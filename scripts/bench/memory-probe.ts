/**
 * Where workerd's memory goes during eval work (local runtime, loopback only). Numbers only.
 *
 *   node --import tsx scripts/bench/memory-probe.ts --mode run --count 1000 --rounds 3 --settle 60
 *
 * Modes, each on a fresh server:
 *   run       the InvoiceDesk suite, --count repetitions (must be a multiple of 5)
 *   nocall    a suite of the two no-call scenarios only (one model answer each, no attempt call)
 *   setup     --count attempts set up through POST /api/simulations and never called
 *   dispatch  the same, each called once over HTTP
 *   retail    τ-bench's retail environment loaded (support/retail-workloads.ts), --count attempts
 *             of its tool set up, then each called with a read (get_order_details), read again,
 *             then each with a write (modify_pending_order_address), read again; every object is
 *             kept loaded (as bench:memory does), so the growth per step is per live attempt
 * Read at each step, each as "before -> after" a full garbage collection of every isolate (through
 * the V8 inspector: toolproof's own isolate and each of Miniflare's local simulators): workerd's
 * resident and anonymous memory and the isolates' JavaScript heaps; also its open SQLite files (one
 * per live attempt object) and, after each round, the local D1 files' size and what its tables hold.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startModelServer } from "../../test/support/model-server/server.js";
import { startToolproof } from "../local-server.js";
import { DEMO_MODEL, demoModelScript } from "../local/demo-model-script.js";
import { positiveFlag, stringFlag } from "./flags.js";
import { freePort } from "./support/free-port.js";
import { dispatchEach, setUpAttempts } from "./support/dispatch-workloads.js";
import { isolateHeaps } from "./support/inspector.js";
import { callAll } from "./support/live-memory.js";
import { ownWorkerdPids, processMemory } from "./support/process-memory.js";
import { field } from "../local/narrow.js";
import { loadRetailEnvironment } from "./support/retail-workloads.js";
import { api, runBenchmark, waitForRun } from "./support/toolproof-api.js";

const MODE = stringFlag("mode") ?? "run";
const COUNT = positiveFlag("count", 1000, true);
const SETTLE_SECONDS = positiveFlag("settle", 60, true);
const ROUNDS = positiveFlag("rounds", 1, true);
const SUITE_FILE = path.join(import.meta.dirname, "../../examples/evals/invoicedesk.yaml");

/** Resident memory before and after every isolate's garbage is collected, and what each isolate's heap holds. */
async function read(step: string, pid: number, inspectorPort: number): Promise<void> {
  const before = await processMemory(pid);
  const heaps = await isolateHeaps(inspectorPort);
  const after = await processMemory(pid);
  // Only isolates holding at least 1 MiB either way are listed; Miniflare runs a dozen small ones.
  const notable = heaps.filter((heap) => heap.used_before_mb >= 1 || heap.used_mb >= 1);
  const js = Object.fromEntries(notable.map((heap) => [heap.isolate, `${heap.used_before_mb} -> ${heap.used_mb}`]));
  const all = (key: "used_before_mb" | "used_mb") =>
    Math.round(heaps.reduce((sum, heap) => sum + heap[key], 0) * 10) / 10;
  console.log(
    JSON.stringify({
      step,
      rss_mb: `${before.rss_mb} -> ${after.rss_mb}`,
      anon_mb: `${before.anon_mb} -> ${after.anon_mb}`,
      sqlite_files: after.sqlite_files,
      js_heap_used_mb_before_and_after_collection: {
        all_isolates: `${all("used_before_mb")} -> ${all("used_mb")}`,
        ...js,
      },
    }),
  );
}

/** Bytes of the local D1 database files (SQLite and its WAL) under the state directory. */
async function d1Bytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true })) {
    const file = path.join(dir, String(entry));
    if (/d1/.test(file) && /\.sqlite(-wal)?$/.test(file)) total += (await stat(file)).size;
  }
  return total;
}

/** Bytes of the rows' text per table in the local D1 database (what the data weighs, without the WAL's rewritten pages). */
async function d1Content(dir: string): Promise<Record<string, number>> {
  const { DatabaseSync } = await import("node:sqlite");
  const files = (await readdir(dir, { recursive: true }))
    .map((entry) => path.join(dir, String(entry)))
    .filter((file) => /d1/.test(file) && file.endsWith(".sqlite"));
  const sizes: Record<string, number> = {};
  for (const file of files) {
    const db = new DatabaseSync(file, { readOnly: true });
    const measure = (table: string, columns: string[]) => {
      const row = db
        .prepare(
          `SELECT count(*) AS n, coalesce(sum(${columns.map((c) => `coalesce(length(${c}), 0)`).join(" + ")}), 0) AS bytes FROM ${table}`,
        )
        .get() as { n: number; bytes: number };
      sizes[`${table}_rows`] = (sizes[`${table}_rows`] ?? 0) + row.n;
      sizes[`${table}_bytes`] = (sizes[`${table}_bytes`] ?? 0) + row.bytes;
    };
    try {
      measure("run_repetitions", ["record", "scenario_id", "attempt_id", "run_id"]);
      measure("attempt_calls", ["arguments", "result", "error", "call_id", "tool", "operation_id", "at", "attempt_id"]);
      measure("attempts", ["state", "completion", "token_hash", "id", "simulation_id", "expires_at", "status"]);
    } catch {
      // not the toolproof database
    } finally {
      db.close();
    }
  }
  return sizes;
}

async function main(): Promise<void> {
  const model = await startModelServer({ logLimit: 10 });
  model.script(DEMO_MODEL, demoModelScript(200));
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "toolproof-memory-probe-"));
  const inspectorPort = await freePort();
  const server = await startToolproof({
    port: 0,
    stateDir,
    quiet: true,
    inspectorPort,
    preventEviction: MODE === "retail",
  });
  try {
    const pids = await ownWorkerdPids();
    const pid = pids[0];
    if (pids.length !== 1 || pid === undefined) throw new Error(`expected one workerd process, found ${pids.length}`);
    await api(
      server,
      "PUT",
      "/api/connections/demo-model",
      JSON.stringify({ base_url: `${model.url}/v1`, model: DEMO_MODEL, api_key: "probe", max_concurrency: 64 }),
    );
    let suite = readFileSync(SUITE_FILE, "utf8");
    if (MODE === "nocall") suite = suite.replace(/scenarios:\n[\s\S]*?( {2}- id: pay-refusal)/, "scenarios:\n$1");
    await api(server, "PUT", "/api/suites/probe", suite, "application/yaml");
    const t = { url: server.url, key: server.demoKey };
    const retail = MODE === "retail" ? await loadRetailEnvironment(t) : null;
    await read("idle", pid, inspectorPort);
    console.log(`D1 files: ${((await d1Bytes(stateDir)) / 1024 / 1024).toFixed(2)} MiB`);
    for (let round = 1; round <= ROUNDS; round++) {
      const started = performance.now();
      if (retail) {
        const attempts = await setUpAttempts(t, retail.toolId, COUNT);
        await read(`${attempts.length} retail attempts set up`, pid, inspectorPort);
        await callAll(
          server.url,
          dispatchEach(t, attempts, (_attempt, index) => retail.read(index)),
        );
        await read("each read once", pid, inspectorPort);
        await callAll(
          server.url,
          dispatchEach(t, attempts, (_attempt, index) => retail.write(index, 0)),
        );
      } else if (MODE === "run" || MODE === "nocall") {
        const perScenario = MODE === "run" ? COUNT / 5 : COUNT / 2;
        const run = await api(
          server,
          "POST",
          "/api/suites/probe/runs",
          JSON.stringify({ runs_per_scenario: perScenario }),
        );
        const view = await waitForRun(server, String(field(run, "id")), 200);
        console.log(
          `run ended ${String(field(view, "status"))} ${String(field(view, "verdict"))} in ${Math.round(performance.now() - started)} ms`,
        );
      } else {
        const tool = server.demoTools.find((t) => t.name === "invoices");
        if (!tool) throw new Error("no demo invoices tool");
        const attempts: Array<{ id: string; token: string }> = [];
        for (let made = 0; made < COUNT; made += 100) {
          const sim = await api(
            server,
            "POST",
            "/api/simulations",
            JSON.stringify({
              tools: [{ tool_id: tool.id, operation_id: "get_invoice" }],
              attempts: Math.min(100, COUNT - made),
              lease_seconds: 3600,
            }),
          );
          const list = field(sim, "attempts");
          if (Array.isArray(list))
            for (const a of list) attempts.push({ id: String(field(a, "id")), token: String(field(a, "token")) });
        }
        console.log(`${attempts.length} attempts set up in ${Math.round(performance.now() - started)} ms`);
        if (MODE === "dispatch") {
          await read("set up", pid, inspectorPort);
          for (const a of attempts) {
            const response = await fetch(`${server.url}/api/attempts/${a.id}/dispatch`, {
              method: "POST",
              headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
              body: JSON.stringify({ tool: "invoices", arguments: { invoice_id: "INV-10431" } }),
            });
            await response.arrayBuffer();
          }
        }
      }
      await read(`after round ${round}`, pid, inspectorPort);
      console.log(
        `D1 files: ${((await d1Bytes(stateDir)) / 1024 / 1024).toFixed(2)} MiB; stored per table: ${JSON.stringify(await d1Content(stateDir))}`,
      );
    }
    for (let waited = 0; waited < SETTLE_SECONDS; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      await read(`+${waited + 20} s`, pid, inspectorPort);
    }
  } finally {
    await server.stop();
    await model.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

runBenchmark(main);
