/**
 * The runtime's floor under `npm run bench:conversations`: the same conversations (τ-bench
 * retail's test split, each with as many model answers one after another as the gold agent's
 * script gives it), the same model latency and concurrency, run by a Worker with no toolproof code
 * that makes only the model requests and one Durable Object write per tool call
 * (support/conversation-floor-worker.ts). Its wall time against the same ideal is the least that
 * design can reach on the local runtime; what toolproof adds is the difference.
 *
 * `--structure toolproof` adds every hop and durable write toolproof's design makes per
 * repetition (the claim and record at a run object, a new attempt object set up with the shared
 * setup text, its D1 row, the evidence and state read back, a gold replay per task, the release
 * copying the evidence to D1), still with no toolproof code: it splits what toolproof adds into
 * what its design's structure costs and what its code costs.
 *
 *   npm run bench:conversation-floor
 *   npm run bench:conversation-floor -- --structure toolproof
 *   npm run bench:conversation-floor -- --latency 200 --concurrency 32 --runs 3 --jitter 0.5 --request-bytes 12000 --state-parent /dev/shm
 *
 * Numbers only, never a test.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type GoldScenario, sequentialAnswers } from "../../test/support/model-server/gold-agent.js";
import { startModelServer } from "../../test/support/model-server/server.js";
import { DEFAULT_IMPORT_OPTIONS, type ReferenceSplit, retailSuite } from "../tau-bench/retail-suite.js";
import { field } from "../local/narrow.js";
import { listFlag, positiveFlag, stringFlag } from "./flags.js";
import {
  type FloorStructure,
  STRUCTURE_PARTS,
  type StructurePart,
  startConversationFloor,
} from "./support/conversation-floor-worker.js";
import { jitteredWait } from "./support/jittered-wait.js";
import { busyLine, busyPerAnswer, runtimeThreadBusyMs } from "./support/thread-busy.js";

const RUNS = positiveFlag("runs", 3, true);
const LATENCY_MS = positiveFlag("latency", 200, true);
const CONCURRENCY = positiveFlag("concurrency", 32, true);
const JITTER = positiveFlag("jitter", 0);
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
/** The mean request body toolproof sends in bench:conversations (the retail tools and the conversation so far): 11.9 KB. */
const REQUEST_BYTES = positiveFlag("request-bytes", 12_000, true);
const STRUCTURE = structureFlag();
const WITHOUT = withoutFlag();
/** The shared setup text each τ-bench retail attempt stores (its operations and tools, checked examples left out): about 53 KB. */
const SETUP_BYTES = positiveFlag("setup-bytes", 53_000, true);
/** A repetition's record as the run object stores it (its calls, grading and usage), in bytes. */
const RECORD_BYTES = positiveFlag("record-bytes", 4_000, true);
const MODEL = "conversation-floor";
const REFERENCE = path.join(import.meta.dirname, "../../examples/environments/tau-retail/reference/test.json");

/** A chat request of about `bytes` bytes of JSON: a system and a user message and function tools, each with a few parameters. */
function requestOfSize(bytes: number): Record<string, unknown> {
  const tool = (n: number) => ({
    type: "function",
    function: {
      name: `tool_${n}`,
      description: "Look a record up by its id and return it whole, or an error when there is none.",
      parameters: {
        type: "object",
        properties: { id: { type: "string", description: "The record's id, such as '#W0000000'." } },
        required: ["id"],
      },
    },
  });
  const request = {
    model: MODEL,
    messages: [
      { role: "system", content: "You are a support agent." },
      { role: "user", content: "Please help me with my order." },
    ],
    tools: [] as unknown[],
  };
  while (JSON.stringify(request).length < bytes) request.tools.push(tool(request.tools.length));
  return request;
}

function structureFlag(): FloorStructure {
  const value = stringFlag("structure") ?? "calls";
  if (value !== "calls" && value !== "toolproof")
    throw new Error(`--structure must be "calls" or "toolproof", got ${JSON.stringify(value)}`);
  return value;
}

/** `--without run,gold`: parts of toolproof's structure left out (support/conversation-floor-worker.ts lists them). */
function withoutFlag(): StructurePart[] {
  const parts = listFlag("without", STRUCTURE_PARTS);
  if (parts.length > 0 && STRUCTURE !== "toolproof") throw new Error("--without needs --structure toolproof");
  return parts;
}

/** JSON text of about `bytes` bytes, shaped like definitions (names, descriptions, schemas). */
function textOfSize(bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let n = 0; length < bytes; n++) {
    const part = JSON.stringify({
      operation_id: `operation_${n}`,
      description: "Finds the record by its id and answers it whole, or an error naming the id.",
      input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    });
    parts.push(part);
    length += part.length + 1;
  }
  return `[${parts.join(",")}]`;
}

