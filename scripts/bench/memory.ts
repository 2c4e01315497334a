/**
 * Resident memory per live Durable Object: the runtime's own floor against toolproof's attempts
 * (issue 21 item 6). Local Workers runtime, loopback only; numbers only, never a test.
 *
 *   npm run bench:memory [-- --objects 1000 --tool small|retail|both --json --state-parent /dev/shm]
 *
 * One server after the other, each on a fresh state directory:
 *   floor      support/floor-worker.ts: a minimal Durable Object; each object gets one SQLite row
 *              (one /write call), so it holds what a live object must: its isolate state and its database
 *   small      (--tool small, the default) the code `npm start` runs, with --objects attempts of a
 *              small tool (the dispatch benchmark's validated lookup), each called
 *   retail     (--tool retail) the same code with τ-bench's retail environment loaded as
 *              `npm run load:tau-retail` loads it (support/retail-workloads.ts): --objects attempts
 *              pinning the whole 16-operation tool on the 1.2 MB dataset, each making a read
 *              (get_order_details) and a write (modify_pending_order_address: one order record of
 *              its own, copy-on-write over the shared base)
 * `--tool both` measures small and retail, each on its own server, against one floor.
 * Every server runs with eviction turned off (Miniflare's unsafePreventEviction), so every object
 * called stays live: the local runtime otherwise unloads an object after about ten idle seconds,
 * and on a busy machine calling 1,000 objects takes longer than that. workerd's resident memory is
 * read once the server is up (idle; for retail, with the environment loaded but no attempt set up)
 * and again after every object was called twice (32 calls at a time); the count of SQLite files
 * workerd holds open says how many objects are live then. Per live object = (live − idle) ÷ live
 * objects, so retail's one parsed dataset per isolate is shared out over its attempts.
 * No garbage collection is forced: a heap snapshot (the only way to force one in workerd) costs
 * more resident memory than it frees; `scripts/bench/memory-probe.ts` reads the JavaScript heaps.
 * After the reading, every attempt's evidence is read back: the run fails unless every call is
 * there with the answer expected (for retail, the order, never one of τ-bench's `Error: ...` strings).
 * The ratio of toolproof's to the floor's is issue 21's figure (goal: at most 1.5).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
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
import { liveReading, onlyNewWorkerd, readMemory, type Side, side } from "./support/live-memory.js";
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
  /** Registers or loads the tool (before the idle reading); its id. */
  prepare(t: Toolproof): Promise<string>;
  /** One pass of calls over the attempts (every attempt called each pass). */
  calls(t: Toolproof, attempts: readonly Attempt[]): WrkRequest[];
  /** What each recorded call must answer, by its seq within the attempt (null: any result). */
  expect: ResultCheck | null;
}

function smallLoad(): Load {
  let dispatch: ((attempts: readonly Attempt[]) => WrkRequest[]) | undefined;
  return {
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
    prepare: async (t) => {
      retail = await loadRetailEnvironment(t);
      return retail.toolId;
    },
    // Every attempt's read goes before its write within a pass (the writes follow every read), and
    // passes run one after the other: so an attempt's odd calls are reads, its even calls writes.
    calls: (t, attempts) => [
      ...dispatchEach(t, attempts, (_attempt, index) => loaded().read(index)),
      ...dispatchEach(t, attempts, (_attempt, index) => loaded().write(index, 0)),
    ],
    expect: (result, seq) => (seq % 2 === 1 ? pendingOrder(result) : writtenOrder(result, seq)),
  };
}

function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

function loadavg(): number {
  return Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
}

async function measureFloor(): Promise<Side> {
  const before = await ownWorkerdPids();
  const floor = await startFloor(STATE_PARENT, undefined, true);
  try {
    const pid = await onlyNewWorkerd(before);
    const idle = await readMemory(pid);
    progress(`floor idle: ${JSON.stringify(idle)}`);
    const requests = floor.requests("write", OBJECTS);
    const live = await liveReading(pid, floor.url, requests, PASSES);
    progress(`floor with ${OBJECTS} objects: ${JSON.stringify(live)}`);
    return side(idle, live);
  } finally {
    await floor.stop();
  }
}

