/**
 * Where workerd's memory goes after eval work (local runtime, loopback only). Numbers only.
 *
 *   node --import tsx scripts/bench/memory-probe.ts --mode run --count 1000 --settle 60
 *
 * Modes, each on a fresh server:
 *   run       the InvoiceDesk suite, --count repetitions (must be a multiple of 5)
 *   nocall    a suite of the two no-call scenarios only (one model answer each, no attempt call)
 *   setup     --count attempts set up through POST /api/simulations and never called
 *   dispatch  the same, each called once over HTTP
 * Read at each step: workerd's resident memory, its open SQLite files (one per live attempt
 * object), the brk heap and anonymous mappings (/proc/<pid>/smaps), and the Worker isolate's JS
 * heap through the V8 inspector (used and allocated); after each round, the local D1 files' size.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startModelServer } from "../../test/support/model-server/server.js";
import { startToolproof, type RunningToolproof } from "../local-server.js";
import { DEMO_MODEL, demoModelScript } from "../local/demo-model-script.js";
import { positiveFlag, stringFlag } from "./flags.js";

const MODE = stringFlag("mode") ?? "run";
const COUNT = positiveFlag("count", 1000, true);
const SETTLE_SECONDS = positiveFlag("settle", 60, true);
const ROUNDS = positiveFlag("rounds", 1, true);
const INSPECTOR_PORT = positiveFlag("inspector-port", 9329, true);
const SUITE_FILE = path.join(import.meta.dirname, "../../examples/evals/invoicedesk.yaml");

interface Reading {
  step: string;
  rss_mb: number;
  sqlite_files: number;
  brk_heap_mb: number;
  anon_mb: number;
  js_used_mb: number | null;
  js_total_mb: number | null;
  /** What V8 counts outside the JS heap for the embedder (workerd's own objects) and for ArrayBuffer contents, when it reports them. */
  js_embedder_mb: number | null;
  js_backing_store_mb: number | null;
}

