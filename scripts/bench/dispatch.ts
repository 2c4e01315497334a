/**
 * Benchmark of dispatch over HTTP against toolproof on the local Workers runtime, loopback only.
 *
 *   npm run bench:dispatch                      starts its own server (the code `npm start` runs)
 *   TOOLPROOF_URL=http://127.0.0.1:8787 TOOLPROOF_KEY=tpk_… npm run bench:dispatch
 *
 * One run, at 32 connections from wrk (see wrk.ts), server and load on separate cores:
 *   1. the bare route GET /health: the ceiling of this server on this machine, in the same run;
 *   2. a validated lookup: input schema validation, a rule match, rendering from $input, output
 *      schema validation, evidence recorded; no set_state;
 *   3. a stateful write: the first call of each attempt books a slot (set_state), every later
 *      call of that attempt answers a conflict read from state.
 * Lookups and writes each go round-robin over their own 1,000 attempts (one Durable Object per
 * attempt). Each phase is warmed up first (every object loaded), then measured. After each phase
 * every attempt's evidence is read back through the API (which copies anything not yet in D1),
 * and the run fails unless every answered call is there, numbered without gaps, and every write
 * attempt booked exactly once. Reading back between phases also keeps one phase's evidence
 * copying out of the next phase's figures.
 *
 * Flags: --attempts 1000 --connections 32 --seconds 15 --warmup 3 --json
 *        --state-parent <dir> (where a self-started server keeps its state; /dev/shm puts it in memory)
 * Numbers only: this is never a test (timings on shared machines are noise).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { positiveFlag, stringFlag } from "./flags.js";
import { assertLoopback, type Load, pinThisProcess, planCores, requireWrk, runWrk, type WrkRequest } from "./wrk.js";

const ATTEMPTS = positiveFlag("attempts", 1000, true);
const CONNECTIONS = positiveFlag("connections", 32, true);
const SECONDS = positiveFlag("seconds", 15, true);
const WARMUP_SECONDS = positiveFlag("warmup", 3, true);
const AS_JSON = process.argv.includes("--json");
/** Where a server started by the benchmark keeps its state (default: a fresh directory under the OS temp dir). */
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
const ATTEMPTS_PER_SIMULATION = 100;

interface Target {
  url: string;
  key: string;
  /** Whether this run started the server (and so could place it on its own core). */
  own: boolean;
  stateDir: string | null;
  stop: () => Promise<void>;
}

