/**
 * External agents end to end, through the real routes, the real queue and the run coordinator:
 * the job arrives signed at a local receiver the test runs (test/support/receiver), the test plays
 * the agent with the official MCP client against the job's mcp_url, completes the attempt, and the
 * run scores it as the built-in runner would. Also: timed_out at the deadline, completing twice,
 * bad completion bodies, an endpoint that refuses the job, and a forbidden call's hard fail.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { timestampFresh, verifyStandard } from "../../../src/adapters/webhook-signature.js";
import { receiver } from "../../support/receiver/in-tests.js";
import { answer, call, invalidAnswer } from "../helpers.js";
import { env } from "cloudflare:test";
import {
  EVAL_DEAD_LETTER_QUEUE_NAME,
  EVAL_QUEUE_NAME,
  sendRepetitions,
} from "../../../src/worker/runs/consumer/messages.js";
import { runStub } from "../../../src/worker/runs/coordinator/access.js";
import {
  GET,
  GOOD_JUDGE,
  HOLD,
  invoiceWorld,
  QUERIES,
  deliver,
  repetitions,
  server,
  startRun,
  startRunDirect,
  waitForRun,
  type InvoiceWorld,
} from "../run-helpers.js";
import { completionTooLarge, createSimulation, libraryTool } from "../simulation-helpers.js";
import { keepBlobDefinition, libraryBlobsTool } from "../../fixtures/blob-tools.js";

const jobs = receiver();
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

interface Job {
  status: number;
  headers: Record<string, string>;
  body: string;
  data: {
    run_id: string;
    scenario_id: string;
    repetition: number;
    repetition_seq: number;
    query: string;
    attempt_id: string;
    attempt_token: string;
    dispatch_url: string;
    mcp_url: string;
    complete_url: string;
    deadline: string;
    tools: Array<{ name: string; approval_mode: string }>;
  };
}

/** A world with an agent secret (generated) and an external-agent suite whose endpoint is this receiver. */
async function externalWorld(
  label: string,
  suite: Record<string, unknown> = {},
  agent: Record<string, unknown> = {},
  existing?: InvoiceWorld,
): Promise<{ world: InvoiceWorld; secret: string; endpoint: string; name: string }> {
  const world = existing ?? (await invoiceWorld(label));
  const name = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  await jobs.script(name, []);
  const put = await call("PUT", "/api/agent-secrets/jobs", { key: world.tenant.key, body: {} });
  // 201 for a new name, 200 where a world set up before already holds it (this PUT replaces it).
  expect([200, 201]).toContain(put.status);
  // SAFETY: the documented answer of PUT /api/agent-secrets/:name with a generated secret.
  const { secret } = (await put.json()) as { secret: string };
  const endpoint = jobs.urlOf(name);
  const saved = await call("PUT", "/api/suites/desk", {
    key: world.tenant.key,
    body: {
      agent: {
        kind: "external",
        endpoint,
        secret: "jobs",
        tools: [
          { tool_id: world.toolId, operation_id: "get_invoice", approval_mode: "never_require" },
          { tool_id: world.toolId, operation_id: "place_invoice_on_hold", approval_mode: "always_require" },
        ],
        ...agent,
      },
      scenarios: [
        { id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] },
        { id: "hold-request", query: QUERIES.hold, expect: HOLD, forbid: [] },
      ],
      runs_per_scenario: 1,
      judge: { connection: world.connection, threshold: 4 },
      ...suite,
    },
  });
  expect(saved.status).toBe(201);
  await server.script(world.model, { judge_default: GOOD_JUDGE });
  return { world, secret, endpoint, name };
}

