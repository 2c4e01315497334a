/**
 * Which expression language the v2 mock definition uses: the four candidates of issue 21
 * measured on τ-bench-shaped retail computations (500 users, 1,000 orders), in Node and in
 * workerd. docs/mock-definition.md ("Choosing the expression language") holds a run's table.
 *
 *   npm run bench:expressions [-- --iterations 200]
 *
 * Columns: minified and gzipped bundle size of the library alone (esbuild), microseconds per
 * evaluation in Node and in workerd for each computation (compiled once, evaluated many times),
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
    stdin: { contents: `import * as library from ${JSON.stringify(module)}; globalThis.library = library;`, resolveDir: here, loader: "js" },
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

async function nodeTimings(): Promise<Map<string, string>> {
  const context = retailContext();
  const out = new Map<string, string>();
  for (const candidate of CANDIDATES) {
    for (const computation of COMPUTATIONS) {
      await repeatComputation(candidate.name, computation, Math.min(ITERATIONS, 200), context); // warm-up
      const start = performance.now();
      await repeatComputation(candidate.name, computation, ITERATIONS, context);
      out.set(`${candidate.name} ${computation}`, microsPerCall(performance.now() - start, ITERATIONS));
    }
  }
  return out;
}

/**
 * The same computations inside workerd. Time does not advance inside a Worker while it computes,
 * so each is timed from here: a request running N evaluations minus one running none.
 */
async function workerdTimings(): Promise<{ timings: Map<string, string>; runs: Map<string, string>; codegen: string }> {
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
  const bundled = await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", mainFields: ["module", "main"], write: false, logLevel: "silent" });
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
        await timed(candidate.name, computation, Math.min(ITERATIONS, 200)); // warm-up
        const empty = await timed(candidate.name, computation, 0);
        const full = await timed(candidate.name, computation, ITERATIONS);
        timings.set(`${candidate.name} ${computation}`, microsPerCall(Math.max(0, full - empty), ITERATIONS));
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
    if (!sameAnswer(expected[computation], value)) throw new Error(`${candidate.name} answers ${computation} wrongly: ${JSON.stringify(value)}`);
  }
}

const sizes = new Map<string, { minified: number; gzipped: number }>();
for (const candidate of CANDIDATES) sizes.set(candidate.name, await bundleBytes(candidate.module));
const node = await nodeTimings();
const workerd = await workerdTimings();
const probes = await probeCandidates();

console.log(`expression languages on retail-shaped data (500 users, 1,000 orders), ${ITERATIONS} evaluations each, µs per evaluation`);
console.log(`workerd code generation check: ${workerd.codegen}`);
console.log("");
console.log("| library | min / gzip KB | in workerd | find user by email (Node / workerd µs) | sum of prices | filter items by ids | additions needed |");
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
  console.log(`| ${candidate.name} | ${candidate.bounding} | ${probe?.missing_key ?? ""} | ${probe?.syntax_error ?? ""} |`);
}