/**
 * The structure's run must have left what toolproof's would: every attempt released (one per
 * conversation and one gold replay per task) and every tool call's evidence copied to D1. A run
 * that leaves out the copy leaves nothing there to count, and one without the D1 row no row to mark released.
 */
function checkStructure(reply: unknown, answers: readonly number[], chains: readonly number[]): void {
  const toolCalls = (chain: number) => chain - 3;
  const copies = !WITHOUT.includes("evidence-copy");
  const golds = WITHOUT.includes("gold") ? [] : chains;
  const attempts = copies && !WITHOUT.includes("attempt-row") ? answers.length + golds.length : 0;
  const calls = copies
    ? answers.reduce((sum, n) => sum + toolCalls(n), 0) + golds.reduce((sum, n) => sum + toolCalls(n), 0)
    : 0;
  const released = field(reply, "released_attempts");
  const copied = field(reply, "copied_calls");
  if (released !== attempts || copied !== calls)
    throw new Error(
      `expected ${attempts} released attempts and ${calls} copied calls in D1, the floor left ${String(released)} and ${String(copied)}`,
    );
}

async function main(): Promise<void> {
  if (JITTER >= 1) throw new Error(`--jitter must be at least 0 and below 1, got ${JITTER}`);
  const reference = JSON.parse(readFileSync(REFERENCE, "utf8")) as ReferenceSplit;
  const suite = retailSuite([reference], DEFAULT_IMPORT_OPTIONS) as {
    agent: { max_iterations: number };
    scenarios: GoldScenario[];
  };
  const chains = suite.scenarios.map((scenario) => sequentialAnswers(scenario, suite.agent.max_iterations));
  const answers = Array.from({ length: RUNS }, () => chains).flat();
  const expected = answers.reduce((sum, n) => sum + n, 0);

  // The model server bench:conversations uses, answering every request with one short message.
  const model = await startModelServer({ logLimit: 10, ...(JITTER > 0 ? { wait: jitteredWait(JITTER) } : {}) });
  model.script(MODEL, { latency_ms: LATENCY_MS, default: [{ content: "ok" }] });
  const floor = await startConversationFloor(STATE_PARENT, STRUCTURE);
  try {
    const busyBefore = await runtimeThreadBusyMs();
    const started = performance.now();
    const response = await fetch(floor.url, {
      method: "POST",
      body: JSON.stringify({
        answers,
        concurrency: CONCURRENCY,
        model: `${model.url}/v1/chat/completions`,
        body: requestOfSize(REQUEST_BYTES),
        tasks: chains.length,
        shared: textOfSize(SETUP_BYTES),
        record: textOfSize(RECORD_BYTES),
        without: WITHOUT,
      }),
    });
    const body = await response.text();
    const wall = performance.now() - started;
    const busy = busyPerAnswer(busyBefore, await runtimeThreadBusyMs(), expected);
    if (!response.ok) throw new Error(`the floor Worker answered ${response.status}: ${body.slice(0, 500)}`);
    const answered = model.stats().requests_total;
    if (answered !== expected) throw new Error(`expected ${expected} model answers, the model answered ${answered}`);
    if (STRUCTURE === "toolproof") checkStructure(JSON.parse(body) as unknown, answers, chains);
    const ideal = Math.max((expected * LATENCY_MS) / CONCURRENCY, Math.max(...chains) * LATENCY_MS);
    console.log(
      `conversation floor (local Workers runtime, no toolproof code, ${STRUCTURE === "calls" ? "model requests and tool calls only" : `toolproof's per-repetition structure${WITHOUT.length > 0 ? ` without ${WITHOUT.join(", ")}` : ""}`}; state under ${STATE_PARENT}): ${answers.length} conversations, ${expected} model answers after ${JITTER > 0 ? `${LATENCY_MS} ms on average (jitter ${JITTER})` : `${LATENCY_MS} ms`}, ${expected - answers.length * 3} tool calls, requests of ${REQUEST_BYTES} bytes, concurrency ${CONCURRENCY}`,
    );
    console.log(
      `  wall ${(wall / 1000).toFixed(2)} s, ideal ${(ideal / 1000).toFixed(2)} s, wall / ideal ${(wall / ideal).toFixed(2)} (load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(", ")})`,
    );
    if (busy !== null) console.log(busyLine(busy));
  } finally {
    await floor.stop();
    await model.close();
  }
}

await main();
