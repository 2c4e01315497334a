/**
 * Benchmark of eval runs on the local Workers runtime (the code `npm start` runs), loopback only.
 *
 *   npm run bench:evals
 *   npm run bench:evals -- --runs 20 --latency 200 --large-runs 200 --settle 30 --json
 *
 * The seed's InvoiceDesk suite (examples/evals/invoicedesk.yaml, five scenarios) against the demo
 * model (scripts/local/demo-model-script.ts) answering every request after `--latency` ms:
 *   1. `--runs` repetitions per scenario (default 20: 100 repetitions; the three scenarios with a
 *      call make a tool turn, a final answer and a judge call, the two without make one answer).
 *      Printed: wall time from the POST to the run's end, repetitions per second, the most model
 *      calls in flight at once, and the wall time against the ideal for that concurrency (all
 *      model time divided by the calls in flight, never less than one repetition's chain), beside what a concurrency of 4 (promptfoo's
 *      default) would need at best.
 *   2. `--large-runs` per scenario (default 200: 1,000 repetitions) and `--largest-runs` (default
 *      400: 2,000 repetitions), for memory, on the same server one after another. For each run:
 *      workerd's resident memory sampled through the run (its peak), then read again once every
 *      isolate's garbage has been collected (through the V8 inspector), with toolproof's own
 *      isolate's heap after that collection, and the size of the run's stored results. What is
 *      retained must not grow with the run's size beyond its results; the peak also counts garbage
 *      that V8 sweeps only when it must. Memory is read once more `--settle` seconds after the last
 *      run (default 30), when idle objects have been evicted.
 * Each run must end with verdict `pass` and every repetition recorded, or the benchmark fails:
 * a fast wrong answer is not a result. Numbers only, never a test.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startModelServer, type ModelServer } from "../../test/support/model-server/server.js";
import { startToolproof, type RunningToolproof } from "../local-server.js";
import { DEMO_MODEL, demoModelScript } from "../local/demo-model-script.js";
import { positiveFlag } from "./flags.js";
import { freePort } from "./support/free-port.js";
import { isolateHeaps } from "./support/inspector.js";
import { workerdRssMb } from "./support/process-memory.js";
import { field } from "../local/narrow.js";
import { api, runBenchmark, waitForRun } from "./support/toolproof-api.js";

const RUNS = positiveFlag("runs", 20, true);
const LARGE_RUNS = positiveFlag("large-runs", 200, true);
const LARGEST_RUNS = positiveFlag("largest-runs", 400, true);
const LATENCY_MS = positiveFlag("latency", 200, true);
const AS_JSON = process.argv.includes("--json");
/** Seconds to wait after the last run before memory is read again, to tell live objects from what stays. */
const SETTLE_SECONDS = positiveFlag("settle", 30, true);
const SUITE_FILE = path.join(import.meta.dirname, "../../examples/evals/invoicedesk.yaml");
const SUITE = "invoicedesk-bench";
/** Polling the run reads its live figures; often enough to time the end to ~1%, rare enough not to load the coordinator. */
const POLL_MS = 100;
/** Model calls one repetition makes at most, one after another: a tool turn, the final answer, the judge. */
const LONGEST_CHAIN = 3;
/** The inspector target of toolproof's own Worker (Miniflare names it after wrangler.toml's name). */
const TOOLPROOF_ISOLATE = "core:user:toolproof";

/** Memory once every isolate's garbage has been collected: what the runtime really retains. */
interface Retained {
  workerd_rss_before_collection_mb: number | null;
  workerd_rss_mb: number | null;
  toolproof_js_heap_mb: number | null;
  all_js_heaps_mb: number;
}

interface RunFigures {
  repetitions: number;
  wall_ms: number;
  repetitions_per_second: number;
  model_calls: number;
  max_in_flight: number;
  /** All model time divided by the calls in flight, or one repetition's chain of calls if longer: the best this concurrency allows. */
  ideal_ms: number;
  ratio_to_ideal: number;
  /** The best a concurrency of 4 could do with the same model calls. */
  ideal_at_4_ms: number;
  verdict: string;
  workerd_rss_peak_mb: number | null;
  retained: Retained;
  stored_results_mb: number;
}

async function retainedMemory(inspectorPort: number): Promise<Retained> {
  const before = await workerdRssMb();
  const heaps = await isolateHeaps(inspectorPort);
  const after = await workerdRssMb();
  const mb = (value: number | null) => (value === null ? null : Math.round(value));
  return {
    workerd_rss_before_collection_mb: mb(before),
    workerd_rss_mb: mb(after),
    toolproof_js_heap_mb: heaps.find((heap) => heap.isolate === TOOLPROOF_ISOLATE)?.used_mb ?? null,
    all_js_heaps_mb: Math.round(heaps.reduce((sum, heap) => sum + heap.used_mb, 0) * 10) / 10,
  };
}

