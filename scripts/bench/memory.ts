/**
 * Resident memory per live Durable Object: the runtime's own floor against toolproof's attempts
 * (issue 21 item 6). Local Workers runtime, loopback only; numbers only, never a test.
 *
 *   npm run bench:memory [-- --objects 1000 --tool small|retail|both --json --state-parent /dev/shm]
 *
 * One server after the other, each on a fresh state directory:
 *   floor      support/floor-worker.ts: a minimal Durable Object; each object serves as many requests
 *              as one attempt does (its setup and its calls: 3 for small, 5 for retail), each a /write
 *              of one SQLite row, so it holds what a live object must (its isolate state and its
 *              database) after the same traffic: the runtime's memory per object grows with the
 *              requests the object served (requestsPerAttempt). The floor as this benchmark read it
 *              before, one /write per pass (2), is measured too and printed beside it.
 *   small      (--tool small, the default) the code `npm start` runs, with --objects attempts of a
 *              small tool (the dispatch benchmark's validated lookup), each called
 *   retail     (--tool retail) the same code with τ-bench's retail environment loaded as
 *              `npm run load:tau-retail` loads it (support/retail-workloads.ts): --objects attempts
 *              pinning the whole 16-operation tool on the 1.2 MB dataset, each making a read
 *              (get_order_details) and a write (modify_pending_order_address: one order record of
 *              its own, copy-on-write over the shared base)
 * `--tool both` measures small and retail, each on its own server, against one floor.
 * Every server runs with eviction turned off (Miniflare's unsafePreventEviction), so every object
 * called stays live: the local runtime otherwise unloads an object after about ten idle seconds.
 *
 * Each server is read three times: idle (once it is up; for retail, with the environment loaded
 * but no attempt set up), once the first half of the objects is live (for toolproof: set up, then
 * every one called twice, 32 calls at a time), and once the second half is live the same way. The
 * live objects are the SQLite files workerd holds open. Two figures per object:
 *   marginal  (RSS(all) − RSS(half)) ÷ the objects the second half made live. This is the figure
 *             "per live attempt" is judged on (ratio to the floor's marginal; goal at most 1.5):
 *             what the process pays once (code compiled and optimized, retail's dataset parsed once
 *             per isolate, the allocators' high-water marks from the first bursts of calls and of
 *             setups) is paid during the first half, and does not grow with the number of attempts.
 *   average   (RSS(all) − RSS(idle)) ÷ all live objects, the figure this benchmark printed before:
 *             the one-time costs shared out over the objects, so it falls as the count grows.
 * Both readings are taken before any attempt's evidence reaches D1 (Miniflare's D1 simulator lives
 * in the same workerd, so a flush would add to the second reading): the servers run with
 * EVIDENCE_IDLE_FLUSH_MS at its longest (60 s), which leaves the flush alarm, FLUSH_INTERVAL_MS
 * (30 s) after an attempt's first call; the benchmark prints how long after the first half's first
 * call the second reading came and how many calls D1 held right after it (0 unless flushes landed).
 * No garbage collection is forced: a heap snapshot (the only way to force one in workerd) costs
 * more resident memory than it frees; `scripts/bench/memory-probe.ts` reads the JavaScript heaps.
 * After the readings, every attempt's evidence is read back: the run fails unless every call is
 * there with the answer expected (for retail, the order, never one of τ-bench's `Error: ...` strings).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { FLUSH_INTERVAL_MS } from "../../src/worker/attempts/lifetimes.js";
import { startToolproof } from "../local-server.js";
import { positiveFlag, stringFlag } from "./flags.js";
import {
  type Attempt,
  dispatchEach,
  EvidenceCheck,
  registerLookupTool,
  type ResultCheck,
  setUpAttempts,
  type Toolproof,
} from "./support/dispatch-workloads.js";
import { startFloor } from "./support/floor-worker.js";
import { callPasses, type Halves, halves, onlyNewWorkerd, readMemory } from "./support/live-memory.js";
import { ownWorkerdPids } from "./support/process-memory.js";
import { loadRetailEnvironment, pendingOrder, writtenOrder } from "./support/retail-workloads.js";
import { runBenchmark } from "./support/toolproof-api.js";
import type { WrkRequest } from "./wrk.js";

const OBJECTS = positiveFlag("objects", 1000, true);
const AS_JSON = process.argv.includes("--json");
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
const PASSES = 2;
/** Calls in flight at once (live-memory.ts), which is also how many may be unanswered when a pass fails. */
const CONNECTIONS = 32;
const GOAL = 1.5;
/** The longest idle flush the Worker accepts (lifetimes.ts): only the flush alarm is left to time. */
const IDLE_FLUSH_MS = 60_000;

