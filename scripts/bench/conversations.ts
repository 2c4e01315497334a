/**
 * Benchmark of conversation runs on the local Workers runtime (the code `npm start` runs), loopback only.
 *
 *   npm run bench:conversations
 *   npm run bench:conversations -- --runs 3 --latency 200 --concurrency 32 --json
 *   npm run bench:conversations -- --profile /tmp/conversations.cpuprofile   # where the Worker's time goes
 *   npm run bench:conversations -- --jitter 0.5   # answers after 100 to 300 ms, 200 on average
 *
 * τ-bench's retail test split (115 tasks) as `npm run import:tau-retail -- --split test` writes it,
 * against the retail environment as `npm run load:tau-retail` loads it, `--runs` repetitions per
 * task (default 3: 345 conversations) in one run. Both models are scripted on the local model
 * server and answer every request after `--latency` ms (test/support/model-server/gold-agent.ts):
 * the user model says the task's instruction, the agent makes the task's gold calls in order and
 * answers, the user model thanks it and stops. Each repetition is graded by its end state (the
 * gold calls replayed on a fresh attempt, once per task and shared by its repetitions), so every
 * one must pass.
 *
 * The ideal, for the configured concurrency C (`EVAL_BATCH_CONCURRENCY`, `--concurrency`; both
 * connections allow more): a repetition waits for its model answers one after another (the user's
 * opening, each agent answer, the user's closing message), so it takes at least that many answers
 * × the latency; C repetitions run at once, so the whole run takes at least the sum of that over
 * every repetition divided by C, and never less than the longest repetition's chain. Everything
 * toolproof does besides waiting for models (queue delivery, setting up attempts over the stored
 * dataset, the calls, replaying the gold calls, grading, recording) is what the wall time adds.
 *
 * With `--jitter f` each answer waits the latency × a factor drawn evenly from [1 − f, 1 + f]
 * (fixed seed, so runs draw the same sequence): the mean, and so the ideal, is unchanged. Without
 * it every answer takes exactly the latency, which keeps conversations that start together in
 * step, their answers arriving at the runtime's one thread in bursts (docs/evals.md, "Conversations
 * at scale"); real models' answer times vary.
 *
 * Beside the wall time it prints how long the runtime's one thread was busy over the run, per model
 * answer (support/thread-busy.ts): the run's whole work, which the wall time mixes with waiting.
 *
 * The run must end with verdict `pass`, every repetition recorded and every scripted answer asked
 * for exactly once, or the benchmark fails: a fast wrong answer is not a result. Numbers only,
 * never a test.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  goldAgentScript,
  type GoldScenario,
  instructedUserScript,
  sequentialAnswers,
} from "../../test/support/model-server/gold-agent.js";
import { startModelServer } from "../../test/support/model-server/server.js";
import { startToolproof } from "../local-server.js";
import { field } from "../local/narrow.js";
import { loadTauRetail } from "../load-tau-retail.js";
import { DEFAULT_IMPORT_OPTIONS, type ReferenceSplit, retailSuite } from "../tau-bench/retail-suite.js";
import { positiveFlag, stringFlag } from "./flags.js";
import { type ProfileSummary, profileWhile } from "./support/cpu-profile.js";
import { freePort } from "./support/free-port.js";
import { jitteredWait } from "./support/jittered-wait.js";
import { busyLine, busyPerAnswer, runtimeThreadBusyMs } from "./support/thread-busy.js";
import { api, runBenchmark, waitForRun } from "./support/toolproof-api.js";

const RUNS = positiveFlag("runs", 3, true);
const LATENCY_MS = positiveFlag("latency", 200, true);
const CONCURRENCY = positiveFlag("concurrency", 32, true);
const JITTER = positiveFlag("jitter", 0);
const AS_JSON = process.argv.includes("--json");
/** Profile toolproof's isolate during the run (V8 inspector) and write the .cpuprofile here; the top functions are printed. */
const PROFILE = stringFlag("profile");
const REFERENCE = path.join(import.meta.dirname, "../../examples/environments/tau-retail/reference/test.json");
const SUITE = "tau-retail-test-bench";
/**
 * How often the benchmark asks whether the run has ended. The run's view is not free (it carries
 * every pinned operation of 115 scenarios): read every 100 ms it cost the Worker's one thread about
 * a tenth of its time, which the benchmark would have counted against toolproof. So it is read
 * rarely, and the end is timed by the run's own `finished_at` (the same machine's clock), not by
 * when a poll happened to see it.
 */
