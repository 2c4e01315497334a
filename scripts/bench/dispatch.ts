/**
 * Dispatch beside the runtime's durable floor, in one run (local Workers runtime, loopback only).
 *
 *   npm run bench:dispatch                      starts its own toolproof (the code `npm start` runs)
 *   TOOLPROOF_URL=http://127.0.0.1:8787 TOOLPROOF_KEY=tpk_… npm run bench:dispatch
 *
 * Two servers on the same runtime, their state in fresh directories under the same parent:
 * toolproof, and a throwaway Worker with no toolproof code (support/floor-worker.ts). Five phases,
 * all from wrk with the same shape (32 connections, round-robin over 1,000 objects; see wrk.ts),
 * with the servers on one core and wrk on the other:
 *   floor bare      a Worker route that answers at once
 *   floor rpc       plus one Durable Object RPC
 *   floor durable   plus one SQLite INSERT in that RPC: the durable floor
 *   lookup          toolproof's validated lookup (support/dispatch-workloads.ts)
 *   write           toolproof's stateful write
 * The phases are interleaved: each round runs all five (warm-up, then measured), in an order that
 * rotates from round to round, so a neighbour's load or the machine's drift falls on both sides
 * alike. Each toolproof workload is reported as a ratio of the durable floor of the same round.
 * After each toolproof phase every attempt's new evidence is read back, and the run fails unless
 * every answered call is there, numbered without gaps, and every write attempt booked exactly once.
 *
 * Flags: --rounds 3 --seconds 5 --warmup 2 --attempts 1000 --connections 32 --json
 *        --state-parent <dir> (where the servers keep their state; /dev/shm puts it in memory)
 *        --profile <dir> (after the rounds, one more run of each of floor durable, lookup and write
 *        under the V8 inspector's sampling profiler: .cpuprofile files in <dir> and a summary)
 * Numbers only: this is never a test (timings on shared machines are noise).
 */
import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { positiveFlag, stringFlag } from "./flags.js";
import { profileWhile, type ProfileSummary } from "./support/cpu-profile.js";
import { benchToolproof, median } from "./support/bench-server.js";
import { setUpWorkloads, type Verified, type Workload } from "./support/dispatch-workloads.js";
import { FLOOR_WORKER, startFloor, type FloorRoute } from "./support/floor-worker.js";
import { freePort } from "./support/free-port.js";
import { cpuMs, ownWorkerdPids } from "./support/process-memory.js";
import { type Load, pinThisProcess, planCores, requireWrk, runWrk, type WrkRequest } from "./wrk.js";

const ROUNDS = positiveFlag("rounds", 3, true);
const ATTEMPTS = positiveFlag("attempts", 1000, true);
const CONNECTIONS = positiveFlag("connections", 32, true);
const SECONDS = positiveFlag("seconds", 5, true);
const WARMUP_SECONDS = positiveFlag("warmup", 2, true);
const AS_JSON = process.argv.includes("--json");
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
const PROFILE_DIR = stringFlag("profile");
/** About how long the local runtime keeps an idle Durable Object loaded. */
const IDLE_UNLOAD_SECONDS = 10;

type PhaseName = "floor bare" | "floor rpc" | "floor durable" | "lookup" | "write";
const PHASES: readonly PhaseName[] = ["floor bare", "floor rpc", "floor durable", "lookup", "write"];
const FLOOR_ROUTES: Record<string, FloorRoute> = { "floor bare": "bare", "floor rpc": "rpc", "floor durable": "write" };

/** A wrk run and the runtime's CPU time per completed request during it (ms; null without /proc). */
type Measured = Load & { cpu_ms_per_call?: number | null };

interface Round {
  round: number;
  order: PhaseName[];
  /** The machine's 1-minute load average when the round started and ended. */
  loadavg: [number, number];
  loads: Record<PhaseName, Measured>;
}

/** Progress goes to stderr, so --json output stays parseable. */
function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

function loadavg(): number {
  return Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
}

