/**
 * `npm run load:tau-retail` against `npm start` (a temporary state directory, loopback only): the
 * dataset, the tool and its 16 definitions go in through the public API, and an attempt on the
 * loaded environment answers a τ-bench task's gold calls as τ-bench's own Python did (the committed
 * reference), ending with the order in the state τ-bench's final data holds. Loading again stores
 * no new dataset version (same content) and one more revision per operation.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, spawnScript } from "./run-script.js";

const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-tau-retail-"));
const SLOW = 300_000;

interface ReferenceCall {
  name: string;
  arguments: Record<string, unknown>;
  output: { json: unknown } | { text: string };
}
interface ReferenceTask {
  index: number;
  calls: ReferenceCall[];
  /** τ-bench's final data, as JSON Patch operations over dataset.json. */
  final_state: { diff: Array<{ op: "add" | "replace" | "remove"; path: string; value?: unknown }> };
}

const dataset = JSON.parse(readFileSync(path.join(ROOT, "examples/environments/tau-retail/dataset.json"), "utf8")) as {
  orders: Record<string, Record<string, unknown>>;
};

/** The order as τ-bench's final data holds it: its fields in dataset.json with the task's patch applied. */
function finalOrder(task: ReferenceTask, orderId: string): Record<string, unknown> {
  const order = { ...dataset.orders[orderId] };
  for (const operation of task.final_state.diff) {
    const [collection, id, field, ...deeper] = operation.path.slice(1).split("/");
    if (collection !== "orders" || id !== orderId) continue;
    // The reference's patches for this task set whole fields of the order; anything deeper would need a full JSON Patch.
    if (field === undefined || deeper.length > 0) throw new Error(`unexpected patch path ${operation.path}`);
    if (operation.op === "remove") delete order[field];
    else order[field] = operation.value;
  }
  return order;
}

const reference = JSON.parse(
  readFileSync(path.join(ROOT, "examples/environments/tau-retail/reference/test.json"), "utf8"),
) as { tasks: ReferenceTask[] };

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

const OPERATIONS = [
  "calculate",
  "cancel_pending_order",
  "exchange_delivered_order_items",
  "find_user_id_by_email",
  "find_user_id_by_name_zip",
  "get_order_details",
  "get_product_details",
  "get_user_details",
  "list_all_product_types",
  "modify_pending_order_address",
  "modify_pending_order_items",
  "modify_pending_order_payment",
  "modify_user_address",
  "return_delivered_order_items",
  "think",
  "transfer_to_human_agents",
];

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