async function api(server: RunningToolproof, method: string, route: string, body?: string, type = "application/json"): Promise<unknown> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${server.demoKey}`, "content-type": type } };
  if (body !== undefined) init.body = body;
  const response = await fetch(`${server.url}${route}`, init);
  const answer: unknown = await response.json();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  return answer;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

async function workerdPid(): Promise<number> {
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = await readFile(`/proc/${name}/status`, "utf8");
      if (/^Name:\s+workerd/m.test(status) && new RegExp(`^PPid:\\s+${process.pid}$`, "m").test(status)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error("no workerd child process");
}

async function procReading(pid: number): Promise<Omit<Reading, "step" | "js_used_mb" | "js_total_mb" | "js_embedder_mb" | "js_backing_store_mb">> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  let sqlite = 0;
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    try {
      const { readlink } = await import("node:fs/promises");
      if ((await readlink(`/proc/${pid}/fd/${fd}`)).endsWith(".sqlite")) sqlite++;
    } catch {
      // closed meanwhile
    }
  }
  const smaps = await readFile(`/proc/${pid}/smaps`, "utf8");
  let heap = 0;
  let anon = 0;
  let current = "";
  for (const line of smaps.split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      current = header[1] ?? "";
      continue;
    }
    const rssLine = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rssLine) continue;
    const kb = Number(rssLine[1]);
    if (current === "[heap]") heap += kb;
    else if (current === "") anon += kb;
  }
  return { rss_mb: Math.round(rss / 1024), sqlite_files: sqlite, brk_heap_mb: Math.round(heap / 1024), anon_mb: Math.round(anon / 1024) };
}

/** A CDP session with the Worker's isolate (the one named after the Worker in /json/list). */
async function inspector(): Promise<{ send(method: string): Promise<unknown>; close(): void } | null> {
  try {
    const list: unknown = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json();
    const targets = Array.isArray(list) ? list : [];
    const target = targets.find((t: unknown) => String(field(t, "id") ?? field(t, "title")).includes("toolproof")) ?? targets[0];
    const url = field(target, "webSocketDebuggerUrl");
    if (typeof url !== "string") return null;
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.addEventListener("open", resolve);
      socket.addEventListener("error", reject);
    });
    let next = 1;
    const waiting = new Map<number, (value: unknown) => void>();
    socket.addEventListener("message", (event: MessageEvent) => {
      const message: unknown = JSON.parse(String(event.data));
      const id = field(message, "id");
      if (typeof id === "number") waiting.get(id)?.(field(message, "result") ?? field(message, "error") ?? null);
    });
    return {
      send(method) {
        const id = next++;
        socket.send(JSON.stringify({ id, method, params: {} }));
        return new Promise((resolve) => waiting.set(id, resolve));
      },
      close: () => socket.close(),
    };
  } catch (error) {
    console.error("inspector not reachable:", error);
    return null;
  }
}

async function read(step: string, pid: number): Promise<Reading> {
  const session = await inspector();
  const heap = session ? await session.send("Runtime.getHeapUsage") : null;
  session?.close();
  const mb = (key: string) => (typeof field(heap, key) === "number" ? Math.round(Number(field(heap, key)) / 1024 / 1024) : null);
  const reading = { step, ...(await procReading(pid)), js_used_mb: mb("usedSize"), js_total_mb: mb("totalSize"), js_embedder_mb: mb("embedderHeapUsedSize"), js_backing_store_mb: mb("backingStorageSize") };
  console.log(JSON.stringify(reading));
  return reading;
}

async function waitForRun(server: RunningToolproof, id: string): Promise<unknown> {
  for (;;) {
    const view = await api(server, "GET", `/api/runs/${id}`);
    const status = field(view, "status");
    if (status !== "queued" && status !== "running") return view;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Bytes of the local D1 database files (SQLite and its WAL) under the state directory. */
async function d1Bytes(dir: string): Promise<number> {
  const { stat } = await import("node:fs/promises");
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
  const files = (await readdir(dir, { recursive: true })).map((entry) => path.join(dir, String(entry))).filter((file) => /d1/.test(file) && file.endsWith(".sqlite"));
  const sizes: Record<string, number> = {};
  for (const file of files) {
    const db = new DatabaseSync(file, { readOnly: true });
    const measure = (table: string, columns: string[]) => {
      const row = db.prepare(`SELECT count(*) AS n, coalesce(sum(${columns.map((c) => `coalesce(length(${c}), 0)`).join(" + ")}), 0) AS bytes FROM ${table}`).get() as { n: number; bytes: number };
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
  const server = await startToolproof({ port: 0, stateDir, quiet: true, inspectorPort: INSPECTOR_PORT });
  try {
    const pid = await workerdPid();
    await api(server, "PUT", "/api/connections/demo-model", JSON.stringify({ base_url: `${model.url}/v1`, model: DEMO_MODEL, api_key: "probe", max_concurrency: 64 }));
    let suite = readFileSync(SUITE_FILE, "utf8");
    if (MODE === "nocall") suite = suite.replace(/scenarios:\n[\s\S]*?(  - id: pay-refusal)/, "scenarios:\n$1");
    await api(server, "PUT", "/api/suites/probe", suite, "application/yaml");
    await read("idle", pid);
    console.log(`D1 files: ${((await d1Bytes(stateDir)) / 1024 / 1024).toFixed(2)} MiB`);
    for (let round = 1; round <= ROUNDS; round++) {
    const started = performance.now();
    if (MODE === "run" || MODE === "nocall") {
      const perScenario = MODE === "run" ? COUNT / 5 : COUNT / 2;
      const run = await api(server, "POST", "/api/suites/probe/runs", JSON.stringify({ runs_per_scenario: perScenario }));
      const view = await waitForRun(server, String(field(run, "id")));
      console.log(`run ended ${String(field(view, "status"))} ${String(field(view, "verdict"))} in ${Math.round(performance.now() - started)} ms`);
    } else {
      const tool = server.demoTools.find((t) => t.name === "invoices");
      if (!tool) throw new Error("no demo invoices tool");
      const attempts: Array<{ id: string; token: string }> = [];
      for (let made = 0; made < COUNT; made += 100) {
        const sim = await api(server, "POST", "/api/simulations", JSON.stringify({ tools: [{ tool_id: tool.id, operation_id: "get_invoice" }], attempts: Math.min(100, COUNT - made), lease_seconds: 3600 }));
        const list = field(sim, "attempts");
        if (Array.isArray(list)) for (const a of list) attempts.push({ id: String(field(a, "id")), token: String(field(a, "token")) });
      }
      console.log(`${attempts.length} attempts set up in ${Math.round(performance.now() - started)} ms`);
      if (MODE === "dispatch") {
        await read("set up", pid);
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
    await read(`after round ${round}`, pid);
    console.log(`D1 files: ${((await d1Bytes(stateDir)) / 1024 / 1024).toFixed(2)} MiB; stored per table: ${JSON.stringify(await d1Content(stateDir))}`);
    }
    for (let waited = 0; waited < SETTLE_SECONDS; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      await read(`+${waited + 20} s`, pid);
    }
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
