/**
 * Which expression language the v2 mock definition uses: the four candidates of issue 21
 * measured on τ-bench-shaped retail computations (500 users, 1,000 orders), in Node and in
 * workerd. docs/mock-definition.md ("Choosing the expression language") holds a run's table.
 *
 *   npm run bench:expressions [-- --iterations 400]   (200 is the default; more runs longer)
 *
 * Columns: minified and gzipped bundle size of the library alone (esbuild), microseconds per
 * evaluation in Node and in workerd for each computation (compiled once, evaluated for about
 * 100 ms, the fastest of three runs),
 * whether it runs in workerd at all (which refuses eval and new Function), and what the library
 * says for a missing key and a syntax error. Numbers only: never a test.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { createMiniflare } from "../local/miniflare.js";
import { positiveFlag } from "./flags.js";
import {
  CANDIDATES,
  COMPUTATIONS,
  expectedAnswers,
  probeCandidates,
  repeatComputation,
  retailContext,
  sameAnswer,
  type Computation,
} from "./support/expression-candidates.js";

const ITERATIONS = positiveFlag("iterations", 200, true);
const here = path.dirname(fileURLToPath(import.meta.url));

async function bundleBytes(module: string): Promise<{ minified: number; gzipped: number }> {
  const result = await build({
    stdin: {
      contents: `import * as library from ${JSON.stringify(module)}; globalThis.library = library;`,
      resolveDir: here,
      loader: "js",
    },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    write: false,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { minified: code.byteLength, gzipped: gzipSync(code).byteLength };
}

function microsPerCall(totalMs: number, iterations: number): string {
  return ((totalMs * 1000) / iterations).toFixed(1);
}

/**
 * Evaluations per measurement for each candidate and computation: enough for about 100 ms in
 * Node (at least 10, at most 20,000), so fast and slow libraries are both timed above the noise.
 * `--iterations` scales it.
 */
async function calibrate(): Promise<Map<string, number>> {
  const context = retailContext();
  const counts = new Map<string, number>();
  for (const candidate of CANDIDATES) {
    for (const computation of COMPUTATIONS) {
      const start = performance.now();
      await repeatComputation(candidate.name, computation, 10, context);
      const perCall = Math.max((performance.now() - start) / 10, 0.0005);
      const count = Math.round(Math.min(20000, Math.max(10, 100 / perCall)) * (ITERATIONS / 200));
      counts.set(`${candidate.name} ${computation}`, Math.max(10, count));
    }
  }
  return counts;
}

/** The fastest of three timed runs: the others only add the machine's noise. */
async function fastest(times: number, run: () => Promise<number>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i++) best = Math.min(best, await run());
  return best;
}

async function nodeTimings(counts: Map<string, number>): Promise<Map<string, string>> {
  const context = retailContext();
  const out = new Map<string, string>();
  for (const candidate of CANDIDATES) {
    for (const computation of COMPUTATIONS) {
      const key = `${candidate.name} ${computation}`;
      const n = counts.get(key) ?? 10;
      const ms = await fastest(3, async () => {
        const start = performance.now();
        await repeatComputation(candidate.name, computation, n, context);
        return performance.now() - start;
      });
      out.set(key, microsPerCall(ms, n));
    }
  }
  return out;
}

/**
 * The same computations inside workerd. Time does not advance inside a Worker while it computes,
 * so each is timed from here: a request running N evaluations minus one running none.
 */