async function receivedJobs(name: string, count: number, timeoutMs = 10_000): Promise<Job[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const requests = await jobs.requests(name);
    if (requests.length >= count) {
      // SAFETY: the job body is the JSON the consumer built (external/job.ts jobPayload).
      return requests.map((r) => ({
        status: r.status,
        headers: r.headers,
        body: r.body,
        data: (JSON.parse(r.body) as { data: Job["data"] }).data,
      }));
    }
    if (Date.now() > until) throw new Error(`receiver ${name} got ${requests.length} of ${count} jobs`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function mcpClient(job: Job): Promise<Client> {
  const client = new Client(
    { name: "external-agent-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(new URL(job.data.mcp_url), {
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    requestInit: { headers: { authorization: `Bearer ${job.data.attempt_token}` } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

function complete(job: Pick<Job, "data">, body: unknown, token = job.data.attempt_token): Promise<Response> {
  return exports.default.fetch(
    new Request(job.data.complete_url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

const byScenario = (list: Job[], id: string): Job => {
  const found = list.find((job) => job.data.scenario_id === id);
  if (!found) throw new Error(`no job for ${id}`);
  return found;
};

describe("an external agent over MCP", () => {
  it("gets a signed job per repetition, calls the attempt through the official MCP client, completes it, and the run scores it with the judge", async () => {
    const { world, secret, name } = await externalWorld("ext-e2e");
    const run = await startRun(world, "desk");
    const received = await receivedJobs(name, 2);

    for (const job of received) {
      // The Standard Webhooks signature over id.timestamp.body, with the secret shown once.
      expect(
        await verifyStandard(
          secret,
          job.headers["webhook-id"] ?? "",
          job.headers["webhook-timestamp"] ?? "",
          new TextEncoder().encode(job.body),
          job.headers["webhook-signature"] ?? "",
        ),
      ).toBe(true);
      expect(
        await verifyStandard(
          `whsec_${btoa("another secret of 24 bytes!!")}`,
          job.headers["webhook-id"] ?? "",
          job.headers["webhook-timestamp"] ?? "",
          new TextEncoder().encode(job.body),
          job.headers["webhook-signature"] ?? "",
        ),
      ).toBe(false);
      expect(timestampFresh(job.headers["webhook-timestamp"] ?? "", Date.now())).toBe(true);
      expect(job.headers["webhook-id"]).toBe(`job_${run.id}_${job.data.repetition_seq}`);
    }
    const lookup = byScenario(received, "status-lookup");
    const base = `http://toolproof.test/api/attempts/${lookup.data.attempt_id}`;
    expect(lookup.data).toEqual({
      run_id: run.id,
      scenario_id: "status-lookup",
      repetition: 1,
      repetition_seq: 1,
      query: QUERIES.status,
      attempt_id: expect.stringMatching(/^att_/),
      attempt_token: expect.stringMatching(/^tpa_[A-Za-z0-9_-]{43}$/),
      dispatch_url: `${base}/dispatch`,
      mcp_url: `${base}/mcp`,
      complete_url: `${base}/complete`,
      deadline: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      tools: [
        { name: GET, approval_mode: "never_require" },
        { name: HOLD, approval_mode: "always_require" },
      ],
    });

    // The agent: lists the tools, looks the invoice up, answers.
    const client = await mcpClient(lookup);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([GET, HOLD]);
    const looked = await client.callTool({ name: GET, arguments: { invoice_id: "INV-10431" } });
    expect(looked.isError).toBeFalsy();
    const done = await complete(lookup, {
      output: "INV-10431 from Fabrikam Office is received.",
      messages: [
        { role: "user", content: QUERIES.status },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: GET, arguments: '{"invoice_id":"INV-10431"}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: JSON.stringify(looked.structuredContent ?? null) },
        { role: "assistant", content: "INV-10431 from Fabrikam Office is received." },
      ],
    });
    expect(done.status).toBe(202);
    // Without the attempt's token a bad body answers 401 too: the token is checked before the body.
    for (const body of [{}, { output: 1, approval_requests: "no" }])
      expect(await answer(await complete(lookup, body, `tpa_${"A".repeat(43)}`))).toEqual({
        status: 401,
        body: { error: { code: "unauthorized", message: "this token does not grant access to this attempt" } },
      });
    expect(await done.json()).toMatchObject({
      attempt_id: lookup.data.attempt_id,
      run_id: run.id,
      status: "scoring",
      completion: { output: "INV-10431 from Fabrikam Office is received.", approval_requests: [] },
    });

    // The hold: the agent pauses on the always_require tool and reports the approval request.
    const hold = byScenario(received, "hold-request");
    const held = await complete(hold, {
      output: "I have asked for approval to hold INV-10423.",
      approval_requests: [
        { name: HOLD, arguments: { invoice_id: "INV-10423", reason: "duplicate" }, call_id: "call-hold-1" },
      ],
    });
    expect(held.status).toBe(202);

    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({
      status: "finished",
      verdict: "pass",
      runs: 2,
      passed: 2,
      failed: 0,
      errors: 0,
      hard_fail: false,
    });
    const [first, second = {}] = await Promise.all(
      [1, 2].map((n) =>
        call("GET", `/api/runs/${run.id}/repetitions/${n}`, { key: world.tenant.key }).then(
          (r) => r.json() as Promise<Record<string, unknown>>,
        ),
      ),
    );
    expect(first).toMatchObject({
      stop_reason: "external_completion",
      final_answer: "INV-10431 from Fabrikam Office is received.",
      calls: [{ kind: "executed", function: GET, arguments: { invoice_id: "INV-10431" } }],
      approval_requests: [],
      verdict: { outcome: "pass", cause: "judge_score", score: 5, hard_fail: false },
      transcript: {
        messages: [{ role: "user" }, { role: "assistant" }, { role: "tool" }, { role: "assistant" }],
        turns: [],
      },
    });
    expect(second).toMatchObject({
      stop_reason: "external_completion",
      calls: [
        {
          kind: "approval_request",
          function: HOLD,
          arguments: { invoice_id: "INV-10423", reason: "duplicate" },
          call_id: "call-hold-1",
        },
      ],
      approval_requests: [
        { function: HOLD, arguments: { invoice_id: "INV-10423", reason: "duplicate" }, call_id: "call-hold-1" },
      ],
      verdict: { outcome: "pass", cause: "judge_score", score: 5 },
    });
    expect(
      (await server.log(world.model))
        .filter((r) => r.kind === "judge")
        .map((r) => r.query)
        .sort(),
    ).toEqual([QUERIES.hold, QUERIES.status].sort());

    // Completing twice: the first completion counts; the second is a 409 with what was recorded.
    const again = await complete(hold, { output: "something else", approval_requests: [] });
    const body = await again.json();
    expect({ status: again.status, body }).toEqual({
      status: 409,
      body: {
        error: {
          code: "already_completed",
          message: "this attempt has already been completed; the first completion is the one scored",
          details: {
            completion: {
              output: "I have asked for approval to hold INV-10423.",
              approval_requests: [
                { name: HOLD, arguments: { invoice_id: "INV-10423", reason: "duplicate" }, call_id: "call-hold-1" },
              ],
              completed_at: expect.stringMatching(/^\d{4}-/),
            },
            verdict: second.verdict,
          },
        },
      },
    });
  }, 30_000);
});

describe("scoring an external agent like the built-in runner", () => {
  it("a forbidden call made over MCP fails the run hard, with the same verdict a built-in repetition gets for it", async () => {
    const { world, name } = await externalWorld("ext-forbid", {
      scenarios: [{ id: "pay-refusal", query: QUERIES.pay, expect: null, forbid: [HOLD] }],
    });
    const run = await startRun(world, "desk");
    const [job] = await receivedJobs(name, 1);
    if (!job) throw new Error("no job");
    const client = await mcpClient(job);
    await client.callTool({ name: HOLD, arguments: { invoice_id: "INV-10423", reason: "disputed" } });
    expect((await complete(job, { output: "Put it on hold instead." })).status).toBe(202);
    const ended = await waitForRun(world, run.id);

    // The built-in runner, with a model making the same call on the same scenario.
    const builtin = await invoiceWorld("ext-forbid-builtin");
    await server.script(builtin.model, {
      conversations: {
        [QUERIES.pay]: [
          { tool_calls: [{ name: HOLD, arguments: { invoice_id: "INV-10423", reason: "disputed" } }] },
          { content: "Put it on hold instead." },
        ],
      },
    });
    const saved = await call("PUT", "/api/suites/desk", {
      key: builtin.tenant.key,
      body: {
        agent: {
          connection: builtin.connection,
          instructions: "Answer invoice questions.",
          tools: [
            { tool_id: builtin.toolId, operation_id: "get_invoice" },
            { tool_id: builtin.toolId, operation_id: "place_invoice_on_hold" },
          ],
        },
        scenarios: [{ id: "pay-refusal", query: QUERIES.pay, expect: null, forbid: [HOLD] }],
        runs_per_scenario: 1,
      },
    });
    expect(saved.status).toBe(201);
    const builtinEnded = await waitForRun(builtin, (await startRun(builtin, "desk")).id);

    const strip = (run: Record<string, unknown>) => ({
      verdict: run.verdict,
      hard_fail: run.hard_fail,
      passed: run.passed,
      failed: run.failed,
      forbidden_calls: run.forbidden_calls,
    });
    expect(strip(ended)).toEqual({ verdict: "fail", hard_fail: true, passed: 0, failed: 1, forbidden_calls: 1 });
    expect(strip(ended)).toEqual(strip(builtinEnded));
    const [ext] = await repetitions(world, run.id);
    const [own] = await repetitions(builtin, String(builtinEnded.id));
    // The same verdict; only the call id differs (the model's id for the built-in runner; an MCP call carries none).
    const withoutIds = (r: Record<string, unknown> | undefined) =>
      r
        ? {
            outcome: r.outcome,
            cause: r.cause,
            hard_fail: r.hard_fail,
            reason: String(r.reason).replace(/, call [^)]+\)/g, ")"),
          }
        : null;
    expect(withoutIds(ext)).toEqual(withoutIds(own));
    expect(ext).toMatchObject({ outcome: "fail", cause: "forbidden_call" });
  }, 30_000);
});

describe("timed_out", () => {
  it("a repetition whose agent never completes fails as timed_out at its deadline, and a late completion is refused", async () => {
    const { world, name } = await externalWorld(
      "ext-timeout",
      { scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }] },
      { timeout_seconds: 1 },
    );
    const run = await startRun(world, "desk");
    const [job] = await receivedJobs(name, 1);
    if (!job) throw new Error("no job");

    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({
      status: "finished",
      verdict: "fail",
      runs: 1,
      passed: 0,
      failed: 1,
      errors: 0,
      hard_fail: false,
    });
    const [only] = await repetitions(world, run.id);
    expect(only).toMatchObject({
      outcome: "fail",
      cause: "timed_out",
      reason: `Timed out: the agent did not complete its attempt by its deadline (${job.data.deadline})`,
    });

    const late = await complete(job, { output: "too late" });
    expect(await answer(late)).toEqual({
      status: 409,
      body: {
        error: {
          code: "repetition_timed_out",
          message: `the job's deadline passed before this completion; run ${run.id} recorded the repetition as timed_out`,
          details: {
            verdict: {
              outcome: "fail",
              pass: false,
              reason: only?.reason,
              cause: "timed_out",
              hard_fail: false,
              forbidden_calls: [],
              judge_decided: false,
            },
          },
        },
      },
    });
  }, 30_000);
});

describe("the run's deadline", () => {
  it("a repetition still awaiting its agent when the run's deadline (its job's deadline too) passes fails as timed_out; one no delivery ever carried is an infrastructure error", async () => {
    const { world, name } = await externalWorld("ext-run-deadline");
    // The run's deadline two seconds away: the job's (600 s) is cut to it. Repetition 2's message is lost.
    const start = await startRunDirect(world, "desk", {
      settings: { EVAL_RUN_TIMEOUT_MS: "2000" },
      send: (id, seqs) =>
        sendRepetitions(
          env.EVAL_QUEUE,
          id,
          seqs.filter((seq) => seq === 1),
        ),
    });
    const [job] = await receivedJobs(name, 1);
    if (!job) throw new Error("no job");
    expect(job.data.deadline).toBe(new Date(start.deadline_at).toISOString());

    const ended = await waitForRun(world, start.run_id);
    expect(ended).toMatchObject({ status: "finished", runs: 2, passed: 0, failed: 1, errors: 1 });
    const [first, second] = await repetitions(world, start.run_id);
    expect({ first, second }).toMatchObject({
      first: {
        outcome: "fail",
        cause: "timed_out",
        reason: `Timed out: the agent did not complete its attempt by its deadline (${job.data.deadline})`,
      },
      second: {
        outcome: "error",
        cause: "infrastructure_error",
        reason: expect.stringMatching(/^Infrastructure error: no result before the run's deadline/),
      },
    });
  }, 30_000);
});

describe("job delivery", () => {
  it("an endpoint that refuses the job (401) makes the repetition an infrastructure error, never a pass; a 503 is retried with the same webhook-id", async () => {
    const { world, name } = await externalWorld("ext-refuse", {
      scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }],
    });
    await jobs.script(name, [401]);
    const run = await startRun(world, "desk");
    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ verdict: "error", runs: 1, passed: 0, errors: 1 });
    const [only] = await repetitions(world, run.id);
    expect(only).toMatchObject({
      outcome: "error",
      cause: "infrastructure_error",
      reason:
        'Infrastructure error: the agent endpoint refused the job (HTTP 401: {"received":false}); it was not sent again',
    });

    const retried = await externalWorld("ext-retry", {
      scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }],
    });
    await jobs.script(retried.name, [503]);
    const retriedRun = await startRun(retried.world, "desk");
    const both = await receivedJobs(retried.name, 2, 15_000);
    expect(both.map((job) => [job.status, job.headers["webhook-id"]])).toEqual([
      [503, `job_${retriedRun.id}_1`],
      [200, `job_${retriedRun.id}_1`],
    ]);
  }, 40_000);
});

