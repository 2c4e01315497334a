/**
 * The floor under dispatch: what the runtime itself costs for the steps every call must take,
 * measured on a throwaway Worker with no toolproof code in it. Compare its numbers with
 * `npm run bench:dispatch` to see how much of a dispatch is toolproof's own work.
 *
 *   npm run bench:dispatch-floor [-- --seconds 10 --state-parent /dev/shm]
 *
 * Phases, each from wrk at 32 connections over 1,000 objects (round-robin), after a warm-up,
 * with the server and the load on separate cores as in bench:dispatch:
 *   bare     a Worker route that answers at once
 *   rpc      one Durable Object RPC that only reads memory
 *   write    the same RPC plus one SQLite INSERT (one durable commit per call)
 * Numbers only: never a test.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createMiniflare } from "../local/miniflare.js";
import { positiveFlag, stringFlag } from "./flags.js";
import { pinThisProcess, planCores, requireWrk, runWrk } from "./wrk.js";

const SECONDS = positiveFlag("seconds", 10, true); // wrk takes whole seconds
const OBJECTS = 1000;

const script = `
import { DurableObject } from "cloudflare:workers";
export class Probe extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS calls (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    this.calls = 0;
  }
  read(n) { this.calls++; return "ok " + n; }
  write(n) { this.calls++; this.ctx.storage.sql.exec("INSERT INTO calls (body) VALUES (?)", ROW + n); return "ok " + n; }
}
const ROW = JSON.stringify({ tool: "patients", arguments: { patient_id: "P-0042" }, result: { patient_id: "P-0042", name: "Ada Lovelace", status: "active" } });
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/bare") return new Response('{"ok":true}', { headers: { "content-type": "application/json" } });
    const stub = env.PROBE.get(env.PROBE.idFromName(url.searchParams.get("o") ?? "0"));
    const answer = url.pathname === "/write" ? await stub.write(1) : await stub.read(1);
    return new Response(JSON.stringify({ answer }), { headers: { "content-type": "application/json" } });
  },
};`;

requireWrk();
const cores = planCores();
pinThisProcess(cores.server);
const stateDir = await mkdtemp(path.join(stringFlag("state-parent") ?? os.tmpdir(), "toolproof-floor-"));
const miniflare = createMiniflare({
  name: "floor",
  modules: true,
  script,
  compatibilityDate: "2026-10-01",
  durableObjects: { PROBE: { className: "Probe", useSQLite: true } },
  resourcePersistencePath: stateDir,
  unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
  port: 0,
});
try {
  await miniflare.ready;
  const url = (await miniflare.unsafeGetDirectURL("floor")).href.replace(/\/$/, "");
  const host = new URL(url).host;
  console.log(`dispatch floor: wrk with 32 connections, ${OBJECTS} objects, ${SECONDS} s per phase, state in ${stateDir}; ${cores.note}`);
  for (const route of ["bare", "rpc", "write"]) {
    const requests = Array.from({ length: OBJECTS }, (_, o) => ({ method: "GET", path: `/${route}?o=${o}`, headers: { Host: host } }));
    await runWrk({ url, requests, seconds: 3, connections: 32, core: cores.load }); // warm-up: every object exists and is loaded
    const load = await runWrk({ url, requests, seconds: SECONDS, connections: 32, core: cores.load });
    console.log(`${route.padEnd(6)} ${load.requests_per_second.toFixed(0).padStart(6)} req/s  p50 ${load.p50_ms.toFixed(1)} ms  p99 ${load.p99_ms.toFixed(1)} ms  non-2xx ${load.non_2xx}`);
  }
} finally {
  await miniflare.dispose();
  await rm(stateDir, { recursive: true, force: true });
}
