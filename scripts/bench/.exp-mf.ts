import autocannon from "autocannon";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const fromWrangler = createRequire(require.resolve("wrangler"));
const { Miniflare, convertV4MiniflareOptions } = fromWrangler("miniflare");
const mf = new Miniflare(convertV4MiniflareOptions({ modules: true, script: `export default { fetch() { return new Response('{"ok":true}', { headers: { "content-type": "application/json" } }); } }`, port: 0, host: "127.0.0.1", unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }] }));
const url = await mf.ready;
const direct = await mf.unsafeGetDirectURL();
for (const [name, u] of [["entry", url.href], ["direct", direct.href], ["entry", url.href], ["direct", direct.href]]) {
  const r = await autocannon({ url: u + "health", connections: 32, amount: 20000 });
  console.log(name, r.requests.average, r.latency.p50, r.latency.p99);
}
await mf.dispose();