describe("an agent endpoint nobody answers", () => {
  it("ends, after the queue's retries, as an infrastructure error naming the endpoint and what was tried", async () => {
    const endpoint = "http://127.0.0.1:9/jobs";
    const { world } = await externalWorld(
      "ext-closed",
      { scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }] },
      { endpoint },
    );
    const start = await startRunDirect(world, "desk", { send: async () => undefined });
    // The broker's deliveries, then its dead letter: each delivery fails to connect and is retried.
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: start.run_id, seq: 1 }])).toEqual({ acked: 0, retried: 1 });
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: start.run_id, seq: 1 }])).toEqual({ acked: 0, retried: 1 });
    expect(await deliver(EVAL_DEAD_LETTER_QUEUE_NAME, [{ run_id: start.run_id, seq: 1 }])).toEqual({
      acked: 1,
      retried: 0,
    });
    const [only] = await repetitions(world, start.run_id);
    expect(only).toMatchObject({ outcome: "error", cause: "infrastructure_error" });
    expect(String((only as { reason: unknown }).reason)).toMatch(
      new RegExp(
        `^Infrastructure error: the queue gave up on this repetition after its retries \\(dead letter\\); the last error: Error: could not reach the agent endpoint ${endpoint.replace(/[.]/g, "\\.")} to POST its job \\(delivery 2 of this repetition, each a signed POST with webhook-id job_${start.run_id}_1 and a 15 s timeout\\): .+$`,
      ),
    );
  }, 40_000);
});