async function workerdTimings(
  counts: Map<string, number>,
): Promise<{ timings: Map<string, string>; runs: Map<string, string>; codegen: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "toolproof-expr-"));
  const entry = path.join(dir, "worker.ts");
  await writeFile(
    entry,
    `import { repeatComputation, retailContext, expectedAnswers, sameAnswer, CANDIDATES, COMPUTATIONS } from ${JSON.stringify(path.join(here, "support/expression-candidates.ts"))};
const context = retailContext();
const expected = expectedAnswers(context);
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/codegen") {
      try { new Function("return 1"); return new Response("new Function allowed"); }
      catch (error) { return new Response("new Function refused: " + error.message); }
    }
    if (url.pathname === "/check") {
      const answers = {};
      for (const candidate of CANDIDATES) {
        try {
          const wrong = [];
          for (const computation of COMPUTATIONS) {
            const value = await repeatComputation(candidate.name, computation, 1, context);
            if (!sameAnswer(expected[computation], value)) wrong.push(computation);
          }
          answers[candidate.name] = wrong.length === 0 ? "runs, all answers right" : "wrong answers: " + wrong.join(", ");
        } catch (error) { answers[candidate.name] = "fails: " + error.message; }
      }
      return Response.json(answers);
    }
    const n = Number(url.searchParams.get("n"));
    await repeatComputation(url.searchParams.get("candidate"), url.searchParams.get("computation"), n, context);
    return new Response("ok");
  },
};`,
  );
  const bundled = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    write: false,
    logLevel: "silent",
  });
  const miniflare = createMiniflare({
    name: "expressions",
    modules: true,
    script: bundled.outputFiles[0]?.text ?? "",
    compatibilityDate: "2026-10-01",
    unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
    port: 0,
  });
  const timings = new Map<string, string>();
  const runs = new Map<string, string>();
  try {
    await miniflare.ready;
    const url = (await miniflare.unsafeGetDirectURL("expressions")).href.replace(/\/$/, "");
    const codegen = await (await fetch(`${url}/codegen`)).text();
    const checked = (await (await fetch(`${url}/check`)).json()) as Record<string, string>;
    for (const [name, verdict] of Object.entries(checked)) runs.set(name, verdict);
    const timed = async (name: string, computation: Computation, n: number): Promise<number> => {
      const start = performance.now();
      const response = await fetch(`${url}/?candidate=${encodeURIComponent(name)}&computation=${computation}&n=${n}`);
      await response.text();
      return performance.now() - start;
    };
    for (const candidate of CANDIDATES) {
      if (!runs.get(candidate.name)?.startsWith("runs")) continue;
      for (const computation of COMPUTATIONS) {
        const n = counts.get(`${candidate.name} ${computation}`) ?? 10;
        await timed(candidate.name, computation, n); // warm-up
        const empty = await fastest(3, () => timed(candidate.name, computation, 0));
        const full = await fastest(3, () => timed(candidate.name, computation, n));
        timings.set(`${candidate.name} ${computation}`, microsPerCall(Math.max(0, full - empty), n));
      }
    }
    return { timings, runs, codegen };
  } finally {
    await miniflare.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

const context = retailContext();
const expected = expectedAnswers(context);
for (const candidate of CANDIDATES) {
  for (const computation of COMPUTATIONS) {
    const value = await repeatComputation(candidate.name, computation, 1, context);
    if (!sameAnswer(expected[computation], value))
      throw new Error(`${candidate.name} answers ${computation} wrongly: ${JSON.stringify(value)}`);
  }
}

const sizes = new Map<string, { minified: number; gzipped: number }>();
for (const candidate of CANDIDATES) sizes.set(candidate.name, await bundleBytes(candidate.module));
const counts = await calibrate();
const node = await nodeTimings(counts);
const workerd = await workerdTimings(counts);
const probes = await probeCandidates();

console.log(
  "expression languages on retail-shaped data (500 users, 1,000 orders): µs per evaluation, the fastest of 3 runs of about 100 ms each",
);
console.log(`workerd code generation check: ${workerd.codegen}`);
console.log("");
console.log(
  "| library | min / gzip KB | in workerd | find user by email (Node / workerd µs) | sum of prices | filter items by ids | additions needed |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const candidate of CANDIDATES) {
  const size = sizes.get(candidate.name);
  const cell = (computation: Computation): string =>
    `${node.get(`${candidate.name} ${computation}`) ?? "–"} / ${workerd.timings.get(`${candidate.name} ${computation}`) ?? "–"}`;
  console.log(
    `| ${candidate.name} ${candidate.version} | ${((size?.minified ?? 0) / 1024).toFixed(1)} / ${((size?.gzipped ?? 0) / 1024).toFixed(1)} | ${workerd.runs.get(candidate.name) ?? "not run"} | ${cell("find_user_by_email")} | ${cell("sum_item_prices")} | ${cell("filter_items_by_ids")} | ${candidate.additions} |`,
  );
}
console.log("");
console.log("| library | bounding | a missing key | a syntax error |");
console.log("| --- | --- | --- | --- |");
for (const candidate of CANDIDATES) {
  const probe = probes.find((p) => p.name === candidate.name);
  console.log(
    `| ${candidate.name} | ${candidate.bounding} | ${probe?.missing_key ?? ""} | ${probe?.syntax_error ?? ""} |`,
  );
}
