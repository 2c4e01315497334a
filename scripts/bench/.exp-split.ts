import autocannon from "autocannon";
import { startToolproof } from "../local-server.js";
const server = await startToolproof({ port: 0, stateDir: "/dev/shm/tp-exp-" + Date.now(), quiet: true, seedDemo: false });
const host = new URL(server.url).host;
const key = server.demoKey;
async function api(method: string, route: string, body?: unknown): Promise<any> {
  const r = await fetch(server.url + route, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = await r.json(); if (!r.ok) throw new Error(JSON.stringify(j)); return j;
}
const tool = await api("POST", "/api/tools", { name: "exp", description: "d", kind: "http", operations: [{ operation_id: "get", description: "get", input_schema: { type: "object", properties: { patient_id: { type: "string", pattern: "^P-[0-9]{4}$" } }, required: ["patient_id"] }, output_schema: { type: "object", properties: { patient_id: { type: "string" }, name: { type: "string" } } } }] });
await api("POST", `/api/tools/${tool.id}/testing`, { action: "save", operation_id: "get", contract_hash: tool.operations[0].contract_hash, definition: { schema_version: 1, default_variant: "a", variants: { a: { result: { patient_id: { $input: "patient_id" }, name: "Ada" } } }, examples: [{ variant: "a", input: { patient_id: "P-0001" }, expected: { patient_id: "P-0001", name: "Ada" } }] } });
const N = Number(process.argv[2] ?? 1000);
const attempts: any[] = [];
for (let i = 0; i < N; i += 100) attempts.push(...(await api("POST", "/api/simulations", { tools: [{ tool_id: tool.id }], attempts: Math.min(100, N - i) })).attempts);
const body = JSON.stringify({ tool: "exp", arguments: { patient_id: "P-0042" } });
function rr(token: (a: any) => string) {
  let i = 0;
  return () => { const a = attempts[i++ % attempts.length]; return { method: "POST", path: `/api/attempts/${a.id}/dispatch`, headers: { host, authorization: `Bearer ${token(a)}`, "content-type": "application/json" }, body }; };
}
async function phase(name: string, next: () => any, amount = 10000) {
  const first = next();
  const r = await autocannon({ url: server.url, connections: 32, amount, requests: [{ ...first, setupRequest: () => next() }] });
  console.log(name.padEnd(28), Math.round(r.requests.average), "req/s p50", r.latency.p50, "p99", r.latency.p99, "non2xx", r.non2xx);
}
await phase("health", () => ({ method: "GET", path: "/health", headers: { host } }));
await phase("dispatch, no token prefix", rr(() => "nope"));
await phase("dispatch, wrong token (RPC)", rr(() => "tpa_wrong"));
await phase("dispatch lookup (full)", rr((a) => a.token));
await phase("dispatch lookup (full) again", rr((a) => a.token));
const few = attempts.slice(0, 10);
let j = 0;
await phase("lookup, 10 attempts only", () => { const a = few[j++ % few.length]; return { method: "POST", path: `/api/attempts/${a.id}/dispatch`, headers: { host, authorization: `Bearer ${a.token}`, "content-type": "application/json" }, body }; });
await phase("health again", () => ({ method: "GET", path: "/health", headers: { host } }));
await server.stop();