describe("a job delivered again", () => {
  it("is not POSTed again once the agent accepted it: a consumer retry after the 2xx leaves the agent one job, and its completion scores the repetition", async () => {
    const { world, name } = await externalWorld("ext-twice", {
      scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }],
    });
    const start = await startRunDirect(world, "desk", { send: async () => undefined });
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: start.run_id, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    // What the consumer does when its delivery throws after the POST: the repetition is freed, and the message comes again.
    expect(await runStub(env, start.run_id).release(1, "the delivery failed after the job was POSTed")).toEqual({
      kind: "ok",
    });
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: start.run_id, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    const received = await jobs.requests(name);
    expect(received.map((request) => [request.status, request.headers["webhook-id"]])).toEqual([
      [200, `job_${start.run_id}_1`],
    ]);

    const [job] = await receivedJobs(name, 1);
    if (!job) throw new Error("no job");
    const client = await mcpClient(job);
    await client.callTool({ name: GET, arguments: { invoice_id: "INV-10431" } });
    expect((await complete(job, { output: "INV-10431 from Fabrikam Office is received." })).status).toBe(202);
    const ended = await waitForRun(world, start.run_id);
    expect(ended).toMatchObject({ status: "finished", verdict: "pass", runs: 1, passed: 1, errors: 0 });
  }, 30_000);
});

