import autocannon from "autocannon";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const fromWrangler = createRequire(require.resolve("wrangler"));
const { Miniflare, convertV4MiniflareOptions } = fromWrangler("miniflare");
const script = `
import { DurableObject } from "cloudflare:workers";
export class O extends DurableObject {
  constructor(ctx, env) { super(ctx, env); ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS t (v TEXT)"); this.mem = []; }
  hello(x) { return "ok:" + x; }
  read(x) { return String(this.ctx.storage.sql.exec("SELECT count(*) AS c FROM t").one().c); }
  insert(x) { this.ctx.storage.sql.exec("INSERT INTO t VALUES (?)", x); return "ok"; }
  kv(x) { this.ctx.storage.kv.put("k" + x, x); return "ok"; }
  kvbig(x) { this.seq = (this.seq ?? 0) + 1; this.ctx.storage.kv.put("call:" + String(this.seq).padStart(8, "0"), BIG + x); return "ok"; }
  sqlbig(x) { this.ctx.storage.sql.exec("INSERT INTO t VALUES (?)", BIG + x); return "ok"; }
  txn(x) { this.ctx.storage.transactionSync(() => this.ctx.storage.sql.exec("INSERT INTO t VALUES (?)", BIG + x)); return "ok"; }
  memory(x) { this.mem.push(x); if (this.mem.length >= 20) { const rows = this.mem.splice(0); for (const r of rows) this.ctx.storage.sql.exec("INSERT INTO t VALUES (?)", r); } return "ok"; }
  write(x) { this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS t (v TEXT)"); this.ctx.storage.sql.exec("INSERT INTO t VALUES (?)", x); return "ok"; }
  async fetch(req) { return new Response("ok"); }
}
const ids = new Map();
const BIG = JSON.stringify({ seq: 1, tool: "bench_patients", operation_id: "get_patient", arguments: { patient_id: "P-0042", include: "status" }, result: { patient_id: "P-0042", name: "Ada Lovelace", status: "active" }, at: "2026-01-01T00:00:00.000Z", variant: "found", rule: null, delay_ms: 0 });
export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const n = url.searchParams.get("n") ?? "0";
    if (url.pathname === "/health") return new Response('{"ok":true}');
    const stub = env.O.get(env.O.idFromName("a" + n));
    if (url.pathname === "/rpc") return new Response(await stub.hello(n));
    if (url.pathname === "/write") return new Response(await stub.write(n));
    if (url.pathname === "/read") return new Response(await stub.read(n));
    if (url.pathname === "/insert") return new Response(await stub.insert(n));
    if (url.pathname === "/kv") return new Response(await stub.kv(n));
    if (url.pathname === "/kvbig") return new Response(await stub.kvbig(n));
    if (url.pathname === "/sqlbig") return new Response(await stub.sqlbig(n));
    if (url.pathname === "/txn") return new Response(await stub.txn(n));
    if (url.pathname === "/memory") return new Response(await stub.memory(n));
    if (url.pathname === "/fetch") return stub.fetch(req);
    return new Response("?");
  }
}`;
const mf = new Miniflare(convertV4MiniflareOptions({ name: "exp", modules: true, script, compatibilityDate: "2026-10-01", durableObjects: { O: { className: "O", useSQLite: true } }, durableObjectsPersist: "/dev/shm/exp-do-" + Date.now(), unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }], port: 0 }));
await mf.ready;
const direct = (await mf.unsafeGetDirectURL()).href;
let i = 0;
for (const path of ["health", "rpc", "fetch", "rpc", "fetch", "rpc", "fetch", "health"]) {
  const r = await autocannon({ url: direct, connections: 32, amount: 20000, requests: [{ method: "GET", path: "/" + path, setupRequest: (req) => ({ ...req, path: `/${path}?n=${i++ % 1000}` }) }] });
  console.log(path.padEnd(8), r.requests.average, r.latency.p50, r.latency.p99, r.non2xx);
}
await mf.dispose();
