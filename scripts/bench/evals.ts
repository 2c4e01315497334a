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
 *   2. `--large-runs` per scenario (default 200: 1,000 repetitions), for memory: workerd's
 *      resident memory sampled through the run, against the first run's, and the size of the
 *      stored results. It must finish; memory should not grow with the run beyond its results.
 *      Memory is read once more `--settle` seconds after the last run (default 30), when idle
 *      objects may have been evicted.
 * Each run must end with verdict `pass` and every repetition recorded, or the benchmark fails:
 * a fast wrong answer is not a result. Numbers only, never a test.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startModelServer, type ModelServer } from "../../test/support/model-server/server.js";
import { startToolproof, type RunningToolproof } from "../local-server.js";
import { DEMO_MODEL, demoModelScript } from "../local/demo-model-script.js";
import { positiveFlag } from "./flags.js";

const RUNS = positiveFlag("runs", 20, true);
const LARGE_RUNS = positiveFlag("large-runs", 200, true);
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
  stored_results_mb: number;
}

async function api(server: RunningToolproof, method: string, route: string, body?: string, type = "application/json"): Promise<unknown> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${server.demoKey}`, "content-type": type } };
  if (body !== undefined) init.body = body;
  const response = await fetch(`${server.url}${route}`, init);
  const answer: unknown = await response.json();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** Resident memory of the workerd processes this benchmark started (descendants of this process, Linux /proc), in MiB; null elsewhere. */
async function workerdRssMb(): Promise<number | null> {
  let entries: string[];
  try {
    entries = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const parents = new Map<number, number>();
  const workerd = new Map<number, number>();
  for (const pid of entries) {
    try {
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const parent = /^PPid:\s+(\d+)/m.exec(status)?.[1];
      if (parent !== undefined) parents.set(Number(pid), Number(parent));
      const rss = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
      if (/^Name:\s+workerd/m.test(status) && rss !== undefined) workerd.set(Number(pid), Number(rss));
    } catch {
      // the process ended between readdir and readFile
    }
  }
  const isOurs = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) if (at === process.pid) return true;
    return false;
  };
  const kib = [...workerd].filter(([pid]) => isOurs(pid)).reduce((sum, [, rss]) => sum + rss, 0);
  return kib > 0 ? kib / 1024 : null;
}

async function measure(server: RunningToolproof, model: ModelServer, runsPerScenario: number): Promise<RunFigures> {
  model.resetStats();
  let peak: number | null = null;
  const started = performance.now();
  const run = await api(server, "POST", `/api/suites/${SUITE}/runs`, JSON.stringify({ runs_per_scenario: runsPerScenario, label: "bench" }));
  const id = field(run, "id");
  if (typeof id !== "string") throw new Error(`the run answered no id: ${JSON.stringify(run)}`);
  let view: unknown;
  for (let polls = 0; ; polls++) {
    view = await api(server, "GET", `/api/runs/${id}`);
    const status = field(view, "status");
    if (status !== "queued" && status !== "running") break;
    if (polls % 5 === 0) {
      const rss = await workerdRssMb();
      if (rss !== null) peak = Math.max(peak ?? 0, rss);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const wall = performance.now() - started;
  const stats = model.stats();
  const repetitions = 5 * runsPerScenario;
  const verdict = String(field(view, "verdict"));
  const finished = field(field(view, "progress"), "finished") ?? field(view, "finished_repetitions");
  if (field(view, "status") !== "finished" || verdict !== "pass") {
    throw new Error(`the run ended ${String(field(view, "status"))} with verdict ${verdict}: ${JSON.stringify(view).slice(0, 2000)}`);
  }
  if (finished !== undefined && finished !== repetitions) throw new Error(`expected ${repetitions} repetitions recorded, the run says ${String(finished)}`);
  const storedBytes = await storedResultsBytes(server, id);
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
    stored_results_mb: Math.round((storedBytes / 1024 / 1024) * 100) / 100,
  };
}

/** The bytes of every repetition record the API answers for the run (what the run's results weigh). */
async function storedResultsBytes(server: RunningToolproof, runId: string): Promise<number> {
  let bytes = 0;
  let cursor: string | null = null;
  do {
    const page = await api(server, "GET", `/api/runs/${runId}/repetitions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
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
  const server = await startToolproof({ port: 0, stateDir, quiet: true });
  try {
    const connection = { base_url: `${model.url}/v1`, model: DEMO_MODEL, api_key: "bench", max_concurrency: 64 };
    await api(server, "PUT", "/api/connections/demo-model", JSON.stringify(connection));
    await api(server, "PUT", `/api/suites/${SUITE}`, readFileSync(SUITE_FILE, "utf8"), "application/yaml");
    const rssIdle = await workerdRssMb();
    const small = await measure(server, model, RUNS);
    const large = await measure(server, model, LARGE_RUNS);
    const rssAfter = await workerdRssMb();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
    const rssSettled = await workerdRssMb();
    const mb = (value: number | null) => (value === null ? null : Math.round(value));
    const result = { latency_ms: LATENCY_MS, workerd_rss_idle_mb: mb(rssIdle), small, large, workerd_rss_after_mb: mb(rssAfter), workerd_rss_settled_mb: mb(rssSettled), settle_seconds: SETTLE_SECONDS };
    if (AS_JSON) {
      console.log(JSON.stringify(result, null, 2));
      return;
    }
    const line = (label: string, f: RunFigures) =>
      [
        `${label}: ${f.repetitions} repetitions in ${(f.wall_ms / 1000).toFixed(2)} s (${f.repetitions_per_second}/s), verdict ${f.verdict}`,
        `    ${f.model_calls} model calls at ${LATENCY_MS} ms, at most ${f.max_in_flight} in flight; ideal at that concurrency ${(f.ideal_ms / 1000).toFixed(2)} s (wall/ideal ${f.ratio_to_ideal}); at concurrency 4 at best ${(f.ideal_at_4_ms / 1000).toFixed(1)} s`,
        `    workerd resident memory peak ${f.workerd_rss_peak_mb ?? "n/a"} MiB; repetition summaries as GET …/repetitions answers them ${f.stored_results_mb} MiB`,
      ].join("\n");
    console.log(`eval benchmark (local Workers runtime, demo model answering after ${LATENCY_MS} ms)`);
    console.log(
      `  workerd resident memory before the runs: ${result.workerd_rss_idle_mb ?? "n/a"} MiB, after both: ${result.workerd_rss_after_mb ?? "n/a"} MiB, ${SETTLE_SECONDS} s later: ${result.workerd_rss_settled_mb ?? "n/a"} MiB`,
    );
    console.log(line("  run 1", small));
    console.log(line("  run 2", large));
  } finally {
    await server.stop();
    await model.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
