/**
 * The runtime's primitives one at a time on top of the durable floor (support/floor-worker.ts's
 * INSERT in one Durable Object RPC), to tell what each thing toolproof does per call costs:
 *   write      the floor: one INSERT of a 128-byte row
 *   wide       an evidence-shaped row instead: 15 columns, about 250 bytes, a unique call_id index
 *   nouniq     the same without the unique index
 *   big        the floor's row three times over
 *   alarmEach  the floor plus setAlarm on every call
 *   alarmOnce  the floor plus setAlarm on an object's first call only
 *   timer1     the floor plus one pending setTimeout per object
 *   txn        the floor plus an UPSERT, both in transactionSync
 *
 *   node --import tsx scripts/bench/dispatch-primitives.ts [objects=200] [routes=write,wide,nouniq,big]
 *
 * Three rounds of each, wrk at 32 connections round-robin over the objects; req/s, latency and
 * the runtime's CPU time per call. Numbers only: never a test.
 */
import os from "node:os";
import { cpuMs, ownWorkerdPids } from "./support/process-memory.js";
import { startProbeWorker } from "./support/probe-worker.js";
import { pinThisProcess, planCores, runWrk } from "./wrk.js";

const script = `
import { DurableObject } from "cloudflare:workers";
export class Probe extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS calls (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS wide (seq INTEGER PRIMARY KEY, call_id TEXT UNIQUE, tool TEXT NOT NULL, operation_id TEXT NOT NULL, revision INTEGER, variant TEXT, rule INTEGER, arguments TEXT NOT NULL, outcome TEXT NOT NULL, result TEXT, error TEXT, delay_ms INTEGER NOT NULL, at TEXT NOT NULL, state_change TEXT, upstream TEXT)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS wide2 (seq INTEGER PRIMARY KEY, call_id TEXT, tool TEXT NOT NULL, operation_id TEXT NOT NULL, revision INTEGER, variant TEXT, rule INTEGER, arguments TEXT NOT NULL, outcome TEXT NOT NULL, result TEXT, error TEXT, delay_ms INTEGER NOT NULL, at TEXT NOT NULL, state_change TEXT, upstream TEXT)");
    this.calls = 0; this.timer = null; this.alarmSet = false;
  }
  write(n) { this.calls++; this.ctx.storage.sql.exec("INSERT INTO calls (body) VALUES (?)", ROW + n); return "ok " + n; }
  wide(n) { this.calls++; this.ctx.storage.sql.exec("INSERT INTO wide (call_id, tool, operation_id, revision, variant, rule, arguments, outcome, result, error, delay_ms, at, state_change, upstream) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", null, "bench_patients_xxxxxxxx", "get_patient", 1, "found", null, ARGS, "result", RESULT, null, 0, new Date().toISOString(), null, null); return "ok " + n; }
  nouniq(n) { this.calls++; this.ctx.storage.sql.exec("INSERT INTO wide2 (call_id, tool, operation_id, revision, variant, rule, arguments, outcome, result, error, delay_ms, at, state_change, upstream) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", null, "bench_patients_xxxxxxxx", "get_patient", 1, "found", null, ARGS, "result", RESULT, null, 0, new Date().toISOString(), null, null); return "ok " + n; }
  big(n) { this.calls++; this.ctx.storage.sql.exec("INSERT INTO calls (body) VALUES (?)", ROW + ROW + ROW + n); return "ok " + n; }
  alarmEach(n) { this.write(n); this.ctx.storage.setAlarm(Date.now() + 30000); return "ok"; }
  alarmOnce(n) { this.write(n); if (!this.alarmSet) { this.alarmSet = true; this.ctx.storage.setAlarm(Date.now() + 30000); } return "ok"; }
  timer1(n) { this.write(n); if (!this.timer) this.timer = setTimeout(() => { this.timer = null; }, 10000); return "ok"; }
  txn(n) { this.ctx.storage.transactionSync(() => { this.write(n); this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS s (k TEXT PRIMARY KEY, v TEXT)"); this.ctx.storage.sql.exec("INSERT INTO s VALUES ('a', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", "x" + n); }); return "ok"; }
  async alarm() {}
}
const ARGS = JSON.stringify({ patient_id: "P-0042", include: "status" });
const RESULT = JSON.stringify({ patient_id: "P-0042", name: "Ada Lovelace", status: "active" });
const ROW = JSON.stringify({ tool: "patients", arguments: { patient_id: "P-0042" }, result: { patient_id: "P-0042", name: "Ada Lovelace", status: "active" } });
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const stub = env.PROBE.get(env.PROBE.idFromName(url.searchParams.get("o") ?? "0"));
    const answer = await stub[url.pathname.slice(1)](1);
    return new Response(JSON.stringify({ answer }), { headers: { "content-type": "application/json" } });
  },
};`;
const OBJECTS = Number(process.argv[2] ?? 200);
const cores = planCores();
pinThisProcess(cores.server);
const probe = await startProbeWorker({
  name: "probe",
  script,
  binding: "PROBE",
  className: "Probe",
  stateParent: os.tmpdir(),
});
try {
  const { url } = probe;
  const host = new URL(url).host;
  for (let round = 0; round < 3; round++)
    for (const route of (process.argv[3] ?? "write,wide,nouniq,big").split(",")) {
      const requests = Array.from({ length: OBJECTS }, (_, o) => ({
        method: "GET",
        path: `/${route}?o=${o}`,
        headers: { Host: host },
      }));
      await runWrk({ url, requests, seconds: 2, connections: 32, core: cores.load });
      const pids = await ownWorkerdPids();
      const before = await cpuMs(pids);
      const load = await runWrk({ url, requests, seconds: 4, connections: 32, core: cores.load });
      const after = await cpuMs(pids);
      console.log(
        `${route.padEnd(10)} ${load.requests_per_second.toFixed(0).padStart(6)} req/s p50 ${load.p50_ms.toFixed(1)} p99 ${load.p99_ms.toFixed(1)} cpu/call ${(((after ?? 0) - (before ?? 0)) / load.requests).toFixed(3)} ms non2xx ${load.non_2xx} load ${os.loadavg()[0]?.toFixed(1)}`,
      );
    }
} finally {
  await probe.stop();
}