async function main(): Promise<void> {
  requireWrk();
  const cores = planCores();
  // Both servers are children of this process and inherit its core.
  pinThisProcess(cores.server);
  const t = await benchToolproof(STATE_PARENT, PROFILE_DIR !== undefined);
  const floorInspector = PROFILE_DIR === undefined ? undefined : await freePort();
  const floor = await startFloor(STATE_PARENT, floorInspector).catch(async (error: unknown) => {
    await t.stop();
    throw error;
  });
  try {
    const layout = t.own
      ? cores.note
      : `${cores.note} for the floor; toolproof started elsewhere, its core placement unknown`;
    if (!AS_JSON) {
      console.log(
        `dispatch beside the durable floor: wrk with ${CONNECTIONS} connections over ${ATTEMPTS} objects, ${ROUNDS} rounds of ${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per phase; ${layout}; state under ${STATE_PARENT}`,
      );
    }
    const workloads = await setUpWorkloads(t, ATTEMPTS, CONNECTIONS);
    progress(`created ${workloads.reduce((n, w) => n + w.attempts.length, 0)} attempts`);
    const byName = new Map(workloads.map((w) => [w.name as string, w]));
    const requestsOf = (phase: PhaseName): { url: string; requests: WrkRequest[]; workload?: Workload } => {
      const route = FLOOR_ROUTES[phase];
      if (route) return { url: floor.url, requests: floor.requests(route, ATTEMPTS) };
      const workload = byName.get(phase);
      if (!workload) throw new Error(`no workload ${phase}`);
      return { url: t.url, requests: workload.requests, workload };
    };
    const runPhase = async (phase: PhaseName, seconds: number, warmup: boolean): Promise<Measured> => {
      const { url, requests, workload } = requestsOf(phase);
      if (warmup)
        workload?.check.answeredBy(
          await runWrk({ url, requests, seconds: WARMUP_SECONDS, connections: CONNECTIONS, core: cores.load }),
        );
      const pids = await ownWorkerdPids();
      const cpuBefore = await cpuMs(pids);
      const load: Measured = await runWrk({ url, requests, seconds, connections: CONNECTIONS, core: cores.load });
      const cpuAfter = await cpuMs(pids);
      // Both servers' runtimes are counted: the idle one adds its timers, a few ms at most.
      load.cpu_ms_per_call =
        cpuBefore === null || cpuAfter === null || load.requests === 0 ? null : (cpuAfter - cpuBefore) / load.requests;
      if (workload) {
        workload.check.answeredBy(load);
        await workload.check.readBack();
      }
      return load;
    };

    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = PHASES.map((_, i) => PHASES[(i + r) % PHASES.length] as PhaseName);
      const start = loadavg();
      const loads: Partial<Record<PhaseName, Measured>> = {};
      for (const phase of order) {
        progress(`round ${r + 1}/${ROUNDS}: ${phase}`);
        const load = await runPhase(phase, SECONDS, true);
        loads[phase] = load;
        progress(
          `round ${r + 1}/${ROUNDS}: ${phase}: ${load.requests_per_second.toFixed(0)} req/s, p50 ${load.p50_ms.toFixed(1)} ms, p99 ${load.p99_ms.toFixed(1)} ms, CPU ${load.cpu_ms_per_call?.toFixed(3) ?? "?"} ms/call, load average ${loadavg()}`,
        );
      }
      rounds.push({ round: r + 1, order, loadavg: [start, loadavg()], loads: loads as Record<PhaseName, Measured> });
    }

    let profiles: Record<string, ProfileSummary> | undefined;
    if (PROFILE_DIR !== undefined && floorInspector !== undefined && t.inspectorPort !== null) {
      await mkdir(PROFILE_DIR, { recursive: true });
      profiles = {};
      for (const phase of ["floor durable", "lookup", "write"] as const) {
        progress(`profiling ${phase}`);
        const port = phase === "floor durable" ? floorInspector : t.inspectorPort;
        const worker = phase === "floor durable" ? FLOOR_WORKER : "toolproof";
        const file = path.join(PROFILE_DIR, `${phase.replace(" ", "-")}.cpuprofile`);
        let load: Load | undefined;
        const summary = await profileWhile(
          port,
          worker,
          async () => {
            const { url, requests, workload } = requestsOf(phase);
            load = await runWrk({ url, requests, seconds: SECONDS, connections: CONNECTIONS, core: cores.load });
            workload?.check.answeredBy(load);
          },
          file,
        );
        await requestsOf(phase).workload?.check.readBack();
        profiles[phase] = { ...summary, busy_ms: summary.busy_ms };
        if (load)
          progress(
            `${phase} under the profiler: ${load.requests} calls, ${(summary.busy_ms / Math.max(1, load.requests)).toFixed(3)} ms busy per call`,
          );
      }
    }

    const phaseMedian = (phase: PhaseName, key: "requests_per_second" | "p50_ms" | "p99_ms" | "cpu_ms_per_call") =>
      median(rounds.map((r) => r.loads[phase][key] ?? Number.NaN));
    const ratios = (phase: "lookup" | "write") =>
      rounds.map((r) => r.loads[phase].requests_per_second / r.loads["floor durable"].requests_per_second);
    const evidence: Record<string, Verified> = Object.fromEntries(workloads.map((w) => [w.name, w.check.result()]));
    // The local runtime unloads an object after about ten idle seconds: below OBJECTS / 10 calls/s,
    // round-robin reaches each object less often than that, and most calls load their object again.
    const coldObjects = phaseMedian("floor durable", "requests_per_second") * IDLE_UNLOAD_SECONDS < ATTEMPTS;
    const summary = {
      toolproof: t.url,
      floor: floor.url,
      connections: CONNECTIONS,
      objects: ATTEMPTS,
      seconds: SECONDS,
      cores: layout,
      state_parent: STATE_PARENT,
      medians: Object.fromEntries(
        PHASES.map((p) => [
          p,
          {
            requests_per_second: phaseMedian(p, "requests_per_second"),
            p50_ms: phaseMedian(p, "p50_ms"),
            p99_ms: phaseMedian(p, "p99_ms"),
            cpu_ms_per_call: phaseMedian(p, "cpu_ms_per_call"),
          },
        ]),
      ),
      ratio_to_durable_floor: { lookup: median(ratios("lookup")), write: median(ratios("write")) },
      ratio_range: {
        lookup: [Math.min(...ratios("lookup")), Math.max(...ratios("lookup"))],
        write: [Math.min(...ratios("write")), Math.max(...ratios("write"))],
      },
      goals: Object.fromEntries(
        (["lookup", "write"] as const).map((w) => [
          w,
          median(ratios(w)) >= 0.8 && phaseMedian(w, "p99_ms") <= 10 * phaseMedian(w, "p50_ms"),
        ]),
      ),
      cold_objects: coldObjects,
      rounds,
      evidence,
      ...(profiles ? { profiles } : {}),
    };
    if (AS_JSON) {
      console.log(JSON.stringify(summary, null, 2));
    } else {
      console.log(
        `load average (1 min) per round, start → end: ${rounds.map((r) => `${r.loadavg[0]} → ${r.loadavg[1]}`).join("; ")}`,
      );
      console.log(
        [
          "phase (median of rounds)".padEnd(26),
          "req/s".padStart(7),
          "p50 ms".padStart(7),
          "p99 ms".padStart(7),
          "CPU ms/call".padStart(11),
          "ratio to durable floor".padStart(24),
        ].join("  "),
      );
      const labels: Record<PhaseName, string> = {
        "floor bare": "floor: bare route",
        "floor rpc": "floor: + DO RPC",
        "floor durable": "floor: + SQLite INSERT",
        lookup: "toolproof validated lookup",
        write: "toolproof stateful write",
      };
      for (const phase of PHASES) {
        const m = summary.medians[phase];
        let ratio = "";
        if (phase === "lookup" || phase === "write") {
          const [low, high] = summary.ratio_range[phase];
          ratio = `${summary.ratio_to_durable_floor[phase].toFixed(2)} (${(low ?? 0).toFixed(2)}–${(high ?? 0).toFixed(2)})`;
        }
        console.log(
          [
            labels[phase].padEnd(26),
            (m?.requests_per_second ?? 0).toFixed(0).padStart(7),
            (m?.p50_ms ?? 0).toFixed(1).padStart(7),
            (m?.p99_ms ?? 0).toFixed(1).padStart(7),
            (m?.cpu_ms_per_call ?? Number.NaN).toFixed(3).padStart(11),
            ratio.padStart(24),
          ].join("  "),
        );
      }
      if (coldObjects) {
        console.log(
          `cold objects: at under ${ATTEMPTS / IDLE_UNLOAD_SECONDS} calls/s, round-robin reaches each of ${ATTEMPTS} objects less often than the runtime unloads an idle one (about every ${IDLE_UNLOAD_SECONDS} s), so most calls load their object again: these figures are the cost of loading objects on a busy machine, and the ratios are noise-bound (see CPU ms/call)`,
        );
      }
      for (const w of ["lookup", "write"] as const) {
        console.log(
          `goal (${w}): ≥ 0.8 of the durable floor with p99 ≤ 10 × p50: ${summary.goals[w] ? "met" : "NOT met"}`,
        );
      }
      for (const [name, check] of Object.entries(evidence)) {
        console.log(
          `evidence (${name}): ${check.recorded} calls recorded, ${check.answered} answered (warm-ups included), ${check.in_flight_at_stop} in flight when wrk stopped` +
            (check.problems.length
              ? `; ${check.problems.length} problems, first: ${check.problems.slice(0, 3).join(" | ")}`
              : "; every answered call is in the evidence"),
        );
      }
      for (const [phase, profile] of Object.entries(profiles ?? {})) {
        console.log(`\nCPU profile, ${phase}: ${profile.busy_ms.toFixed(0)} ms busy; self time by function:`);
        for (const line of profile.top.slice(0, 20))
          console.log(
            `  ${(line.share * 100).toFixed(1).padStart(5)}%  ${line.self_ms.toFixed(0).padStart(6)} ms  ${line.what}`,
          );
      }
    }
    if (Object.values(evidence).some((c) => c.problems.length > 0)) process.exitCode = 1;
  } finally {
    await floor.stop();
    await t.stop();
  }
}

await main();