async function measure(
  server: RunningToolproof,
  model: ModelServer,
  inspectorPort: number,
  runsPerScenario: number,
): Promise<RunFigures> {
  model.resetStats();
  let peak: number | null = null;
  const started = performance.now();
  const run = await api(
    server,
    "POST",
    `/api/suites/${SUITE}/runs`,
    JSON.stringify({ runs_per_scenario: runsPerScenario, label: "bench" }),
  );
  const id = field(run, "id");
  if (typeof id !== "string") throw new Error(`the run answered no id: ${JSON.stringify(run)}`);
  const view = await waitForRun(server, id, POLL_MS, async (polls) => {
    if (polls % 5 !== 0) return;
    const rss = await workerdRssMb();
    if (rss !== null) peak = Math.max(peak ?? 0, rss);
  });
  const wall = performance.now() - started;
  const stats = model.stats();
  const repetitions = 5 * runsPerScenario;
  const verdict = String(field(view, "verdict"));
  const finished = field(field(view, "progress"), "finished") ?? field(view, "finished_repetitions");
  if (field(view, "status") !== "finished" || verdict !== "pass") {
    throw new Error(
      `the run ended ${String(field(view, "status"))} with verdict ${verdict}: ${JSON.stringify(view).slice(0, 2000)}`,
    );
  }
  if (finished !== undefined && finished !== repetitions)
    throw new Error(`expected ${repetitions} repetitions recorded, the run says ${String(finished)}`);
  const storedBytes = await storedResultsBytes(server, id);
  const retained = await retainedMemory(inspectorPort);
  const modelTime = stats.requests_total * LATENCY_MS;
  // A repetition's calls are sequential (tool turn, final answer, judge), so no concurrency beats that chain.
  const ideal = Math.max(modelTime / Math.max(1, stats.max_in_flight), LONGEST_CHAIN * LATENCY_MS);
  return {
    repetitions,
    wall_ms: Math.round(wall),
    repetitions_per_second: Math.round((repetitions / (wall / 1000)) * 10) / 10,
    model_calls: stats.requests_total,
    max_in_flight: stats.max_in_flight,
    ideal_ms: Math.round(ideal),
    ratio_to_ideal: Math.round((wall / ideal) * 100) / 100,
    ideal_at_4_ms: Math.round(modelTime / 4),
    verdict,
    workerd_rss_peak_mb: peak === null ? null : Math.round(peak),
    retained,
    stored_results_mb: Math.round((storedBytes / 1024 / 1024) * 100) / 100,
  };
}

/** The bytes of every repetition record the API answers for the run (what the run's results weigh). */
async function storedResultsBytes(server: RunningToolproof, runId: string): Promise<number> {
  let bytes = 0;
  let cursor: string | null = null;
  do {
    const page = await api(
      server,
      "GET",
      `/api/runs/${runId}/repetitions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    bytes += JSON.stringify(field(page, "items")).length;
    const next = field(page, "next_cursor");
    cursor = typeof next === "string" ? next : null;
  } while (cursor !== null);
  return bytes;
}

async function main(): Promise<void> {
  const model = await startModelServer({ logLimit: 10 });
  model.script(DEMO_MODEL, demoModelScript(LATENCY_MS));
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "toolproof-bench-evals-"));
  const inspectorPort = await freePort();
  const server = await startToolproof({ port: 0, stateDir, quiet: true, inspectorPort });
  try {
    const connection = { base_url: `${model.url}/v1`, model: DEMO_MODEL, api_key: "bench", max_concurrency: 64 };
    await api(server, "PUT", "/api/connections/demo-model", JSON.stringify(connection));
    await api(server, "PUT", `/api/suites/${SUITE}`, readFileSync(SUITE_FILE, "utf8"), "application/yaml");
    const idle = await retainedMemory(inspectorPort);
    const runs = [];
    for (const perScenario of [RUNS, LARGE_RUNS, LARGEST_RUNS])
      runs.push(await measure(server, model, inspectorPort, perScenario));
    await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
    const settled = await retainedMemory(inspectorPort);
    const result = { latency_ms: LATENCY_MS, idle, runs, settled, settle_seconds: SETTLE_SECONDS };
    if (AS_JSON) {
      console.log(JSON.stringify(result, null, 2));
      return;
    }
    const na = (value: number | null) => (value === null ? "n/a" : String(value));
    const memory = (m: Retained) =>
      `workerd ${na(m.workerd_rss_before_collection_mb)} MiB, ${na(m.workerd_rss_mb)} once garbage is collected; toolproof's JS heap ${na(m.toolproof_js_heap_mb)} MiB, all isolates' ${m.all_js_heaps_mb} MiB`;
    const line = (label: string, f: RunFigures) =>
      [
        `${label}: ${f.repetitions} repetitions in ${(f.wall_ms / 1000).toFixed(2)} s (${f.repetitions_per_second}/s), verdict ${f.verdict}`,
        `    ${f.model_calls} model calls at ${LATENCY_MS} ms, at most ${f.max_in_flight} in flight; ideal at that concurrency ${(f.ideal_ms / 1000).toFixed(2)} s (wall/ideal ${f.ratio_to_ideal}); at concurrency 4 at best ${(f.ideal_at_4_ms / 1000).toFixed(1)} s`,
        `    memory: peak during the run ${na(f.workerd_rss_peak_mb)} MiB; after it ${memory(f.retained)}`,
        `    repetition summaries as GET …/repetitions answers them: ${f.stored_results_mb} MiB`,
      ].join("\n");
    console.log(`eval benchmark (local Workers runtime, demo model answering after ${LATENCY_MS} ms)`);
    console.log(`  before the runs: ${memory(idle)}`);
    for (const [index, figures] of runs.entries()) console.log(line(`  run ${index + 1}`, figures));
    console.log(`  ${SETTLE_SECONDS} s after the last run: ${memory(settled)}`);
  } finally {
    await server.stop();
    await model.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

runBenchmark(main);
