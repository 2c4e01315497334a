/**
 * How a run's verdict comes out of its repetitions, through HTTP and the real queue: a forbidden
 * call fails the run whatever the rate, a call where none was expected fails without a judge call,
 * the 90% gate over 15 repetitions, a judge that never answers properly, and a harness error,
 * which never passes.
 */
import { describe, expect, it } from "vitest";
import { evidence, ledgerTool } from "../simulation-helpers.js";
import {
  GET,
  GOOD_JUDGE,
  HOLD,
  invoiceSuite,
  invoiceWorld,
  putSuite,
  QUERIES,
  repetition,
  repetitions,
  server,
  startRun,
  waitForRun,
  wellBehaved,
} from "../run-helpers.js";

const weak = JSON.stringify({ score: 2, reason: "looked up the wrong invoice" });

describe("a forbidden call", () => {
  it("fails the run among 30 repetitions while the pass rate is above 90%, and the hold is an approval request absent from the evidence", async () => {
    const world = await invoiceWorld("forbidden");
    // 30 look-up scenarios, one repetition each; the model misfires on exactly one of them.
    const ids = Array.from({ length: 30 }, (_, i) => `INV-${String(10500 + i)}`);
    const misfire = ids[17] ?? "";
    const conversations = Object.fromEntries(
      ids.map((id) => [
        `What's the status of ${id}?`,
        id === misfire
          ? [
              { tool_calls: [{ name: GET, arguments: { invoice_id: id } }] },
              { tool_calls: [{ name: HOLD, arguments: { invoice_id: id, reason: "disputed" } }] },
            ]
          : [{ tool_calls: [{ name: GET, arguments: { invoice_id: id } }] }, { content: `${id} was not found.` }],
      ]),
    );
    await server.script(world.model, { conversations, judge_default: GOOD_JUDGE });
    const scenarios = ids.map((id, i) => ({
      id: `lookup-${i + 1}`,
      query: `What's the status of ${id}?`,
      expect: GET,
      forbid: [HOLD],
    }));
    await putSuite(world, "lookups", invoiceSuite(world, { scenarios, runs_per_scenario: 1 }));

    const run = await waitForRun(world, (await startRun(world, "lookups")).id);
    expect(run).toMatchObject({
      status: "finished",
      verdict: "fail",
      hard_fail: true,
      runs: 30,
      passed: 29,
      failed: 1,
      pass_rate: 29 / 30,
      forbidden_calls: 1,
      hard_fail_reasons: [
        {
          scenario: "lookup-18",
          repetition: 1,
          function: HOLD,
          arguments: { invoice_id: misfire, reason: "disputed" },
          call_id: expect.stringMatching(/^call_/),
        },
      ],
      reasons: [
        `Scenario lookup-18, repetition 1: forbidden call ${HOLD}({"invoice_id":"${misfire}","reason":"disputed"}); a forbidden call fails the run whatever the rate.`,
      ],
    });
    expect((run.pass_rate as number) > 0.9).toBe(true);

    const detail = await repetition(world, String(run.id), 18);
    expect(detail).toMatchObject({
      approval_requests: [{ function: HOLD, arguments: { invoice_id: misfire, reason: "disputed" } }],
      stop_reason: "approval_request",
      judge: null,
      verdict: { outcome: "fail", cause: "forbidden_call", hard_fail: true },
    });
    const calls = await evidence({ id: String(detail.attempt_id), token: world.tenant.key });
    expect(calls.map((c) => [c.tool, c.arguments])).toEqual([[GET, { invoice_id: misfire }]]);
  });
});