async function target(serverCore: number | null): Promise<Target> {
  const url = process.env.TOOLPROOF_URL;
  const key = process.env.TOOLPROOF_KEY;
  if (url && key) {
    assertLoopback(url);
    return { url: url.replace(/\/$/, ""), key, own: false, stateDir: null, stop: async () => undefined };
  }
  if (url || key) throw new Error("set both TOOLPROOF_URL and TOOLPROOF_KEY, or neither (to start a server for the run)");
  // workerd is started as a child of this process and inherits its core.
  pinThisProcess(serverCore);
  const { startToolproof } = await import("../local-server.js");
  const stateDir = await mkdtemp(path.join(STATE_PARENT, "toolproof-bench-"));
  const server = await startToolproof({ port: 0, stateDir, quiet: true, seedDemo: false });
  return {
    url: server.url,
    key: server.demoKey,
    own: true,
    stateDir,
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

function dispatches(t: Target, attempts: readonly Attempt[], tool: string, args: unknown): WrkRequest[] {
  const host = new URL(t.url).host;
  const body = JSON.stringify({ tool, arguments: args });
  return attempts.map((attempt) => ({
    method: "POST",
    path: `/api/attempts/${attempt.id}/dispatch`,
    headers: { Host: host, Authorization: `Bearer ${attempt.token}`, "Content-Type": "application/json" },
    body,
  }));
}

interface Phase {
  name: string;
  warmup: Load;
  load: Load;
}

async function phase(t: Target, name: string, requests: WrkRequest[], core: number | null): Promise<Phase> {
  progress(`${name}: ${WARMUP_SECONDS} s warm-up, then ${SECONDS} s measured`);
  const warmup = await runWrk({ url: t.url, requests, seconds: WARMUP_SECONDS, connections: CONNECTIONS, core });
  const load = await runWrk({ url: t.url, requests, seconds: SECONDS, connections: CONNECTIONS, core });
  return { name, warmup, load };
}

interface Verified {
  /** 2xx answers wrk saw, warm-up included. */
  answered: number;
  recorded: number;
  /** Calls wrk sent but stopped waiting for when its time ran out: recorded, never counted by wrk. */
  in_flight_at_stop: number;
  problems: string[];
}

/** Reads every attempt's evidence back through the API and compares it with what was answered. */
async function verify(t: Target, attempts: Attempt[], p: Phase, booking: boolean): Promise<Verified> {
  const answered = p.warmup.requests - p.warmup.non_2xx + (p.load.requests - p.load.non_2xx);
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
  const inFlight = recorded - answered;
  // Each of the two wrk runs may stop with up to one call per connection sent but not yet answered.
  if (inFlight < 0) problems.unshift(`${-inFlight} answered calls are missing from the evidence`);
  if (inFlight > 2 * CONNECTIONS) problems.unshift(`${inFlight} more calls recorded than answered (at most ${2 * CONNECTIONS} can be in flight when wrk stops)`);
  return { answered, recorded, in_flight_at_stop: inFlight, problems };
}

/** Progress goes to stderr, so --json output stays parseable. */
function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

function row(p: Phase): string {
  const l = p.load;
  return [
    p.name.padEnd(20),
    String(l.requests).padStart(8),
    l.requests_per_second.toFixed(0).padStart(7),
    l.p50_ms.toFixed(1).padStart(7),
    l.p99_ms.toFixed(1).padStart(7),
    String(l.non_2xx).padStart(7),
    String(l.errors).padStart(6),
  ].join("  ");
}

async function main(): Promise<void> {
  requireWrk();
  const cores = planCores();
  const t = await target(cores.server);
  try {
    const layout = t.own ? cores.note : "server started elsewhere: its core placement is unknown";
    if (!AS_JSON) console.log(`toolproof dispatch benchmark: ${t.url}, wrk with ${CONNECTIONS} connections, ${ATTEMPTS} attempts per scenario; ${layout}`);
    const lookupToolId = await registerWithRevision(t, lookupTool, lookupDefinition);
    const writeToolId = await registerWithRevision(t, writeTool, writeDefinition);
    const lookupAttempts = await attemptsFor(t, lookupToolId, ATTEMPTS);
    const writeAttempts = await attemptsFor(t, writeToolId, ATTEMPTS);
    progress(`created ${lookupAttempts.length + writeAttempts.length} attempts`);

    const host = new URL(t.url).host;
    const health = await phase(t, "bare route /health", [{ method: "GET", path: "/health", headers: { Host: host } }], cores.load);
    const lookups = await phase(t, "validated lookup", dispatches(t, lookupAttempts, lookupTool.name, { patient_id: "P-0042", include: "status" }), cores.load);
    progress("reading every lookup attempt's evidence back");
    const lookupCheck = await verify(t, lookupAttempts, lookups, false);
    const writes = await phase(t, "stateful write", dispatches(t, writeAttempts, writeTool.name, { slot: "2026-03-02T09:00", patient_id: "P-0042" }), cores.load);
    progress("reading every write attempt's evidence back");
    const writeCheck = await verify(t, writeAttempts, writes, true);

    const ceiling = health.load.requests_per_second;
    const summary = {
      url: t.url,
      connections: CONNECTIONS,
      attempts: ATTEMPTS,
      seconds: SECONDS,
      cores: layout,
      state: t.stateDir,
      phases: Object.fromEntries([health, lookups, writes].map((p) => [p.name, p.load])),
      ratio_to_bare_route: {
        lookup: lookups.load.requests_per_second / ceiling,
        write: writes.load.requests_per_second / ceiling,
      },
      evidence: { lookup: lookupCheck, write: writeCheck },
      goals: {
        write: writes.load.requests_per_second >= 2000 && writes.load.p99_ms <= 50,
        lookup: lookups.load.requests_per_second >= 5000,
      },
    };
    const intact = [lookupCheck, writeCheck].every((c) => c.problems.length === 0);
    if (AS_JSON) {
      console.log(JSON.stringify(summary, null, 2));
    } else {
      console.log(["scenario".padEnd(20), "requests".padStart(8), "req/s".padStart(7), "p50 ms".padStart(7), "p99 ms".padStart(7), "non-2xx".padStart(7), "errors".padStart(6)].join("  "));
      for (const p of [health, lookups, writes]) console.log(row(p));
      console.log(`ratio to the bare route: lookup ${summary.ratio_to_bare_route.lookup.toFixed(2)}, write ${summary.ratio_to_bare_route.write.toFixed(2)}`);
      console.log(`goals: stateful write ≥2000 req/s with p99 ≤50 ms: ${summary.goals.write ? "met" : "NOT met"}; validated lookup ≥5000 req/s: ${summary.goals.lookup ? "met" : "NOT met"}`);
      for (const [name, check] of [["lookup", lookupCheck], ["write", writeCheck]] as const) {
        console.log(
          `evidence (${name}): ${check.recorded} calls recorded, ${check.answered} answered (warm-up included), ${check.in_flight_at_stop} in flight when wrk stopped` +
            (check.problems.length ? `; ${check.problems.length} problems, first: ${check.problems.slice(0, 3).join(" | ")}` : "; every answered call is in the evidence"),
        );
      }
    }
    if (!intact) process.exitCode = 1;
  } finally {
    await t.stop();
  }
}

await main();
