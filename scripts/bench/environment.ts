/**
 * A call on τ-bench's retail environment against a call on a small-state tool, in one run, over
 * HTTP on the local server (issue 21 item 6). Local Workers runtime, loopback only; numbers only,
 * never a test.
 *
 *   npm run bench:environment                    starts its own toolproof (the code `npm start` runs)
 *   TOOLPROOF_URL=http://127.0.0.1:8787 TOOLPROOF_KEY=tpk_… npm run bench:environment
 *
 * Four workloads, each round-robin over its own attempts (one Durable Object each), all driven by
 * wrk the same way (see wrk.ts; server on core 0, wrk on core 1 where there are two):
 *   lookup        the small-state tools of bench:dispatch (support/dispatch-workloads.ts): a
 *   write         validated lookup, and a booking whose state is one slot
 *   retail read   get_order_details on the retail environment (support/retail-workloads.ts): the
 *   retail write  1.2 MB dataset pinned, read through the shared base; modify_pending_order_address,
 *                 one order record written per call, copy-on-write
 * The phases are interleaved as bench:dispatch does: each round runs all four (warm-up, then
 * measured) in an order that rotates from round to round, so a neighbour's load or the machine's
 * drift falls on both sides alike. Each retail workload is reported against its small-state
 * counterpart of the same round (p50, p99, req/s). After each phase every attempt's evidence is
 * read back, and the run fails unless every answered call is there, numbered without gaps, and
 * every retail answer is the order (never one of τ-bench's `Error: ...` strings).
 *
 * Flags: --rounds 3 --seconds 5 --warmup 2 --attempts 200 --connections 32 --json
 *        --state-parent <dir> (where the server keeps its state; /dev/shm puts it in memory)
 * 200 attempts per workload by default: each retail attempt's setup holds the 16 pinned
 * operations, and 200 objects called at this rate stay loaded (the runtime unloads an object idle
 * for about ten seconds), which is the case the comparison is about.
 */
import os from "node:os";
import { positiveFlag, stringFlag } from "./flags.js";
import { benchToolproof, median } from "./support/bench-server.js";
import { setUpWorkloads, type Verified, type Workload } from "./support/dispatch-workloads.js";
import { cpuMs, ownWorkerdPids } from "./support/process-memory.js";
import { setUpRetailWorkloads } from "./support/retail-workloads.js";
import { runBenchmark } from "./support/toolproof-api.js";
import { type Load, pinThisProcess, planCores, requireWrk, runWrk } from "./wrk.js";

const ROUNDS = positiveFlag("rounds", 3, true);
const ATTEMPTS = positiveFlag("attempts", 200, true);
const CONNECTIONS = positiveFlag("connections", 32, true);
const SECONDS = positiveFlag("seconds", 5, true);
const WARMUP_SECONDS = positiveFlag("warmup", 2, true);
const AS_JSON = process.argv.includes("--json");
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
/** About how long the local runtime keeps an idle Durable Object loaded. */
const IDLE_UNLOAD_SECONDS = 10;

type PhaseName = "lookup" | "write" | "retail read" | "retail write";
const PHASES: readonly PhaseName[] = ["lookup", "write", "retail read", "retail write"];
/** Each retail workload and the small-state workload it is compared with. */
const PAIRS = [
  ["retail read", "lookup"],
  ["retail write", "write"],
] as const;
const LABELS: Record<PhaseName, string> = {
  lookup: "small state: validated lookup",
  write: "small state: booking write",
  "retail read": "retail: get_order_details",
  "retail write": "retail: modify_pending_order_address",
};

/** A wrk run and the runtime's CPU time per completed request during it (ms; null without /proc or a server of its own). */
type Measured = Load & { cpu_ms_per_call: number | null };
type Metric = "requests_per_second" | "p50_ms" | "p99_ms";

interface Round {
  round: number;
  order: PhaseName[];
  /** The machine's 1-minute load average when the round started and ended. */
  loadavg: [number, number];
  loads: Record<PhaseName, Measured>;
}

function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

function loadavg(): number {
  return Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
}