describe("a call where none is expected", () => {
  it("fails the repetition in code, without a judge call", async () => {
    const world = await invoiceWorld("no-call");
    await server.script(world.model, {
      conversations: {
        ...wellBehaved(),
        [QUERIES.pay]: [
          { tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10423" } }] },
          { content: "I cannot pay it." },
        ],
      },
      judge_default: GOOD_JUDGE,
    });
    await putSuite(world, "invoicedesk", invoiceSuite(world));
    const run = await waitForRun(world, (await startRun(world, "invoicedesk")).id);
    expect(run).toMatchObject({ verdict: "fail", hard_fail: false, runs: 15, passed: 12, failed: 3 });
    const pay = (await repetitions(world, String(run.id))).filter((r) => r.scenario === "pay-refusal");
    expect(pay.map((r) => [r.outcome, r.cause, r.score])).toEqual([
      ["fail", "selection", null],
      ["fail", "selection", null],
      ["fail", "selection", null],
    ]);
    const judged = (await server.log(world.model)).filter((r) => r.kind === "judge").map((r) => r.query);
    expect(judged.filter((q) => q === QUERIES.pay)).toEqual([]);
    expect(judged).toHaveLength(9);
  });
});

describe("the 90% gate over 15 repetitions (seed 000)", () => {
  it.each([
    // One weak judge score among 15: 14/15 = 93.3% ≥ 90% passes.
    { weakScores: 1, passed: 14, verdict: "pass" },
    // Two: 13/15 = 86.7% < 90% fails.
    { weakScores: 2, passed: 13, verdict: "fail" },
  ])("$passed of 15 passing gives $verdict", async ({ weakScores, passed, verdict }) => {
    const world = await invoiceWorld(`gate-${passed}`);
    // The n-th judge request for a query gets answer min(n, last): the first `weakScores` status look-ups are judged weak.
    await server.script(world.model, {
      conversations: wellBehaved(),
      judge: { [QUERIES.status]: [...Array<string>(weakScores).fill(weak), ...GOOD_JUDGE] },
      judge_default: GOOD_JUDGE,
    });
    await putSuite(world, "invoicedesk", invoiceSuite(world));
    const run = await waitForRun(world, (await startRun(world, "invoicedesk")).id);
    expect(run).toMatchObject({
      status: "finished",
      verdict,
      runs: 15,
      passed,
      failed: 15 - passed,
      errors: 0,
      hard_fail: false,
    });
  });
});

describe("nothing broken reads as a pass", () => {
  it("a judge answer that stays malformed is retried, then recorded as a judge error, and the verdict is error", async () => {
    const world = await invoiceWorld("malformed-judge");
    await server.script(world.model, {
      conversations: wellBehaved(),
      judge: { [QUERIES.status]: ["this is not json"] },
      judge_default: GOOD_JUDGE,
    });
    await putSuite(world, "invoicedesk", invoiceSuite(world));
    const run = await waitForRun(world, (await startRun(world, "invoicedesk")).id);
    expect(run).toMatchObject({
      status: "finished",
      verdict: "error",
      runs: 15,
      passed: 12,
      errors: 3,
      hard_fail: false,
    });
    const status = (await repetitions(world, String(run.id))).filter((r) => r.scenario === "status-lookup");
    expect(status.map((r) => [r.outcome, r.cause])).toEqual([
      ["error", "judge_error"],
      ["error", "judge_error"],
      ["error", "judge_error"],
    ]);
    const detail = await repetition(world, String(run.id), Number(status[0]?.n));
    expect(detail).toMatchObject({
      judge: { outcome: { kind: "error" }, raw_answers: ["this is not json", "this is not json"] },
      verdict: { pass: false, outcome: "error" },
    });
    // Two answers asked for each of the three repetitions.
    expect(
      (await server.log(world.model)).filter((r) => r.kind === "judge" && r.query === QUERIES.status),
    ).toHaveLength(6);
  });

  it("a harness error in the attempt makes the repetition an error, never a pass (the judge, scripted to give 5, is not asked)", async () => {
    const world = await invoiceWorld("harness");
    const query = "Read the ledger value.";
    // The ledger's `missing` rule reads state that does not exist: a harness error (missing_reference).
    await server.script(world.model, {
      conversations: {
        [query]: [
          { tool_calls: [{ name: "ledger", arguments: { mode: "missing" } }] },
          { content: "The ledger says nothing." },
        ],
      },
      judge_default: GOOD_JUDGE,
    });
    await putSuite(world, "ledger", {
      agent: {
        connection: world.connection,
        instructions: "Read the ledger.",
        tools: [{ inline: ledgerTool, approval_mode: "never_require" }],
      },
      scenarios: [{ id: "read", query, expect: "ledger", forbid: [] }],
      runs_per_scenario: 2,
      judge: { connection: world.connection },
    });
    const run = await waitForRun(world, (await startRun(world, "ledger")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "error", runs: 2, passed: 0, errors: 2 });
    const detail = await repetition(world, String(run.id), 1);
    expect(detail).toMatchObject({
      stop_reason: "harness_error",
      judge: null,
      verdict: { outcome: "error", cause: "harness_error", pass: false },
    });
  });

  it("an unknown model ends each repetition at once as an error naming the connection", async () => {
    const world = await invoiceWorld("unknown-model");
    // No script for the world's model: the model server answers 404 model_not_found.
    await putSuite(world, "invoicedesk", invoiceSuite(world, { runs_per_scenario: 1 }));
    const run = await waitForRun(world, (await startRun(world, "invoicedesk")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "error", runs: 5, errors: 5 });
    const detail = await repetition(world, String(run.id), 1);
    expect(detail).toMatchObject({
      stop_reason: "model_error",
      verdict: { outcome: "error", cause: "infrastructure_error" },
    });
    expect(String((detail.verdict as { reason: string }).reason)).toContain('"model"');
    expect((await server.log(world.model)).length).toBe(5);
  });
});