async function measureToolproof(name: ToolName): Promise<Side> {
  const load = name === "small" ? smallLoad() : retailLoad();
  const stateDir = await mkdtemp(path.join(STATE_PARENT, "toolproof-memory-"));
  const before = await ownWorkerdPids();
  const server = await startToolproof({ port: 0, stateDir, quiet: true, seedDemo: false, preventEviction: true });
  try {
    const pid = await onlyNewWorkerd(before);
    const t = { url: server.url, key: server.demoKey };
    const toolId = await load.prepare(t);
    const idle = await readMemory(pid);
    progress(`${name} idle: ${JSON.stringify(idle)}`);
    const attempts = await setUpAttempts(t, toolId, OBJECTS);
    const requests = load.calls(t, attempts);
    const live = await liveReading(pid, server.url, requests, PASSES);
    progress(`${name} with ${OBJECTS} attempts: ${JSON.stringify(live)}`);
    const check = new EvidenceCheck(t, attempts, load.expect, CONNECTIONS);
    check.answeredBy({ requests: requests.length * PASSES, non_2xx: 0 });
    await check.readBack();
    const verified = check.result();
    if (verified.problems.length > 0 || verified.in_flight_at_stop !== 0)
      throw new Error(
        `${name}: ${verified.recorded} calls recorded for ${verified.answered} answered; first problems: ${verified.problems.slice(0, 3).join(" | ")}`,
      );
    progress(`${name}: all ${verified.recorded} calls found in the evidence as expected`);
    return side(idle, live);
  } finally {
    await server.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}

const rounded = (value: number): number => Math.round(value * 100) / 100;

async function main(): Promise<void> {
  const loadStart = loadavg();
  const floor = await measureFloor();
  const measured: Partial<Record<ToolName, Side & { ratio_rss_per_object: number; goal_met: boolean }>> = {};
  for (const name of TOOLS) {
    const s = await measureToolproof(name);
    const ratio = rounded(s.rss_mb_per_object / floor.rss_mb_per_object);
    measured[name] = { ...s, ratio_rss_per_object: ratio, goal_met: ratio <= GOAL };
  }
  const summary = {
    objects: OBJECTS,
    state_parent: STATE_PARENT,
    loadavg: [loadStart, loadavg()],
    floor,
    ...measured,
  };
  if (AS_JSON) {
    console.log(JSON.stringify(summary, null, 2));
    return;
  }
  console.log(
    `resident memory per live Durable Object, ${OBJECTS} objects each; state under ${STATE_PARENT}; load average (1 min) ${loadStart} → ${loadavg()}`,
  );
  console.log(
    [
      "".padEnd(36),
      "idle MiB".padStart(9),
      "live MiB".padStart(9),
      "live objects".padStart(13),
      "MiB/object".padStart(11),
      "anon MiB/object".padStart(16),
      "× floor".padStart(8),
    ].join("  "),
  );
  const rows: Array<[string, Side, number | null]> = [["floor: DO with one SQLite row", floor, null]];
  for (const name of TOOLS) {
    const s = measured[name];
    if (s) rows.push([LABELS[name], s, s.ratio_rss_per_object]);
  }
  for (const [label, s, ratio] of rows)
    console.log(
      [
        label.padEnd(36),
        String(s.idle.rss_mb).padStart(9),
        String(s.live.rss_mb).padStart(9),
        String(s.live_objects).padStart(13),
        s.rss_mb_per_object.toFixed(3).padStart(11),
        s.anon_mb_per_object.toFixed(3).padStart(16),
        (ratio === null ? "" : ratio.toFixed(2)).padStart(8),
      ].join("  "),
    );
  for (const name of TOOLS) {
    const s = measured[name];
    if (s)
      console.log(
        `${name} ÷ floor, resident MiB per live object: ${s.ratio_rss_per_object} (goal ≤ ${GOAL}: ${s.goal_met ? "met" : "NOT met"})`,
      );
  }
}

runBenchmark(main);
