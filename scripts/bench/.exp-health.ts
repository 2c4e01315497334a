import autocannon from "autocannon";
import { startToolproof } from "../local-server.js";
const server = await startToolproof({ port: 0, stateDir: "/dev/shm/tp-exp-" + Date.now(), quiet: true, seedDemo: false });
const host = new URL(server.url).host;
for (const n of [1, 2]) {
  const r = await autocannon({ url: server.url + "/health", connections: 32, amount: 20000 });
  console.log(n, "health", r.requests.average, r.latency.p50, r.latency.p99, r.non2xx);
}
await server.stop();
