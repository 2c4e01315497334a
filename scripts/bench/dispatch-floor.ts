/**
 * The floor under dispatch alone (support/floor-worker.ts): the runtime's own cost of the steps
 * every call must take, with no toolproof code. `npm run bench:dispatch` measures the same floor
 * side by side with toolproof in one run; this is for a quick look at the runtime by itself.
 *
 *   npm run bench:dispatch-floor [-- --seconds 10 --state-parent /dev/shm]
 *
 * Phases, each from wrk at 32 connections over 1,000 objects (round-robin), after a warm-up,
 * with the server and the load on separate cores as in bench:dispatch. Numbers only: never a test.
 */
import os from "node:os";
import { positiveFlag, stringFlag } from "./flags.js";
import { startFloor } from "./support/floor-worker.js";
import { pinThisProcess, planCores, requireWrk, runWrk } from "./wrk.js";

const SECONDS = positiveFlag("seconds", 10, true); // wrk takes whole seconds
const OBJECTS = 1000;

requireWrk();
const cores = planCores();
pinThisProcess(cores.server);
const floor = await startFloor(stringFlag("state-parent") ?? os.tmpdir());
try {
  console.log(
    `dispatch floor: wrk with 32 connections, ${OBJECTS} objects, ${SECONDS} s per phase, state in ${floor.stateDir}; ${cores.note}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  for (const route of ["bare", "rpc", "write"] as const) {
    const requests = floor.requests(route, OBJECTS);
    await runWrk({ url: floor.url, requests, seconds: 3, connections: 32, core: cores.load }); // warm-up: every object exists and is loaded
    const load = await runWrk({ url: floor.url, requests, seconds: SECONDS, connections: 32, core: cores.load });
    console.log(
      `${route.padEnd(6)} ${load.requests_per_second.toFixed(0).padStart(6)} req/s  p50 ${load.p50_ms.toFixed(1)} ms  p99 ${load.p99_ms.toFixed(1)} ms  non-2xx ${load.non_2xx}`,
    );
  }
} finally {
  await floor.stop();
}
