/**
 * CPU time per call: the durable floor, toolproof's validated lookup and its stateful write, side
 * by side in one run (local Workers runtime, loopback only). Numbers only: never a test.
 *
 *   npm run bench:dispatch-cpu [-- --rounds 3 --seconds 3 --attempts 100 --profile]
 *
 * Throughput on a shared machine moves with whatever the neighbours do; the CPU time a runtime
 * spends per call hardly does. So this reads, for each phase, the CPU time (user + system, from
 * /proc) of the one server's workerd processes that served it, divided by the calls wrk completed:
 *   floor     support/floor-worker.ts's /write: one Durable Object RPC plus one SQLite INSERT
 *   lookup    toolproof's validated lookup (support/dispatch-workloads.ts)
 *   write     toolproof's stateful write
 * and prints each toolproof workload's CPU as a multiple of the floor's, and the floor's as a share
 * of it: on a CPU-bound runtime that share is the throughput ratio `bench:dispatch` measures
 * (issue 24's goal: at least 0.8). Phases are interleaved, rotating from round to round.
 *
 * The default is 100 objects (not bench:dispatch's 1,000), so that a loaded machine still reaches
 * every object more often than the runtime unloads an idle one: the figures are a loaded object's
 * calls, not object loads (the run says when that did not hold).
 *
 * --profile: one more run of each phase under the V8 inspector's sampling profiler, on every
 * isolate of the server the request passes through (the Worker's own and, when there are any,
 * Miniflare's asset router isolates), printed as busy ms per call per isolate, with each
 * isolate's top functions.
 *
 * --asset-router: two more phases, the same lookup and write sent to the Worker's default entrypoint,
 * which Miniflare passes through its static-asset router first (what `npm start` served before
 * DirectHttp, src/worker/index.ts): the before and after of that change, on one server.
 *
 * Flags: --rounds 3 --seconds 3 --warmup 1 --attempts 100 --connections 32 --profile --asset-router
 *        --json --state-parent <dir>
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startToolproof } from "../local-server.js";
import { positiveFlag, stringFlag } from "./flags.js";
import { inspectorTargets, type ProfileSummary, profileTargetWhile } from "./support/cpu-profile.js";
import { setUpWorkloads, type Workload } from "./support/dispatch-workloads.js";
import { FLOOR_WORKER, startFloor } from "./support/floor-worker.js";
import { freePort } from "./support/free-port.js";
import { cpuMs, ownWorkerdPids } from "./support/process-memory.js";
import { pinThisProcess, planCores, requireWrk, runWrk, type WrkRequest } from "./wrk.js";

const ROUNDS = positiveFlag("rounds", 3, true);
const SECONDS = positiveFlag("seconds", 3, true);
const WARMUP_SECONDS = positiveFlag("warmup", 1, true);
const ATTEMPTS = positiveFlag("attempts", 100, true);
const CONNECTIONS = positiveFlag("connections", 32, true);
const PROFILE = process.argv.includes("--profile");
const AS_JSON = process.argv.includes("--json");
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
/** About how long the local runtime keeps an idle Durable Object loaded. */
const IDLE_UNLOAD_SECONDS = 10;

const ASSET_ROUTER = process.argv.includes("--asset-router");

type Phase = "floor" | "lookup" | "write" | "lookup, asset router" | "write, asset router";
const PHASES: readonly Phase[] = [
  "floor",
  "lookup",
  "write",
  ...(ASSET_ROUTER ? (["lookup, asset router", "write, asset router"] as const) : []),
];

interface Measured {
  calls: number;
  requests_per_second: number;
  cpu_ms_per_call: number | null;
}

function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

/** The median of the finite values (a phase in which wrk completed no call has none). */
function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Miniflare's isolates a request to this worker may pass through: the Worker's own and its asset router's. */
function onThePath(target: string, worker: string): boolean {
  return target === `core:user:${worker}` || (target.startsWith("assets:") && target.endsWith(`:${worker}`));
}

