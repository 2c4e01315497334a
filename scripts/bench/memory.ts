/**
 * Resident memory per live Durable Object: the runtime's own floor against toolproof's attempts
 * (issue 21 item 6). Local Workers runtime, loopback only; numbers only, never a test.
 *
 *   npm run bench:memory [-- --objects 1000 --json --state-parent /dev/shm]
 *
 * Two servers, one after the other, each on a fresh state directory:
 *   floor      support/floor-worker.ts: a minimal Durable Object; each object gets one SQLite row
 *              (one /write call), so it holds what a live object must: its isolate state and its database
 *   toolproof  the code `npm start` runs, with --objects attempts of a small tool (the dispatch
 *              benchmark's validated lookup), each called once
 * Both run with eviction turned off (Miniflare's unsafePreventEviction), so every object called stays
 * live: the local runtime otherwise unloads an object after about ten idle seconds, and on a busy
 * machine calling 1,000 objects takes longer than that. workerd's resident memory is read once the
 * server is up (idle) and again after every object was called twice (32 calls at a time); the count
 * of SQLite files workerd holds open says how many objects are live then. Per live object = (live − idle) ÷ live objects.
 * No garbage collection is forced: a heap snapshot (the only way to force one in workerd) costs
 * more resident memory than it frees; `scripts/bench/memory-probe.ts` reads the JavaScript heaps.
 * The ratio of toolproof's to the floor's is issue 21's figure (goal: at most 1.5).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startToolproof } from "../local-server.js";
import { positiveFlag, stringFlag } from "./flags.js";
import { registerLookupTool, setUpAttempts } from "./support/dispatch-workloads.js";
import { startFloor } from "./support/floor-worker.js";
import { liveReading, onlyNewWorkerd, readMemory, type Side, side } from "./support/live-memory.js";
import { ownWorkerdPids } from "./support/process-memory.js";
import { runBenchmark } from "./support/toolproof-api.js";

const OBJECTS = positiveFlag("objects", 1000, true);
const AS_JSON = process.argv.includes("--json");
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
const PASSES = 2;

function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
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

async function measureToolproof(): Promise<Side> {
  const stateDir = await mkdtemp(path.join(STATE_PARENT, "toolproof-memory-"));
  const before = await ownWorkerdPids();
  const server = await startToolproof({ port: 0, stateDir, quiet: true, seedDemo: false, preventEviction: true });
  try {
    const pid = await onlyNewWorkerd(before);
    const t = { url: server.url, key: server.demoKey };
    const tool = await registerLookupTool(t);
    const idle = await readMemory(pid);
    progress(`toolproof idle: ${JSON.stringify(idle)}`);
    const attempts = await setUpAttempts(t, tool.toolId, OBJECTS);
    const requests = tool.dispatch(attempts);
    const live = await liveReading(pid, server.url, requests, PASSES);
    progress(`toolproof with ${OBJECTS} attempts: ${JSON.stringify(live)}`);
    return side(idle, live);
  } finally {
    await server.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const floor = await measureFloor();
  const toolproof = await measureToolproof();
  const ratio = Math.round((toolproof.rss_mb_per_object / floor.rss_mb_per_object) * 100) / 100;
  const summary = {
    objects: OBJECTS,
    state_parent: STATE_PARENT,
    floor,
    toolproof,
    ratio_rss_per_object: ratio,
    goal_met: ratio <= 1.5,
  };
  if (AS_JSON) {
    console.log(JSON.stringify(summary, null, 2));
    return;
  }
  console.log(`resident memory per live Durable Object, ${OBJECTS} objects each; state under ${STATE_PARENT}`);
  console.log(
    [
      "".padEnd(34),
      "idle MiB".padStart(9),
      "live MiB".padStart(9),
      "live objects".padStart(13),
      "MiB/object".padStart(11),
      "anon MiB/object".padStart(16),
    ].join("  "),
  );
  for (const [label, s] of [
    ["floor: DO with one SQLite row", floor],
    ["toolproof: attempt, called once", toolproof],
  ] as const) {
    console.log(
      [
        label.padEnd(34),
        String(s.idle.rss_mb).padStart(9),
        String(s.live.rss_mb).padStart(9),
        String(s.live_objects).padStart(13),
        s.rss_mb_per_object.toFixed(3).padStart(11),
        s.anon_mb_per_object.toFixed(3).padStart(16),
      ].join("  "),
    );
  }
  console.log(
    `toolproof ÷ floor, resident MiB per live object: ${ratio} (goal ≤ 1.5: ${summary.goal_met ? "met" : "NOT met"})`,
  );
}

runBenchmark(main);
