/**
 * Benchmark of dispatch over HTTP against a running toolproof (`npm start`), loopback only.
 *
 *   TOOLPROOF_URL=http://127.0.0.1:8787 TOOLPROOF_KEY=tpk_… npm run bench:dispatch
 *
 * Without TOOLPROOF_URL it starts its own server (the same code `npm start` runs) on a free port
 * with a throwaway state directory, and stops it afterwards.
 *
 * What one run measures, at 32 connections (autocannon, keep-alive, no pipelining):
 *   1. the bare route GET /health: the ceiling of this server on this machine;
 *   2. a validated lookup: input schema validation, a rule match, rendering from $input, output
 *      schema validation, evidence recorded; no set_state;
 *   3. a stateful write: the first call of each attempt books a slot (set_state), every later
 *      call of that attempt answers a conflict read from state.
 * Lookups and writes are spread round-robin across 1,000 attempts each (one Durable Object per
 * attempt). Afterwards every attempt's evidence is read back through the API, and the run fails
 * unless every answered call is there (and every write attempt booked exactly once).
 *
 * Flags: --attempts 1000 --connections 32 --lookups 60000 --writes 40000 --health 60000 --json
 *        --state-parent <dir> (where a self-started server keeps its state; /dev/shm puts it in memory)
 * Numbers only: this is never a test (timings on shared machines are noise).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import autocannon, { type AutocannonResult } from "autocannon";

function stringFlag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const ATTEMPTS = flag("attempts", 1000);
const CONNECTIONS = flag("connections", 32);
const LOOKUPS = flag("lookups", 60_000);
const WRITES = flag("writes", 40_000);
const HEALTH = flag("health", 60_000);
const AS_JSON = process.argv.includes("--json");
/** Where a server started by the benchmark keeps its state (default: a fresh directory under the OS temp dir). */
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
/** No phase may run longer than this, whatever the counts say. */
const PHASE_SECONDS_MAX = 120;
const ATTEMPTS_PER_SIMULATION = 100;

interface Target {
  url: string;
  key: string;
  stop: () => Promise<void>;
}