const POLL_MS = 1_000;
/** Connections allow more calls in flight than the consumer runs repetitions, so only the consumer's concurrency paces the run. */
const CONNECTION_CONCURRENCY = 64;

async function main(): Promise<void> {
  if (JITTER >= 1) throw new Error(`--jitter must be at least 0 and below 1, got ${JITTER}`);
  const model = await startModelServer({ logLimit: 10, ...(JITTER > 0 ? { wait: jitteredWait(JITTER) } : {}) });
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "toolproof-bench-conversations-"));
  const inspectorPort = PROFILE === undefined ? undefined : await freePort();
  const server = await startToolproof({
    port: 0,
    stateDir,
    quiet: true,
    vars: { EVAL_BATCH_CONCURRENCY: String(CONCURRENCY) },
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
  });
  try {
    const loaded = await loadTauRetail(server.url, server.demoKey);
    const reference = JSON.parse(readFileSync(REFERENCE, "utf8")) as ReferenceSplit;
    const suite = retailSuite([reference], {
      ...DEFAULT_IMPORT_OPTIONS,
      dataset_version: loaded.dataset.version,
      runs_per_scenario: RUNS,
    }) as Record<string, unknown> & { agent: { max_iterations: number }; scenarios: GoldScenario[] };
    const maxIterations = suite.agent.max_iterations;
    const agentModel = "tau-retail-gold-agent";
    const userModel = "tau-retail-instructed-user";
    model.script(
      agentModel,
      goldAgentScript(suite.scenarios, { max_iterations: maxIterations, latency_ms: LATENCY_MS }),
    );
    model.script(userModel, instructedUserScript(suite.scenarios, { latency_ms: LATENCY_MS }));
    for (const [name, modelName] of [
      [DEFAULT_IMPORT_OPTIONS.agent_connection, agentModel],
      [DEFAULT_IMPORT_OPTIONS.user_model, userModel],
    ] as const) {
      const connection = {
        base_url: `${model.url}/v1`,
        model: modelName,
        api_key: "bench",
        max_concurrency: CONNECTION_CONCURRENCY,
      };
      await api(server, "PUT", `/api/connections/${name}`, JSON.stringify(connection));
    }
    await api(server, "PUT", `/api/suites/${SUITE}`, JSON.stringify(suite));

    const chains = suite.scenarios.map((scenario) => sequentialAnswers(scenario, maxIterations));
    const answersPerRepetitionSet = chains.reduce((sum, n) => sum + n, 0);
    const expectedAnswers = answersPerRepetitionSet * RUNS;
    const repetitions = suite.scenarios.length * RUNS;

    model.resetStats();
    const busyBefore = await runtimeThreadBusyMs();
    const started = Date.now();
    const run = await api(server, "POST", `/api/suites/${SUITE}/runs`, JSON.stringify({ label: "bench" }));
    const id = field(run, "id");
    if (typeof id !== "string") throw new Error(`the run answered no id: ${JSON.stringify(run)}`);
    let view: unknown;
    let profile: ProfileSummary | null = null;
    const wait = async () => {
      view = await waitForRun(server, id, POLL_MS);
    };
    if (inspectorPort === undefined || PROFILE === undefined) await wait();
    else profile = await profileWhile(inspectorPort, "toolproof", wait, PROFILE);
    const busyAfter = await runtimeThreadBusyMs();
    const stats = model.stats();
    const answeringMs = model.answeringMs();
    const finishedAt = Date.parse(String(field(view, "finished_at")));
    if (!Number.isFinite(finishedAt) || finishedAt < started)
      throw new Error(
        `the run's finished_at is not a time after its start: ${JSON.stringify(field(view, "finished_at"))}`,
      );
    const wall = finishedAt - started;

    const verdict = String(field(view, "verdict"));
    if (field(view, "status") !== "finished" || verdict !== "pass" || field(view, "passed") !== repetitions) {
      throw new Error(
        `the run ended ${String(field(view, "status"))} with verdict ${verdict}, ${String(field(view, "passed"))} of ${repetitions} passed: ${JSON.stringify(view).slice(0, 2000)}`,
      );
    }
    if (stats.requests_total !== expectedAnswers)
      throw new Error(`expected ${expectedAnswers} model answers, the model server answered ${stats.requests_total}`);

    const longest = Math.max(...chains) * LATENCY_MS;
    const ideal = Math.max((expectedAnswers * LATENCY_MS) / CONCURRENCY, longest);
    const result = {
      tasks: suite.scenarios.length,
      runs_per_task: RUNS,
      repetitions,
      latency_ms: LATENCY_MS,
      jitter: JITTER,
      concurrency: CONCURRENCY,
      model_answers: stats.requests_total,
      sequential_answers_per_repetition: {
        mean: Math.round((answersPerRepetitionSet / suite.scenarios.length) * 100) / 100,
        min: Math.min(...chains),
        max: Math.max(...chains),
      },
      max_in_flight: stats.max_in_flight,
      /**
       * Model requests being answered at once, on average over the run: at the ideal every slot
       * waits on a model all the time (the concurrency); what is missing is slots doing
       * toolproof's work, or waiting for the runtime's one thread to do it.
       */
      mean_in_flight: Math.round((answeringMs / wall) * 10) / 10,
      wall_ms: Math.round(wall),
      ideal_ms: Math.round(ideal),
      ratio_to_ideal: Math.round((wall / ideal) * 100) / 100,
      repetitions_per_second: Math.round((repetitions / (wall / 1000)) * 10) / 10,
      /**
       * The runtime's one thread on a CPU from the run's start until the benchmark saw its end (up
       * to POLL_MS after it): all of the run's work, every isolate's, SQLite's and the runtime's.
       */
      runtime_thread: busyPerAnswer(busyBefore, busyAfter, stats.requests_total),
      load_average: os.loadavg().map((n) => Math.round(n * 100) / 100),
      ...(profile === null ? {} : { profile }),
    };
    if (AS_JSON) {
      console.log(JSON.stringify(result, null, 2));
      return;
    }
    const f = result;
    console.log(
      `conversation benchmark (local Workers runtime; τ-bench retail test split, scripted models answering after ${JITTER > 0 ? `${Math.round(LATENCY_MS * (1 - JITTER))} to ${Math.round(LATENCY_MS * (1 + JITTER))} ms, ${LATENCY_MS} on average` : `${LATENCY_MS} ms`})`,
    );
    console.log(
      `  ${f.tasks} tasks × ${f.runs_per_task} = ${f.repetitions} conversations in ${(f.wall_ms / 1000).toFixed(2)} s (${f.repetitions_per_second}/s), verdict ${verdict}`,
    );
    console.log(
      `  ${f.model_answers} model answers, ${f.sequential_answers_per_repetition.mean} per conversation one after another (${f.sequential_answers_per_repetition.min} to ${f.sequential_answers_per_repetition.max}); at most ${f.max_in_flight} in flight, ${f.mean_in_flight} on average`,
    );
    console.log(
      `  ideal at concurrency ${f.concurrency}: ${f.model_answers} × ${LATENCY_MS} ms / ${f.concurrency} = ${(f.ideal_ms / 1000).toFixed(2)} s; wall / ideal ${f.ratio_to_ideal} (load average ${f.load_average.join(", ")})`,
    );
    if (f.runtime_thread !== null) console.log(busyLine(f.runtime_thread));
    if (profile !== null) {
      console.log(`  toolproof's isolate was busy ${(profile.busy_ms / 1000).toFixed(2)} s; self time by function:`);
      for (const line of profile.top.slice(0, 20))
        console.log(
          `    ${(line.share * 100).toFixed(1).padStart(5)}%  ${line.self_ms.toFixed(0).padStart(6)} ms  ${line.what}`,
        );
    }
  } finally {
    await server.stop();
    await model.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

runBenchmark(main);