type ToolName = "small" | "retail";
const TOOL_FLAG = stringFlag("tool") ?? "small";
const TOOLS: readonly ToolName[] = (() => {
  if (TOOL_FLAG === "both") return ["small", "retail"];
  if (TOOL_FLAG === "small" || TOOL_FLAG === "retail") return [TOOL_FLAG];
  throw new Error(`--tool must be small, retail or both, not ${JSON.stringify(TOOL_FLAG)}`);
})();
const LABELS: Record<ToolName, string> = {
  small: "small tool: attempt, one lookup",
  retail: "retail: attempt, a read and a write",
};

/** What one side of the comparison loads and calls. */
interface Load {
  /** Calls each attempt gets per pass (calls() makes this many per attempt). */
  callsPerPass: number;
  /** Registers or loads the tool (before the idle reading); its id. */
  prepare(t: Toolproof): Promise<string>;
  /** One pass of calls over the attempts (every attempt called each pass); `first` is the first attempt's index over the whole run. */
  calls(t: Toolproof, attempts: readonly Attempt[], first: number): WrkRequest[];
  /** What each recorded call must answer, by its seq within the attempt (null: any result). */
  expect: ResultCheck | null;
}

function smallLoad(): Load {
  let dispatch: ((attempts: readonly Attempt[]) => WrkRequest[]) | undefined;
  return {
    callsPerPass: 1,
    prepare: async (t) => {
      const tool = await registerLookupTool(t);
      dispatch = tool.dispatch;
      return tool.toolId;
    },
    calls: (_t, attempts) => {
      if (!dispatch) throw new Error("the small tool was not registered");
      return dispatch(attempts);
    },
    expect: null,
  };
}

function retailLoad(): Load {
  let retail: Awaited<ReturnType<typeof loadRetailEnvironment>> | undefined;
  const loaded = () => {
    if (!retail) throw new Error("the retail environment was not loaded");
    return retail;
  };
  return {
    callsPerPass: 2,
    prepare: async (t) => {
      retail = await loadRetailEnvironment(t);
      return retail.toolId;
    },
    // Every attempt's read goes before its write within a pass (the writes follow every read), and
    // passes run one after the other: so an attempt's odd calls are reads, its even calls writes.
    calls: (t, attempts, first) => [
      ...dispatchEach(t, attempts, (_attempt, index) => loaded().read(first + index)),
      ...dispatchEach(t, attempts, (_attempt, index) => loaded().write(first + index, 0)),
    ],
    expect: (result, seq) => (seq % 2 === 1 ? pendingOrder(result) : writtenOrder(result, seq)),
  };
}

/** What attempts' evidence did meanwhile: nothing of it may reach D1 before the second reading. */
interface Flushes {
  /** From the first call of the first half to the second reading. */
  first_call_to_reading_s: number;
  /** The flush alarm's delay after an attempt's first call. */
  alarm_after_s: number;
  /** Calls D1 held right after the second reading (0: no flush landed between the readings). */
  d1_calls_at_reading: number;
}

type Measured = Halves & { flushes?: Flushes };

function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

function loadavg(): number {
  return Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
}

const FIRST_HALF = Math.floor(OBJECTS / 2);

/**
 * Requests one attempt object serves before the readings: its setup, then its calls in every
 * pass. The floor's objects are given as many (one `/write` each), because the runtime's own
 * resident memory per object grows with the requests the object has served, even when a request
 * only reads memory: measured on the floor Worker, 0.232 MiB per object after one read-only RPC
 * each, 0.263 after four. A floor that served fewer requests than the attempts would count the
 * runtime's per-request cost as toolproof's.
 */
function requestsPerAttempt(load: Pick<Load, "callsPerPass">): number {
  return 1 + load.callsPerPass * PASSES;
}

/** The floor as this benchmark read it before it matched the requests: one `/write` per pass. */
const EARLIER_FLOOR_REQUESTS = PASSES;