async function main(): Promise<void> {
  requireWrk();
  const cores = planCores();
  pinThisProcess(cores.server);
  const t = await benchToolproof(STATE_PARENT);
  try {
    const layout = t.own ? cores.note : `${cores.note}; toolproof started elsewhere, its core placement unknown`;
    if (!AS_JSON)
      console.log(
        `retail environment against small-state tools: wrk with ${CONNECTIONS} connections over ${ATTEMPTS} attempts per workload, ${ROUNDS} rounds of ${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per phase; ${layout}; state under ${STATE_PARENT}`,
      );
    const small = await setUpWorkloads(t, ATTEMPTS, CONNECTIONS);
    const retail = await setUpRetailWorkloads(t, ATTEMPTS, CONNECTIONS);
    const workloads = new Map<string, Workload<string>>([...small, ...retail].map((w) => [w.name, w]));
    progress(`created ${ATTEMPTS * workloads.size} attempts`);
    const workloadOf = (phase: PhaseName): Workload<string> => {
      const workload = workloads.get(phase);
      if (!workload) throw new Error(`no workload ${phase}`);
      return workload;
    };

    const runPhase = async (phase: PhaseName): Promise<Measured> => {
      const { requests, check } = workloadOf(phase);
      const run = { url: t.url, requests, connections: CONNECTIONS, core: cores.load };
      check.answeredBy(await runWrk({ ...run, seconds: WARMUP_SECONDS }));
      const pids = t.own ? await ownWorkerdPids() : [];
      const cpuBefore = await cpuMs(pids);
      const load = await runWrk({ ...run, seconds: SECONDS });
      const cpuAfter = await cpuMs(pids);
      check.answeredBy(load);
      await check.readBack();
      return {
        ...load,
        cpu_ms_per_call:
          cpuBefore === null || cpuAfter === null || load.requests === 0
            ? null
            : (cpuAfter - cpuBefore) / load.requests,
      };
    };

    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = PHASES.map((_, i) => PHASES[(i + r) % PHASES.length] as PhaseName);
      const start = loadavg();
      const loads: Partial<Record<PhaseName, Measured>> = {};
      for (const phase of order) {
        const load = await runPhase(phase);
        loads[phase] = load;
        progress(
          `round ${r + 1}/${ROUNDS}: ${phase}: ${load.requests_per_second.toFixed(0)} req/s, p50 ${load.p50_ms.toFixed(1)} ms, p99 ${load.p99_ms.toFixed(1)} ms, CPU ${load.cpu_ms_per_call?.toFixed(3) ?? "?"} ms/call, load average ${loadavg()}`,
        );
      }
      rounds.push({ round: r + 1, order, loadavg: [start, loadavg()], loads: loads as Record<PhaseName, Measured> });
    }

    const phaseMedian = (phase: PhaseName, key: Metric | "cpu_ms_per_call") =>
      median(rounds.map((r) => r.loads[phase][key] ?? Number.NaN));
    // Ratios per round (retail ÷ its small-state counterpart of the same round), then their median.
    const ratio = (retailPhase: PhaseName, smallPhase: PhaseName, key: Metric) =>
      median(rounds.map((r) => r.loads[retailPhase][key] / r.loads[smallPhase][key]));
    const evidence: Record<string, Verified> = Object.fromEntries(
      [...workloads.values()].map((w) => [w.name, w.check.result()]),
    );
    const slowest = Math.min(...PHASES.map((p) => phaseMedian(p, "requests_per_second")));
    const summary = {
      toolproof: t.url,
      connections: CONNECTIONS,
      attempts_per_workload: ATTEMPTS,
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
      retail_to_small_state: Object.fromEntries(
        PAIRS.map(([retailPhase, smallPhase]) => [
          `${retailPhase} / ${smallPhase}`,
          {
            p50: ratio(retailPhase, smallPhase, "p50_ms"),
            p99: ratio(retailPhase, smallPhase, "p99_ms"),
            requests_per_second: ratio(retailPhase, smallPhase, "requests_per_second"),
          },
        ]),
      ),
      cold_objects: slowest * IDLE_UNLOAD_SECONDS < ATTEMPTS,
      rounds,
      evidence,
    };
    if (AS_JSON) {
      console.log(JSON.stringify(summary, null, 2));
    } else {
      console.log(
        `load average (1 min) per round, start → end: ${rounds.map((r) => `${r.loadavg[0]} → ${r.loadavg[1]}`).join("; ")}`,
      );
      console.log(
        [
          "phase (median of rounds)".padEnd(38),
          "req/s".padStart(7),
          "p50 ms".padStart(8),
          "p99 ms".padStart(8),
          "CPU ms/call".padStart(11),
        ].join("  "),
      );
      for (const phase of PHASES) {
        const m = summary.medians[phase];
        console.log(
          [
            LABELS[phase].padEnd(38),
            (m?.requests_per_second ?? 0).toFixed(0).padStart(7),
            (m?.p50_ms ?? 0).toFixed(1).padStart(8),
            (m?.p99_ms ?? 0).toFixed(1).padStart(8),
            (m?.cpu_ms_per_call ?? Number.NaN).toFixed(3).padStart(11),
          ].join("  "),
        );
      }
      for (const [pair, r] of Object.entries(summary.retail_to_small_state))
        console.log(
          `${pair} (median of per-round ratios): p50 ×${r.p50.toFixed(2)}, p99 ×${r.p99.toFixed(2)}, req/s ×${r.requests_per_second.toFixed(2)}`,
        );
      if (summary.cold_objects)
        console.log(
          `cold objects: some phase reached each of its ${ATTEMPTS} attempts less often than the runtime unloads an idle object (about every ${IDLE_UNLOAD_SECONDS} s), so its calls mostly loaded their object again`,
        );
      for (const [name, check] of Object.entries(evidence))
        console.log(
          `evidence (${name}): ${check.recorded} calls recorded, ${check.answered} answered (warm-ups included), ${check.in_flight_at_stop} in flight when wrk stopped` +
            (check.problems.length
              ? `; ${check.problems.length} problems, first: ${check.problems.slice(0, 3).join(" | ")}`
              : "; every answered call is in the evidence"),
        );
    }
    if (Object.values(evidence).some((c) => c.problems.length > 0)) process.exitCode = 1;
  } finally {
    await t.stop();
  }
}

runBenchmark(main);
