/**
 * `npm run load:tau-retail` against `npm start` (a temporary state directory, loopback only): the
 * dataset, the tool and its 16 definitions go in through the public API, and an attempt on the
 * loaded environment answers a τ-bench task's gold calls as τ-bench's own Python did (the committed
 * reference), ending with the order in the state τ-bench's final data holds. Loading again stores
 * no new dataset version (same content) and one more revision per operation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/core/json.js";
import { Overlay, operationNames, type ReferenceTask, readDataset, readReference } from "../support/tau-retail.js";
import { spawnScript } from "./run-script.js";

const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-tau-retail-"));
const SLOW = 300_000;

const dataset = readDataset();

/** The order as τ-bench's final data holds it: its record in dataset.json with the task's final diff applied. */
function finalOrder(task: ReferenceTask, orderId: string): JsonObject | undefined {
  const final = new Overlay(dataset);
  for (const operation of task.final_state.diff) final.apply(operation);
  return final.record("orders", orderId);
}

const reference = readReference("test");

let server: ReturnType<typeof spawnScript> | undefined;
let url = "";
let key = "";

beforeAll(async () => {
  server = spawnScript("start.ts", ["--port", "0", "--state-dir", stateDir]);
  const child = server;
  ({ url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /toolproof is running at (http:\/\/\S+)/.exec(output)?.[1];
      const demoKey = /demo key:\s+(tpk_\S+)/.exec(output)?.[1];
      if (found && demoKey && output.includes("Stop with Ctrl-C.")) resolve({ url: found, key: demoKey });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  }));
}, SLOW);

afterAll(async () => {
  if (server) {
    const exited = new Promise((resolve) => server?.on("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(stateDir, { recursive: true, force: true });
});

function load(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnScript("load-tau-retail.ts", [], { TOOLPROOF_URL: url, TOOLPROOF_KEY: key });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

async function api(method: string, route: string, token: string, body?: unknown) {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
}

const OPERATIONS = operationNames();

describe("npm run load:tau-retail", () => {
  it(
    "loads the dataset, the tool and one revision per operation, then again with the same dataset version",
    async () => {
      const first = await load();
      expect(first.code, first.stderr).toBe(0);
      const loaded = JSON.parse(first.stdout) as {
        dataset: unknown;
        tool: { id: string; name: string };
        revisions: Record<string, number>;
      };
      expect(loaded).toEqual({
        dataset: { name: "retail", version: 1 },
        tool: { id: expect.any(String), name: "retail" },
        revisions: Object.fromEntries(OPERATIONS.map((op) => [op, 1])),
      });

      const again = await load();
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({
        dataset: { name: "retail", version: 1 },
        tool: loaded.tool,
        revisions: Object.fromEntries(OPERATIONS.map((op) => [op, 2])),
      });
    },
    SLOW,
  );

  it(
    "answers a τ-bench task's gold calls as τ-bench did, and ends in τ-bench's final state",
    async () => {
      // Task 0 of the test split: look-ups, then an exchange of two delivered items (a write).
      const task = reference.tasks.find((t) => t.index === 0);
      if (!task) throw new Error("test task 0 is missing from the reference");
      const tools = await api("GET", "/api/tools", key);
      const retail = (tools.body as { items: Array<{ id: string; name: string }> }).items.find(
        (tool) => tool.name === "retail",
      );
      if (!retail) throw new Error("the retail tool was not loaded");
      const simulation = await api("POST", "/api/simulations", key, {
        tools: [{ tool_id: retail.id }],
        attempts: 1,
        lease_seconds: 600,
      });
      expect(simulation.status).toBe(201);
      const attempt = (simulation.body as { attempts: Array<{ id: string; token: string }> }).attempts[0];
      if (!attempt) throw new Error("no attempt was created");

      const answers: unknown[] = [];
      for (const call of task.calls) {
        const answer = await api("POST", `/api/attempts/${attempt.id}/dispatch`, attempt.token, {
          tool: "retail",
          operation_id: call.name,
          arguments: call.arguments,
        });
        expect(answer.status).toBe(200);
        answers.push(answer.body);
      }
      expect(answers).toEqual(task.calls.map((call) => ("json" in call.output ? call.output.json : call.output.text)));

      const orderId = String(
        task.calls.find((call) => call.name === "exchange_delivered_order_items")?.arguments.order_id,
      );
      const order = await api(
        "GET",
        `/api/attempts/${attempt.id}/state?tool=retail&pointer=${encodeURIComponent(`/orders/${orderId}`)}`,
        attempt.token,
      );
      expect(order).toEqual({
        status: 200,
        body: {
          attempt_id: attempt.id,
          tool: "retail",
          pointer: `/orders/${orderId}`,
          value: finalOrder(task, orderId),
        },
      });
    },
    SLOW,
  );
});