async function target(): Promise<Target> {
  const url = process.env.TOOLPROOF_URL;
  const key = process.env.TOOLPROOF_KEY;
  if (url && key) {
    const host = new URL(url).hostname;
    if (host !== "127.0.0.1" && host !== "localhost" && host !== "::1") throw new Error(`refusing to load ${url}: the benchmark runs on loopback only`);
    return { url: url.replace(/\/$/, ""), key, stop: async () => undefined };
  }
  if (url || key) throw new Error("set both TOOLPROOF_URL and TOOLPROOF_KEY, or neither (to start a server for the run)");
  const { startToolproof } = await import("../local-server.js");
  const stateDir = await mkdtemp(path.join(STATE_PARENT, "toolproof-bench-"));
  const server = await startToolproof({ port: 0, stateDir, quiet: true, seedDemo: false });
  return {
    url: server.url,
    key: server.demoKey,
    stop: async () => {
      await server.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

async function api(t: Target, method: string, route: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${t.url}${route}`, init);
  const answer: unknown = await response.json();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

const run = Date.now().toString(36);

const lookupTool = {
  name: `bench_patients_${run}`,
  description: "Look up one patient by id.",
  kind: "http",
  operations: [
    {
      operation_id: "get_patient",
      description: "Return the patient's name and status.",
      input_schema: {
        type: "object",
        properties: { patient_id: { type: "string", pattern: "^P-[0-9]{4}$" }, include: { type: "string", enum: ["status", "all"] } },
        required: ["patient_id"],
        additionalProperties: false,
      },
      output_schema: {
        type: "object",
        properties: { patient_id: { type: "string" }, name: { type: "string" }, status: { type: "string", enum: ["active", "discharged"] } },
        required: ["patient_id", "name", "status"],
        additionalProperties: false,
      },
    },
  ],
};
const lookupDefinition = {
  schema_version: 1,
  default_variant: "found",
  variants: {
    found: {
      result: { patient_id: { $input: "patient_id" }, name: "Ada Lovelace", status: "active" },
      rules: [
        { when: [{ source: "input", path: "patient_id", op: "eq", value: "P-0001" }], result: { patient_id: "P-0001", name: "Grace Hopper", status: "discharged" } },
        { when: [{ source: "input", path: "patient_id", op: "in", value: ["P-0002", "P-0003"] }], result: { patient_id: { $input: "patient_id" }, name: "Alan Turing", status: "active" } },
      ],
    },
  },
  examples: [
    { variant: "found", input: { patient_id: "P-0042" }, expected: { patient_id: "P-0042", name: "Ada Lovelace", status: "active" } },
    { variant: "found", input: { patient_id: "P-0001" }, expected: { patient_id: "P-0001", name: "Grace Hopper", status: "discharged" } },
  ],
};

const writeTool = {
  name: `bench_booking_${run}`,
  description: "Book an appointment slot.",
  kind: "http",
  operations: [
    {
      operation_id: "book_slot",
      description: "Book the slot; answers a conflict when this attempt has booked one already.",
      input_schema: {
        type: "object",
        properties: { slot: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$" }, patient_id: { type: "string" } },
        required: ["slot", "patient_id"],
        additionalProperties: false,
      },
      output_schema: {
        type: "object",
        properties: { status: { type: "string", enum: ["booked", "conflict"] }, slot: { type: "string" }, reference: { type: "string" } },
        required: ["status", "slot"],
        additionalProperties: false,
      },
    },
  ],
};
const writeDefinition = {
  schema_version: 1,
  default_variant: "open",
  variants: {
    open: {
      result: { status: "booked", slot: { $input: "slot" }, reference: "BK-1" },
      set_state: { booked: { $input: "slot" }, patient: { $input: "patient_id" } },
      rules: [{ when: [{ source: "state", path: "booked", op: "exists", value: true }], result: { status: "conflict", slot: { $state: "booked" } }, set_state: {} }],
    },
  },
  examples: [
    { variant: "open", input: { slot: "2026-03-02T09:00", patient_id: "P-1" }, expected: { status: "booked", slot: "2026-03-02T09:00", reference: "BK-1" } },
    { variant: "open", input: { slot: "2026-03-02T10:00", patient_id: "P-1" }, state: { booked: "2026-03-02T09:00" }, expected: { status: "conflict", slot: "2026-03-02T09:00" } },
  ],
};

async function registerWithRevision(t: Target, tool: { name: string; operations: Array<{ operation_id: string }> }, definition: unknown): Promise<string> {
  const created = await api(t, "POST", "/api/tools", tool);
  const id = String(field(created, "id"));
  const operations = field(created, "operations");
  const hash = Array.isArray(operations) ? field(operations[0], "contract_hash") : undefined;
  await api(t, "POST", `/api/tools/${id}/testing`, { action: "save", operation_id: tool.operations[0]?.operation_id, contract_hash: hash, definition });
  return id;
}

interface Attempt {
  id: string;
  token: string;
}

async function attemptsFor(t: Target, toolId: string, count: number): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (let made = 0; made < count; made += ATTEMPTS_PER_SIMULATION) {
    const simulation = await api(t, "POST", "/api/simulations", {
      tools: [{ tool_id: toolId }],
      attempts: Math.min(ATTEMPTS_PER_SIMULATION, count - made),
      lease_seconds: 3600,
    });
    const list = field(simulation, "attempts");
    if (!Array.isArray(list)) throw new Error("simulation answer without attempts");
    for (const attempt of list) attempts.push({ id: String(field(attempt, "id")), token: String(field(attempt, "token")) });
  }
  return attempts;
}

interface Phase {
  name: string;
  requests: number;
  result: AutocannonResult;
}

async function load(t: Target, name: string, amount: number, next: () => { path: string; headers: Record<string, string>; body?: string; method: string }): Promise<Phase> {
  progress(`${name}: ${amount} requests`);
  const first = next();
  // autocannon drops its own Host header once a request carries headers; workerd needs one to build the URL.
  const host = new URL(t.url).host;
  const withHost = () => {
    const request = next();
    return { ...request, headers: { ...request.headers, host } };
  };
  const running = autocannon({
    url: t.url,
    connections: CONNECTIONS,
    amount,
    timeout: 30,
    requests: [{ ...first, headers: { ...first.headers, host }, setupRequest: withHost }],
  });
  // autocannon ignores `duration` once `amount` is set: bound the time here.
  const timer = setTimeout(() => running.stop(), PHASE_SECONDS_MAX * 1000);
  try {
    return { name, requests: amount, result: await running };
  } finally {
    clearTimeout(timer);
  }
}

function roundRobin(attempts: Attempt[], tool: string, args: unknown): () => { path: string; headers: Record<string, string>; body: string; method: string } {
  const prepared = attempts.map((attempt) => ({
    method: "POST",
    path: `/api/attempts/${attempt.id}/dispatch`,
    headers: { authorization: `Bearer ${attempt.token}`, "content-type": "application/json" },
    body: JSON.stringify({ tool, arguments: args }),
  }));
  let index = 0;
  return () => {
    const request = prepared[index % prepared.length];
    index++;
    if (!request) throw new Error("no attempts to load");
    return request;
  };
}

interface Verified {
  answered: number;
  recorded: number;
  problems: string[];
}

/** Reads every attempt's evidence back through the API and compares it with what was answered. */
async function verify(t: Target, attempts: Attempt[], answered: number, booking: boolean): Promise<Verified> {
  let recorded = 0;
  const problems: string[] = [];
  let cursor = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const attempt = attempts[cursor++];
      if (!attempt) return;
      const calls: unknown[] = [];
      let after = 0;
      for (;;) {
        const page = await api(t, "GET", `/api/attempts/${attempt.id}/evidence?after=${after}`);
        const items = field(page, "calls");
        if (Array.isArray(items)) calls.push(...items);
        const next = field(page, "next_cursor");
        if (typeof next !== "string") break;
        after = Number(next);
      }
      recorded += calls.length;
      calls.forEach((entry, index) => {
        if (field(entry, "seq") !== index + 1) problems.push(`${attempt.id}: seq ${String(field(entry, "seq"))} at position ${index + 1}`);
        if (field(entry, "outcome") !== "result") problems.push(`${attempt.id}#${index + 1}: ${JSON.stringify(field(entry, "error"))}`);
        if (booking) {
          const status = field(field(entry, "result"), "status");
          if (status !== (index === 0 ? "booked" : "conflict")) problems.push(`${attempt.id}#${index + 1}: status ${String(status)}`);
        }
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { answered, recorded, problems };
}

/** Progress goes to stderr, so --json output stays parseable. */
function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

function row(phase: Phase): string {
  const r = phase.result;
  const cells = [
    phase.name.padEnd(22),
    String(r["2xx"] + r.non2xx).padStart(8),
    r.requests.average.toFixed(0).padStart(8),
    r.latency.p50.toFixed(1).padStart(7),
    r.latency.p99.toFixed(1).padStart(7),
    String(r.non2xx).padStart(7),
    String(r.errors + r.timeouts).padStart(6),
  ];
  return cells.join("  ");
}

async function main(): Promise<void> {
  const t = await target();
  try {
    if (!AS_JSON) console.log(`toolproof dispatch benchmark: ${t.url}, ${CONNECTIONS} connections, ${ATTEMPTS} attempts per scenario`);
    const lookupToolId = await registerWithRevision(t, lookupTool, lookupDefinition);
    const writeToolId = await registerWithRevision(t, writeTool, writeDefinition);
    const lookupAttempts = await attemptsFor(t, lookupToolId, ATTEMPTS);
    const writeAttempts = await attemptsFor(t, writeToolId, ATTEMPTS);
    progress(`created ${lookupAttempts.length + writeAttempts.length} attempts`);

    const health = await load(t, "bare route /health", HEALTH, () => ({ method: "GET", path: "/health", headers: {} }));
    const lookups = await load(t, "validated lookup", LOOKUPS, roundRobin(lookupAttempts, lookupTool.name, { patient_id: "P-0042", include: "status" }));
    const writes = await load(t, "stateful write", WRITES, roundRobin(writeAttempts, writeTool.name, { slot: "2026-03-02T09:00", patient_id: "P-0042" }));

    progress("reading every attempt's evidence back");
    const lookupCheck = await verify(t, lookupAttempts, lookups.result["2xx"], false);
    const writeCheck = await verify(t, writeAttempts, writes.result["2xx"], true);

    const ceiling = health.result.requests.average;
    const summary = {
      url: t.url,
      connections: CONNECTIONS,
      attempts: ATTEMPTS,
      phases: [health, lookups, writes].map((p) => ({
        name: p.name,
        requests: p.result["2xx"] + p.result.non2xx,
        requests_per_second: Math.round(p.result.requests.average),
        p50_ms: p.result.latency.p50,
        p99_ms: p.result.latency.p99,
        non_2xx: p.result.non2xx,
        errors: p.result.errors + p.result.timeouts,
      })),
      ratio_to_ceiling: {
        lookup: lookups.result.requests.average / ceiling,
        write: writes.result.requests.average / ceiling,
      },
      evidence: { lookup: lookupCheck, write: writeCheck },
      goals: {
        write: writes.result.requests.average >= 2000 && writes.result.latency.p99 <= 50,
        lookup: lookups.result.requests.average >= 5000,
      },
    };
    const intact = [lookupCheck, writeCheck].every((c) => c.recorded === c.answered && c.problems.length === 0);
    if (AS_JSON) {
      console.log(JSON.stringify(summary, null, 2));
    } else {
      console.log(["scenario".padEnd(22), "requests".padStart(8), "req/s".padStart(8), "p50 ms".padStart(7), "p99 ms".padStart(7), "non-2xx".padStart(7), "errors".padStart(6)].join("  "));
      for (const phase of [health, lookups, writes]) console.log(row(phase));
      console.log(`ratio to the bare route: lookup ${summary.ratio_to_ceiling.lookup.toFixed(2)}, write ${summary.ratio_to_ceiling.write.toFixed(2)}`);
      console.log(`goals: stateful write ≥2000 req/s with p99 ≤50 ms: ${summary.goals.write ? "met" : "NOT met"}; validated lookup ≥5000 req/s: ${summary.goals.lookup ? "met" : "NOT met"}`);
      for (const [name, check] of [["lookup", lookupCheck], ["write", writeCheck]] as const) {
        console.log(`evidence (${name}): ${check.recorded} calls recorded of ${check.answered} answered${check.problems.length ? `; ${check.problems.length} problems, first: ${check.problems.slice(0, 3).join(" | ")}` : ""}`);
      }
    }
    if (!intact) process.exitCode = 1;
  } finally {
    await t.stop();
  }
}

await main();
