/**
 * Scenarios graded by the state they leave and the facts they state (issue 22), through HTTP, the
 * real queue and the attempt Durable Objects, with the scripted local model server: the gold calls
 * are replayed on a fresh attempt of the same simulation, an agent that makes the gold write
 * passes, one that skips it or changes one argument fails naming the differing path, an output
 * never stated fails naming it, a gold call that cannot replay makes the repetition `error`, and
 * the repetitions of a scenario share one replay of its gold calls.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { attemptDispatcher } from "../../../src/worker/runs/consumer/attempt-ports.js";
import { ensureAttempt } from "../../../src/worker/runs/consumer/attempt-setup.js";
import { EVAL_QUEUE_NAME } from "../../../src/worker/runs/consumer/messages.js";
import { runStub } from "../../../src/worker/runs/coordinator/access.js";
import type { Env } from "../../../src/worker/platform/env.js";
import { call } from "../helpers.js";
import {
  deliver,
  GET,
  HOLD,
  invoiceWorld,
  type InvoiceWorld,
  putSuite,
  repetition,
  repetitions,
  runWithLostMessages,
  server,
  startRun,
  waitForRun,
} from "../run-helpers.js";

const ASK = {
  gold: "Hold INV-10423: it duplicates last month's bill.",
  skip: "INV-10423 is a duplicate of last month's bill; hold it, please.",
  changed: "Please put INV-10423 on hold, it is a duplicate.",
  status: "What's the status of INV-10431?",
} as const;
const HOLD_ARGUMENTS = { invoice_id: "INV-10423", reason: "duplicate" };
const PATH = "/invoices/invoices/INV-10423";

function suite(world: InvoiceWorld, scenarios: Array<Record<string, unknown>>): Record<string, unknown> {
  return {
    agent: {
      connection: world.connection,
      instructions: "You answer accounts payable questions and hold invoices when asked.",
      // The hold is executed (never_require): an approval request changes no state.
      tools: [{ tool_id: world.toolId, approval_mode: "never_require" }],
    },
    scenarios,
    runs_per_scenario: 1,
    // No judge: every scenario that expects calls is graded by its outcome.
  };
}

const gold = { gold_calls: [{ function: HOLD, arguments: HOLD_ARGUMENTS }] };

describe("a suite graded by end state and outputs", () => {
  it("passes the gold write, fails a skipped or changed write naming the path, and an output never stated naming it", async () => {
    const world = await invoiceWorld("end-state");
    await server.script(world.model, {
      conversations: {
        [ASK.gold]: [
          { tool_calls: [{ name: HOLD, arguments: HOLD_ARGUMENTS }] },
          { content: "INV-10423 is on hold as a duplicate." },
        ],
        [ASK.skip]: [
          { tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10423" } }] },
          { content: "INV-10423 is approved." },
        ],
        [ASK.changed]: [
          { tool_calls: [{ name: HOLD, arguments: { ...HOLD_ARGUMENTS, reason: "disputed" } }] },
          { content: "Done." },
        ],
        [ASK.status]: [
          { tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10431" } }] },
          { content: "INV-10431 is received." },
        ],
      },
    });
    await putSuite(
      world,
      "graded",
      suite(world, [
        { id: "gold", query: ASK.gold, expect: HOLD, end_state: gold, outputs: ["on hold"] },
        { id: "skip", query: ASK.skip, expect: GET, end_state: gold },
        { id: "changed", query: ASK.changed, expect: HOLD, end_state: gold },
        {
          id: "status",
          query: ASK.status,
          expect: GET,
          end_state: { assert: [{ path: "/invoices/invoices/INV-10431/status", equals: "received" }] },
          outputs: ["Received", "Fabrikam Office"],
        },
      ]),
    );

    const run = await waitForRun(world, (await startRun(world, "graded")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "fail", runs: 4, passed: 1, failed: 3, errors: 0 });
    const items = await repetitions(world, String(run.id));
    expect(items.map((r) => [r.scenario, r.outcome, r.cause, r.reason])).toEqual([
      ["gold", "pass", "end_state", "End state matches the gold calls' state. Every required output is stated (1)."],
      [
        "skip",
        "fail",
        "end_state",
        `End state differs at 2 paths: ${PATH}/hold_reason: expected "duplicate", got null; ${PATH}/status: expected "on_hold", got "approved".`,
      ],
      [
        "changed",
        "fail",
        "end_state",
        `End state differs at 1 path: ${PATH}/hold_reason: expected "duplicate", got "disputed".`,
      ],
      ["status", "fail", "outputs", 'End state matches every assertion. The answers never state "Fabrikam Office".'],
    ]);

    // The passing repetition whole: the agent's changes and the gold calls' over the same start.
    const passed = await repetition(world, String(run.id), 1);
    const goldAttempt = (passed.end_state as { gold_attempt_id: string }).gold_attempt_id;
    expect(passed).toMatchObject({
      judge: null,
      end_state: {
        pass: true,
        mismatches: [],
        mismatch_count: 0,
        changes: [
          { path: `${PATH}/hold_reason`, before: null, after: "duplicate" },
          { path: `${PATH}/status`, before: "approved", after: "on_hold" },
        ],
        change_count: 2,
        expected_changes: [
          { path: `${PATH}/hold_reason`, before: null, after: "duplicate" },
          { path: `${PATH}/status`, before: "approved", after: "on_hold" },
        ],
      },
      outputs: { pass: true, missing: [] },
    });
    expect(goldAttempt).toMatch(/^att_/);
    expect(goldAttempt).not.toBe(passed.attempt_id);
    // The same gold calls in another scenario are replayed in that scenario's own simulation.
    const skipped = await repetition(world, String(run.id), 2);
    const skippedGold = (skipped.end_state as { gold_attempt_id: string }).gold_attempt_id;
    expect(skippedGold).toMatch(/^att_/);
    expect(skippedGold).not.toBe(goldAttempt);

    const changed = await repetition(world, String(run.id), 3);
    expect(changed).toMatchObject({
      end_state: {
        pass: false,
        mismatches: [{ path: `${PATH}/hold_reason`, expected: "duplicate", actual: "disputed" }],
        mismatch_count: 1,
      },
    });
    const status = await repetition(world, String(run.id), 4);
    expect(status).toMatchObject({
      end_state: { pass: true, expected_changes: null, gold_attempt_id: null, changes: [] },
      outputs: { pass: false, missing: ["Fabrikam Office"] },
    });

    // The gold calls ran on a real attempt of the run, with evidence like any other.
    const evidence = await call("GET", `/api/attempts/${goldAttempt}/evidence`, { key: world.tenant.key });
    expect(evidence.status).toBe(200);
    const body = (await evidence.json()) as { calls: Array<Record<string, unknown>> };
    expect(body.calls).toMatchObject([{ tool: HOLD, call_id: "gold-1", outcome: "result", arguments: HOLD_ARGUMENTS }]);
  });

  it("gives the run τ-bench's pass^k for one task repeated: 2 passes of 4 by end state", async () => {
    const world = await invoiceWorld("end-state-pass-hat-k");
    // Every repetition looks the invoice up; on the 1st and 3rd lookup the model then holds it as a
    // duplicate (the gold write), on the others as disputed (one argument changed).
    await server.script(world.model, {
      conversations: {
        [ASK.gold]: [
          { tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10423" } }] },
          { tool_calls: [{ name: HOLD, arguments: { ...HOLD_ARGUMENTS, reason: "disputed" } }] },
          { content: "Done." },
        ],
      },
      injections: [
        {
          contains: "Contoso Freight",
          query: ASK.gold,
          follow_on: [1, 3],
          turn: { tool_calls: [{ name: HOLD, arguments: HOLD_ARGUMENTS }] },
        },
      ],
    });
    await putSuite(world, "repeated", {
      ...suite(world, [{ id: "task", query: ASK.gold, expect: HOLD, end_state: gold }]),
      runs_per_scenario: 4,
    });
    const run = await waitForRun(world, (await startRun(world, "repeated")).id);
    expect(run).toMatchObject({ verdict: "fail", runs: 4, passed: 2, failed: 2, errors: 0 });
    // τ-bench (run.py): for each k, the mean over tasks of comb(c, k) / comb(n, k), here c = 2, n = 4.
    const comb = (n: number, k: number): number => {
      let r = 1n;
      for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
      return k > n ? 0 : Number(r);
    };
    const tau = Object.fromEntries([1, 2, 3, 4].map((k) => [String(k), comb(2, k) / comb(4, k)]));
    expect(tau).toEqual({ "1": 0.5, "2": 1 / 6, "3": 0, "4": 0 });
    const scenarios = run.scenarios as Array<{ pass_hat_k: Record<string, number> }>;
    for (const [k, value] of Object.entries(tau)) {
      expect(scenarios[0]?.pass_hat_k[k]).toBeCloseTo(value, 12);
      expect((run.pass_hat_k as Record<string, number>)[k]).toBeCloseTo(value, 12);
    }
    const reasons = (await repetitions(world, String(run.id))).map((r) => r.reason).sort();
    expect(reasons).toEqual([
      `End state differs at 1 path: ${PATH}/hold_reason: expected "duplicate", got "disputed".`,
      `End state differs at 1 path: ${PATH}/hold_reason: expected "duplicate", got "disputed".`,
      "End state matches the gold calls' state.",
      "End state matches the gold calls' state.",
    ]);

    // The four repetitions shared one replay of the gold calls: one gold attempt, in the
    // scenario's simulation beside the four repetitions' own, its evidence the gold call once.
    const graded = await Promise.all([1, 2, 3, 4].map((n) => repetition(world, String(run.id), n)));
    const golds = new Set(graded.map((r) => (r.end_state as { gold_attempt_id: string }).gold_attempt_id));
    expect(golds.size).toBe(1);
    const [goldAttempt] = [...golds];
    const attempt = await call("GET", `/api/attempts/${goldAttempt}`, { key: world.tenant.key });
    const simulationId = ((await attempt.json()) as { simulation_id: string }).simulation_id;
    const simulation = await call("GET", `/api/simulations/${simulationId}`, { key: world.tenant.key });
    const listed = ((await simulation.json()) as { attempts: Array<{ id: string }> }).attempts.map((a) => a.id);
    expect(listed.sort()).toEqual([goldAttempt, ...graded.map((r) => String(r.attempt_id))].sort());
    const evidence = await call("GET", `/api/attempts/${goldAttempt}/evidence`, { key: world.tenant.key });
    const body = (await evidence.json()) as { calls: Array<Record<string, unknown>> };
    expect(body.calls).toMatchObject([{ tool: HOLD, call_id: "gold-1", outcome: "result", arguments: HOLD_ARGUMENTS }]);
  });

  it("makes the repetition an error, never the agent's fail, when a gold call cannot replay", async () => {
    const world = await invoiceWorld("end-state-broken-gold");
    await server.script(world.model, {
      conversations: {
        [ASK.gold]: [{ tool_calls: [{ name: HOLD, arguments: HOLD_ARGUMENTS }] }, { content: "On hold." }],
      },
    });
    const broken = { gold_calls: [{ function: HOLD, arguments: { invoice_id: "INV-10423", reason: "lost" } }] };
    await putSuite(
      world,
      "broken-gold",
      suite(world, [{ id: "gold", query: ASK.gold, expect: HOLD, end_state: broken }]),
    );

    const run = await waitForRun(world, (await startRun(world, "broken-gold")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "error", errors: 1, passed: 0 });
    const [item] = await repetitions(world, String(run.id));
    expect(item).toMatchObject({ outcome: "error", cause: "harness_error" });
    expect(String(item?.reason)).toMatch(
      /^Harness error: gold call 1 of 1, invoices__place_invoice_on_hold\(\{"invoice_id":"INV-10423","reason":"lost"\}\), did not replay on attempt att_[A-Za-z0-9_-]{22}: a tool input error: /,
    );
  });

  it("refuses a suite whose gold calls or assertions name what the agent does not have", async () => {
    const world = await invoiceWorld("end-state-refused");
    const saved = await call("PUT", "/api/suites/refused", {
      key: world.tenant.key,
      body: suite(world, [
        {
          id: "gold",
          query: ASK.gold,
          expect: HOLD,
          end_state: {
            gold_calls: [{ function: "invoices__place_invoice_onhold", arguments: HOLD_ARGUMENTS }],
            assert: [{ path: "/invoice/invoices", equals: {} }],
          },
        },
      ]),
    });
    expect({ status: saved.status, body: await saved.json() }).toEqual({
      status: 400,
      body: {
        error: expect.objectContaining({
          code: "invalid_request",
          details: {
            problems: [
              {
                path: "/scenarios/0/end_state/gold_calls/0/function",
                message: `the agent has no function "invoices__place_invoice_onhold"; did you mean "${HOLD}"?`,
              },
              {
                path: "/scenarios/0/end_state/assert/0/path",
                message:
                  'the state has no tool "invoice" (a path starts with the tool\'s name, not a function\'s); did you mean "invoices"?',
              },
            ],
          },
        }),
      },
    });
  });
});

describe("a repetition delivered again", () => {
  /**
   * An earlier delivery claimed the repetition and made one call on its attempt, then gave up; the
   * message comes again and the agent runs from the start on the same attempt.
   */
  async function redelivered(label: string, earlier: { name: string; arguments: Record<string, string> }) {
    const world = await invoiceWorld(label);
    await server.script(world.model, {
      conversations: {
        [ASK.gold]: [{ tool_calls: [{ name: HOLD, arguments: HOLD_ARGUMENTS }] }, { content: "On hold." }],
      },
    });
    // runWithLostMessages starts the suite named invoicedesk, its messages lost.
    await putSuite(
      world,
      "invoicedesk",
      suite(world, [{ id: "gold", query: ASK.gold, expect: HOLD, end_state: gold }]),
    );
    const runId = await runWithLostMessages(world);
    const coordinator = runStub(env, runId);
    const claimed = await coordinator.claim(1);
    if (claimed.kind !== "job") throw new Error(`repetition 1 was not handed out: ${claimed.kind}`);
    await ensureAttempt(env, claimed.job);
    // SAFETY: the test env is the Worker's Env.
    await attemptDispatcher(env as unknown as Env, claimed.job).call(earlier.name, earlier.arguments, "early-1");
    expect(await coordinator.release(1, "Error: the worker was stopped")).toEqual({ kind: "ok" });
    expect(await deliver(EVAL_QUEUE_NAME, [{ run_id: runId, seq: 1 }])).toEqual({ acked: 1, retried: 0 });
    return (await repetitions(world, runId))[0];
  }

  it("is not graded on a state an earlier delivery changed: an error, never the agent's pass or fail", async () => {
    const item = await redelivered("end-state-redelivered", { name: HOLD, arguments: HOLD_ARGUMENTS });
    expect(item).toMatchObject({
      outcome: "error",
      cause: "harness_error",
      reason:
        "Harness error: an earlier delivery of this repetition changed its attempt's state (1 of calls 1 to 1), so the end state is not this delivery's alone and is not graded",
    });
  });

  it("is graded as usual when the earlier delivery only read", async () => {
    const item = await redelivered("end-state-redelivered-read", { name: GET, arguments: { invoice_id: "INV-10423" } });
    expect(item).toMatchObject({
      outcome: "pass",
      cause: "end_state",
      reason: "End state matches the gold calls' state.",
    });
  });
});