describe("POST /api/attempts/:id/complete for an external agent", () => {
  it("names every bad field", async () => {
    const { world, name } = await externalWorld("ext-bad", {
      scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }],
    });
    await startRun(world, "desk");
    const [job] = await receivedJobs(name, 1);
    if (!job) throw new Error("no job");
    const bad = await complete(job, {
      output: 5,
      approval_requests: [{ name: "not a name", arguments: [], call_id: "" }],
      messages: [{ role: "robot", content: "hi" }],
      transcript: [],
    });
    expect(await answer(bad)).toEqual(
      invalidAnswer(
        { path: "/output", message: "required: the agent's final answer as a string (null when it ended without one)" },
        {
          path: "/approval_requests/0/name",
          message: "expected a function name (1 to 64 letters, digits, '_' or '-')",
        },
        { path: "/approval_requests/0/arguments", message: "expected object, got array" },
        { path: "/approval_requests/0/call_id", message: "expected the call's id (1 to 200 characters)" },
        { path: "/messages/0/role", message: "expected a chat message with role system, user, assistant or tool" },
        {
          path: "/transcript",
          message: 'unknown field "transcript"; expected one of: output, approval_requests, messages, metadata',
        },
      ),
    );
    // Nothing was stored: a good completion afterwards is the first.
    expect((await complete(job, { output: null })).status).toBe(202);
  }, 30_000);

  it("refuses a completion that would not fit the attempt's D1 row beside the state its calls left (413), storing nothing", async () => {
    const world = await invoiceWorld("ext-large");
    // Two tools that keep blobs in their state: three calls of 240,000 characters each fill one.
    const suffix = crypto.randomUUID().slice(0, 8);
    const tools = [`blobs_a_${suffix}`, `blobs_b_${suffix}`];
    const registered = await Promise.all(
      tools.map((tool) => libraryTool(world.tenant, libraryBlobsTool(tool), { keep: keepBlobDefinition })),
    );
    const { name } = await externalWorld(
      "ext-large",
      { scenarios: [{ id: "keep", query: "Keep these blobs.", expect: null, forbid: [] }] },
      {
        tools: registered.map((tool) => ({ tool_id: tool.id, operation_id: "keep", approval_mode: "never_require" })),
      },
      world,
    );
    const run = await startRun(world, "desk");
    const [job] = await receivedJobs(name, 1);
    if (!job) throw new Error("no job");
    const data = "x".repeat(240_000);
    const full = { k1: data, k2: data, k3: data };
    for (const tool of tools)
      for (const key of Object.keys(full)) {
        const kept = await exports.default.fetch(
          new Request(job.data.dispatch_url, {
            method: "POST",
            headers: { authorization: `Bearer ${job.data.attempt_token}`, "content-type": "application/json" },
            body: JSON.stringify({ tool, arguments: { key, data } }),
          }),
        );
        expect(await answer(kept)).toEqual({ status: 200, body: {} });
      }
    const messages = [1, 2, 3].map(() => ({ role: "assistant", content: "m".repeat(199_000) }));
    const stateBytes = JSON.stringify(Object.fromEntries(tools.map((tool) => [tool, { blobs: full }]))).length;
    // As stored: the body's fields and the time it completed (24 characters).
    const completionBytes = JSON.stringify({
      output: "kept",
      approval_requests: [],
      messages,
      completed_at: "x".repeat(24),
    }).length;
    const bytes = stateBytes + completionBytes;
    expect(await answer(await complete(job, { output: "kept", messages }))).toEqual(
      completionTooLarge(bytes, "output, approval_requests or messages"),
    );
    // Nothing was stored: a shorter completion is the first, and the run scores it.
    expect((await complete(job, { output: "kept" })).status).toBe(202);
    expect(await waitForRun(world, run.id)).toMatchObject({ status: "finished", runs: 1 });
  }, 30_000);

  it("answers 409 for an attempt that is no external agent's repetition when approval_requests are sent, and 401 without its token", async () => {
    const { world } = await externalWorld("ext-plain");
    const [attempt] = (
      await createSimulation(world.tenant, { tools: [{ tool_id: world.toolId, operation_id: "get_invoice" }] })
    ).attempts;
    if (!attempt) throw new Error("no attempt");
    const job = {
      data: { complete_url: `http://toolproof.test/api/attempts/${attempt.id}/complete`, attempt_token: attempt.token },
    } as Pick<Job, "data">;
    expect(await answer(await complete(job, { output: "x", approval_requests: [] }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "not_external_repetition",
          message: `attempt ${attempt.id} is not an external agent's repetition of a run (no job was sent for it): approval_requests and messages are taken only there; a simulation's attempt completes with output, transcript and metadata`,
        },
      },
    });
    expect(await answer(await complete(job, { output: "x", messages: [] }, `tpa_${"A".repeat(43)}`))).toEqual({
      status: 401,
      body: { error: { code: "unauthorized", message: "this token does not grant access to this attempt" } },
    });
  });
});