async function measureFloor(requestsPerObject: number): Promise<Measured> {
  const before = await ownWorkerdPids();
  const floor = await startFloor(STATE_PARENT, undefined, true);
  try {
    const pid = await onlyNewWorkerd(before);
    const idle = await readMemory(pid);
    progress(`floor idle: ${JSON.stringify(idle)}`);
    const requests = floor.requests("write", OBJECTS);
    await callPasses(floor.url, requests.slice(0, FIRST_HALF), requestsPerObject);
    const half = await readMemory(pid);
    progress(`floor (${requestsPerObject} requests each) with ${FIRST_HALF} objects: ${JSON.stringify(half)}`);
    await callPasses(floor.url, requests.slice(FIRST_HALF), requestsPerObject);
    const full = await readMemory(pid);
    progress(`floor (${requestsPerObject} requests each) with ${OBJECTS} objects: ${JSON.stringify(full)}`);
    return halves(idle, half, full);
  } finally {
    await floor.stop();
  }
}

async function measureToolproof(name: ToolName): Promise<Measured> {
  const load = name === "small" ? smallLoad() : retailLoad();
  const stateDir = await mkdtemp(path.join(STATE_PARENT, "toolproof-memory-"));
  const before = await ownWorkerdPids();
  const server = await startToolproof({
    port: 0,
    stateDir,
    quiet: true,
    seedDemo: false,
    preventEviction: true,
    vars: { EVIDENCE_IDLE_FLUSH_MS: String(IDLE_FLUSH_MS) },
  });
  try {
    const pid = await onlyNewWorkerd(before);
    const t = { url: server.url, key: server.demoKey };
    const toolId = await load.prepare(t);
    const idle = await readMemory(pid);
    progress(`${name} idle: ${JSON.stringify(idle)}`);
    const first = await setUpAttempts(t, toolId, FIRST_HALF);
    const firstRequests = load.calls(t, first, 0);
    const firstCallAt = performance.now();
    await callPasses(server.url, firstRequests, PASSES);
    const half = await readMemory(pid);
    progress(`${name} with ${FIRST_HALF} attempts: ${JSON.stringify(half)}`);
    const second = await setUpAttempts(t, toolId, OBJECTS - FIRST_HALF);
    const secondRequests = load.calls(t, second, FIRST_HALF);
    await callPasses(server.url, secondRequests, PASSES);
    const full = await readMemory(pid);
    const flushes: Flushes = {
      first_call_to_reading_s: Math.round((performance.now() - firstCallAt) / 100) / 10,
      alarm_after_s: FLUSH_INTERVAL_MS / 1000,
      d1_calls_at_reading: await d1Calls(server.db),
    };
    progress(`${name} with ${OBJECTS} attempts: ${JSON.stringify(full)}; ${JSON.stringify(flushes)}`);
    const attempts = [...first, ...second];
    const check = new EvidenceCheck(t, attempts, load.expect, CONNECTIONS);
    check.answeredBy({ requests: (firstRequests.length + secondRequests.length) * PASSES, non_2xx: 0 });
    await check.readBack();
    const verified = check.result();
    if (verified.problems.length > 0 || verified.in_flight_at_stop !== 0)
      throw new Error(
        `${name}: ${verified.recorded} calls recorded for ${verified.answered} answered; first problems: ${verified.problems.slice(0, 3).join(" | ")}`,
      );
    progress(`${name}: all ${verified.recorded} calls found in the evidence as expected`);
    return { ...halves(idle, half, full), flushes };
  } finally {
    await server.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** Evidence rows in D1 (attempts copy theirs there when they go quiet or their flush alarm fires). */
async function d1Calls(db: Awaited<ReturnType<typeof startToolproof>>["db"]): Promise<number> {
  const row = await db.$client.prepare("SELECT count(*) AS n FROM attempt_calls").first<{ n: number }>();
  return row?.n ?? 0;
}

const rounded = (value: number): number => Math.round(value * 100) / 100;

interface Compared extends Measured {
  /** Requests each attempt served (its setup and its calls); the floor it is compared with served as many. */
  requests_per_object: number;
  /** The goal's ratio: marginal MiB per live object against the marginal of the floor that served as many requests. */
  ratio_marginal: number;
  /** The same against the floor as read before the requests were matched (one `/write` per pass). */
  ratio_marginal_earlier_floor: number;
  /** The whole-run averages' ratio (one-time costs included), against the same floor as ratio_marginal. */
  ratio_average: number;
  goal_met: boolean;
}

async function main(): Promise<void> {
  const loadStart = loadavg();
  const loads = { small: smallLoad, retail: retailLoad };
  const counts = [...new Set([EARLIER_FLOOR_REQUESTS, ...TOOLS.map((name) => requestsPerAttempt(loads[name]()))])];
  const floors = new Map<number, Measured>();
  for (const count of counts.sort((a, b) => a - b)) floors.set(count, await measureFloor(count));
  const floorOf = (count: number): Measured => {
    const floor = floors.get(count);
    if (!floor) throw new Error(`no floor was measured at ${count} requests per object`);
    return floor;
  };
  const measured: Partial<Record<ToolName, Compared>> = {};
  for (const name of TOOLS) {
    const s = await measureToolproof(name);
    const requests = requestsPerAttempt(loads[name]());
    const floor = floorOf(requests);
    const ratio = rounded(s.rss_mb_per_object_marginal / floor.rss_mb_per_object_marginal);
    measured[name] = {
      ...s,
      requests_per_object: requests,
      ratio_marginal: ratio,
      ratio_marginal_earlier_floor: rounded(
        s.rss_mb_per_object_marginal / floorOf(EARLIER_FLOOR_REQUESTS).rss_mb_per_object_marginal,
      ),
      ratio_average: rounded(s.rss_mb_per_object_average / floor.rss_mb_per_object_average),
      goal_met: ratio <= GOAL,
    };
  }
  const summary = {
    objects: OBJECTS,
    first_half: FIRST_HALF,
    state_parent: STATE_PARENT,
    loadavg: [loadStart, loadavg()],
    floors: Object.fromEntries([...floors].map(([count, floor]) => [`${count}_requests_per_object`, floor])),
    ...measured,
  };
  if (AS_JSON) {
    console.log(JSON.stringify(summary, null, 2));
    return;
  }
  console.log(
    `resident memory per live Durable Object, read idle, at ${FIRST_HALF} and at ${OBJECTS} objects; state under ${STATE_PARENT}; load average (1 min) ${loadStart} → ${loadavg()}`,
  );
  console.log(
    "marginal = (MiB at all − MiB at half) ÷ objects the second half made live (the goal's figure); average = (MiB at all − MiB idle) ÷ all live objects (one-time costs included)",
  );
  console.log(
    [
      "".padEnd(46),
      "idle MiB".padStart(9),
      "half MiB".padStart(9),
      "all MiB".padStart(9),
      "live".padStart(9),
      "marginal".padStart(9),
      "× floor".padStart(8),
      "anon marg.".padStart(11),
      "average".padStart(8),
      "× floor".padStart(8),
    ].join("  "),
  );
  const rows: Array<[string, Measured, Compared | null]> = [...floors].map(([count, floor]) => [
    `floor: DO, ${count} requests, a row each`,
    floor,
    null,
  ]);
  for (const name of TOOLS) {
    const s = measured[name];
    if (s) rows.push([`${LABELS[name]} (${s.requests_per_object} req.)`, s, s]);
  }
  for (const [label, s, compared] of rows)
    console.log(
      [
        label.padEnd(46),
        s.idle.rss_mb.toFixed(1).padStart(9),
        s.half.rss_mb.toFixed(1).padStart(9),
        s.full.rss_mb.toFixed(1).padStart(9),
        `${s.live_objects - s.marginal_objects}+${s.marginal_objects}`.padStart(9),
        s.rss_mb_per_object_marginal.toFixed(3).padStart(9),
        (compared ? compared.ratio_marginal.toFixed(2) : "").padStart(8),
        s.anon_mb_per_object_marginal.toFixed(3).padStart(11),
        s.rss_mb_per_object_average.toFixed(3).padStart(8),
        (compared ? compared.ratio_average.toFixed(2) : "").padStart(8),
      ].join("  "),
    );
  for (const name of TOOLS) {
    const s = measured[name];
    if (!s) continue;
    const f = s.flushes;
    if (f)
      console.log(
        `${name}: second reading ${f.first_call_to_reading_s} s after the first half's first call (flush alarms from ${f.alarm_after_s} s); calls in D1 then: ${f.d1_calls_at_reading}${f.d1_calls_at_reading > 0 ? " (flushes landed between the readings: the marginal figure includes them)" : ""}`,
      );
    console.log(
      `${name} ÷ floor serving the same ${s.requests_per_object} requests per object, marginal resident MiB per live object: ${s.ratio_marginal} (goal ≤ ${GOAL}: ${s.goal_met ? "met" : "NOT met"}); whole-run average: ${s.ratio_average}; against the floor serving ${EARLIER_FLOOR_REQUESTS} (this benchmark's floor before the requests were matched): ${s.ratio_marginal_earlier_floor}`,
    );
  }
}

runBenchmark(main);