async function main(): Promise<void> {
  requireWrk();
  const cores = planCores();
  pinThisProcess(cores.server);
  const toolproofInspector = PROFILE ? await freePort() : undefined;
  const floorInspector = PROFILE ? await freePort() : undefined;
  const stateDir = await mkdtemp(path.join(STATE_PARENT, "toolproof-bench-"));
  const t = await startToolproof({
    port: 0,
    stateDir,
    quiet: true,
    seedDemo: false,
    routedSocket: ASSET_ROUTER,
    ...(toolproofInspector === undefined ? {} : { inspectorPort: toolproofInspector }),
  });
  // Each server's own processes, so a phase is charged only what its server spent.
  const toolproofPids = await ownWorkerdPids();
  const floor = await startFloor(STATE_PARENT, floorInspector);
  const floorPids = (await ownWorkerdPids()).filter((pid) => !toolproofPids.includes(pid));
  try {
    const workloads = await setUpWorkloads({ url: t.url, key: t.demoKey }, ATTEMPTS, CONNECTIONS);
    const byName = new Map<string, Workload>(workloads.map((w) => [w.name, w]));
    const target = (phase: Phase): { url: string; requests: WrkRequest[]; pids: number[]; workload?: Workload } => {
      if (phase === "floor") return { url: floor.url, requests: floor.requests("write", ATTEMPTS), pids: floorPids };
      const routed = phase.endsWith(", asset router");
      const workload = byName.get(phase.replace(", asset router", ""));
      if (!workload) throw new Error(`no workload ${phase}`);
      if (!routed) return { url: t.url, requests: workload.requests, pids: toolproofPids, workload };
      // The same attempts and calls, sent to the default entrypoint's socket.
      const url = t.routedUrl ?? "";
      const host = new URL(url).host;
      const requests = workload.requests.map((r) => ({ ...r, headers: { ...r.headers, Host: host } }));
      return { url, requests, pids: toolproofPids, workload };
    };
    const measure = async (phase: Phase): Promise<Measured> => {
      const { url, requests, pids, workload } = target(phase);
      workload?.check.answeredBy(
        await runWrk({ url, requests, seconds: WARMUP_SECONDS, connections: CONNECTIONS, core: cores.load }),
      );
      const before = await cpuMs(pids);
      const load = await runWrk({ url, requests, seconds: SECONDS, connections: CONNECTIONS, core: cores.load });
      const after = await cpuMs(pids);
      if (workload) {
        workload.check.answeredBy(load);
        // Outside the measured window: checks every answered call is evidence, and copies it to D1.
        await workload.check.readBack();
      }
      return {
        calls: load.requests,
        requests_per_second: load.requests_per_second,
        cpu_ms_per_call:
          before === null || after === null || load.requests === 0 ? null : (after - before) / load.requests,
      };
    };

    // Every object is created and loaded before anything is measured: a first call creates the
    // object's SQLite file, which is not what a call costs.
    for (const phase of PHASES) {
      const { url, requests, workload } = target(phase);
      for (let calls = 0; calls < 2 * ATTEMPTS; ) {
        const load = await runWrk({
          url,
          requests,
          seconds: WARMUP_SECONDS,
          connections: CONNECTIONS,
          core: cores.load,
        });
        workload?.check.answeredBy(load);
        calls += load.requests;
      }
      progress(`${phase}: every object called`);
    }

    const rounds: Array<Record<Phase, Measured>> = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round: Partial<Record<Phase, Measured>> = {};
      for (const phase of PHASES.map((_, i) => PHASES[(i + r) % PHASES.length] as Phase)) {
        round[phase] = await measure(phase);
        progress(
          `round ${r + 1}/${ROUNDS} ${phase}: ${round[phase]?.calls} calls, ${round[phase]?.cpu_ms_per_call?.toFixed(3)} ms CPU per call, load average ${os.loadavg()[0]?.toFixed(2)}`,
        );
      }
      rounds.push(round as Record<Phase, Measured>);
    }

    const cpu = (phase: Phase) => median(rounds.map((r) => r[phase].cpu_ms_per_call ?? Number.NaN));
    const ratios = (phase: Phase) =>
      rounds
        .map((r) => (r.floor.cpu_ms_per_call ?? Number.NaN) / (r[phase].cpu_ms_per_call ?? Number.NaN))
        .filter(Number.isFinite);
    const slowest = Math.min(...rounds.flatMap((r) => PHASES.map((p) => r[p].requests_per_second)));

    type ByIsolate = Record<string, { busy_ms_per_call: number; top: ProfileSummary["top"] }>;
    let profiles: Partial<Record<Phase, ByIsolate>> | undefined;
    if (toolproofInspector !== undefined && floorInspector !== undefined) {
      profiles = {};
      for (const phase of PHASES) {
        const byIsolate: ByIsolate = {};
        profiles[phase] = byIsolate;
        const port = phase === "floor" ? floorInspector : toolproofInspector;
        const worker = phase === "floor" ? FLOOR_WORKER : "toolproof";
        const targets = (await inspectorTargets(port)).filter((id) => onThePath(id, worker));
        const { url, requests, workload } = target(phase);
        let calls = 0;
        const summaries: Record<string, ProfileSummary> = {};
        // One profiler per isolate, nested, all running while wrk does.
        const run = targets.reduceRight<() => Promise<void>>(
          (inner, id) => async () => {
            summaries[id] = await profileTargetWhile(port, id, inner);
          },
          async () => {
            const load = await runWrk({ url, requests, seconds: SECONDS, connections: CONNECTIONS, core: cores.load });
            workload?.check.answeredBy(load);
            calls = load.requests;
          },
        );
        progress(`profiling ${phase} on ${targets.join(", ")}`);
        await run();
        await workload?.check.readBack();
        for (const [id, summary] of Object.entries(summaries))
          byIsolate[id] = { busy_ms_per_call: summary.busy_ms / Math.max(1, calls), top: summary.top };
      }
    }

    const evidence = Object.fromEntries(workloads.map((w) => [w.name, w.check.result()]));
    const summary = {
      objects: ATTEMPTS,
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      cores: cores.note,
      state_parent: STATE_PARENT,
      loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
      cpu_ms_per_call: Object.fromEntries(PHASES.map((p) => [p, cpu(p)])) as Record<Phase, number>,
      /** The floor's CPU per call over toolproof's: the throughput share a CPU-bound runtime would give. */
      floor_share: Object.fromEntries(PHASES.map((p) => [p, median(ratios(p))])) as Record<Phase, number>,
      floor_share_range: Object.fromEntries(
        PHASES.map((p) => [p, [Math.min(...ratios(p)), Math.max(...ratios(p))]]),
      ) as Record<Phase, [number, number]>,
      cold_objects: slowest * IDLE_UNLOAD_SECONDS < ATTEMPTS,
      per_round: rounds,
      evidence,
      ...(profiles ? { profiles } : {}),
    };
    if (AS_JSON) {
      console.log(JSON.stringify(summary, null, 2));
    } else {
      console.log(
        `CPU per call, ${ROUNDS} rounds of ${SECONDS} s per phase, wrk with ${CONNECTIONS} connections over ${ATTEMPTS} objects; ${cores.note}; load average now ${summary.loadavg.join(" ")}`,
      );
      console.log(
        [
          "phase (median of rounds)".padEnd(28),
          "CPU ms/call".padStart(11),
          "× floor".padStart(8),
          "floor share".padStart(20),
        ].join("  "),
      );
      const labels: Record<Phase, string> = {
        floor: "floor: DO RPC + SQLite INSERT",
        lookup: "toolproof validated lookup",
        write: "toolproof stateful write",
        "lookup, asset router": "lookup, via asset router",
        "write, asset router": "write, via asset router",
      };
      for (const phase of PHASES) {
        const ms = summary.cpu_ms_per_call[phase];
        let share = "";
        if (phase !== "floor") {
          const [low, high] = summary.floor_share_range[phase];
          share = `${summary.floor_share[phase].toFixed(2)} (${(low ?? 0).toFixed(2)}–${(high ?? 0).toFixed(2)})`;
        }
        console.log(
          [
            labels[phase].padEnd(28),
            ms.toFixed(3).padStart(11),
            (ms / summary.cpu_ms_per_call.floor).toFixed(2).padStart(8),
            share.padStart(20),
          ].join("  "),
        );
      }
      if (summary.cold_objects)
        console.log(
          `cold objects: some phase reached each of ${ATTEMPTS} objects less often than every ${IDLE_UNLOAD_SECONDS} s, so its calls include loading objects again (fewer --attempts keeps them loaded)`,
        );
      for (const [name, check] of Object.entries(evidence))
        console.log(
          `evidence (${name}): ${check.recorded} calls recorded, ${check.answered} answered` +
            (check.problems.length
              ? `; ${check.problems.length} problems, first: ${check.problems[0]}`
              : "; all there"),
        );
      for (const [phase, byIsolate] of Object.entries(profiles ?? {})) {
        console.log(`\nCPU profile, ${phase}: busy ms per call, per isolate on the request's path`);
        for (const [id, p] of Object.entries(byIsolate)) {
          console.log(`  ${p.busy_ms_per_call.toFixed(3).padStart(7)}  ${id}`);
          for (const line of p.top.slice(0, 8))
            console.log(`           ${(line.share * 100).toFixed(1).padStart(5)}%  ${line.what}`);
        }
      }
    }
    if (Object.values(evidence).some((c) => c.problems.length > 0)) process.exitCode = 1;
  } finally {
    await floor.stop();
    await t.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}

await main();
