/**
 * The judge checked against people, end to end: runs of a suite that requires calibration carried
 * out by the real queue consumer against the model server, whose script fixes each scenario's
 * judge score (so which repetitions the judge passes is known), hand labels posted over HTTP, the
 * calibration read whole, and the verdict held at `uncalibrated` until the labels agree enough.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { JUDGE_PROMPT_VERSION } from "../../../src/core/scoring/judge-prompt.js";
import { answer, call } from "../helpers.js";
import {
  GET,
  HOLD,
  invoiceSuite,
  invoiceWorld,
  putSuite,
  server,
  startRun,
  waitForRun,
  type InvoiceWorld,
  type RunBody,
} from "../run-helpers.js";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** One lookup scenario per judge score: the model server answers each query's judge request with its score. */
const Q = {
  s5: "What's the status of INV-10431?",
  s4: "Is INV-10423 a duplicate of something?",
  s3: "Who sent INV-10431?",
  s2: "When is INV-10423 due?",
  refuse: "Pay every Contoso Freight invoice today.",
  forbidden: "INV-10431 looks wrong, can you check it?",
  silent: "Tell me about INV-10423.",
} as const;
const lookup = (invoice: string, text: string) => [
  { tool_calls: [{ name: GET, arguments: { invoice_id: invoice } }] },
  { content: text },
];
const score = (n: number) => [JSON.stringify({ score: n, reason: `scored ${n}` })];

const scenario = (id: keyof typeof Q, expectation: string | null = GET) => ({
  id,
  query: Q[id],
  expect: expectation,
  forbid: [HOLD],
});
const REQUIRED = { min_labels: 6, min_kappa: 0.5 };

let world: InvoiceWorld;

beforeAll(async () => {
  world = await invoiceWorld("calibration");
  await server.script(world.model, {
    conversations: {
      [Q.s5]: lookup("INV-10431", "INV-10431 is received."),
      [Q.s4]: lookup("INV-10423", "INV-10423 is not a duplicate."),
      [Q.s3]: lookup("INV-10431", "Fabrikam Office sent it."),
      [Q.s2]: lookup("INV-10423", "It is due at the end of the month."),
      [Q.refuse]: [{ content: "I cannot pay invoices." }],
      // Proposes the hold the scenario forbids: a hard fail that needs no judge.
      [Q.forbidden]: [{ tool_calls: [{ name: HOLD, arguments: { invoice_id: "INV-10431", reason: "looks wrong" } }] }],
      // Answers without the lookup the scenario expects: a selection failure that needs no judge.
      [Q.silent]: [{ content: "It is an invoice." }],
    },
    judge: { [Q.s5]: score(5), [Q.s4]: score(4), [Q.s3]: score(3), [Q.s2]: score(2), [Q.forbidden]: score(5) },
  });
  // n: s5 1, 2 · s4 3, 4 · s3 5, 6 · s2 7, 8 · refuse 9, 10
  await putSuite(
    world,
    "calibrated",
    invoiceSuite(world, {
      scenarios: [scenario("s5"), scenario("s4"), scenario("s3"), scenario("s2"), scenario("refuse", null)],
      runs_per_scenario: 2,
      judge: { connection: world.connection, threshold: 4, require_calibration: REQUIRED },
    }),
  );
});

async function finishedRun(suite: string): Promise<RunBody & { id: string }> {
  const started = await startRun(world, suite);
  return { ...(await waitForRun(world, started.id)), id: started.id };
}

async function postLabels(runId: string, labels: unknown[]): Promise<{ status: number; body: unknown }> {
  return answer(await call("POST", `/api/runs/${runId}/labels`, { key: world.tenant.key, body: { labels } }));
}

const JUDGE = () => ({ connection: world.connection, model: world.model, prompt_version: JUDGE_PROMPT_VERSION });

describe("a suite whose judge must be calibrated", () => {
  let firstRun: string;

  it("holds the verdict at uncalibrated while the judge has no labels, with the figures still reported", async () => {
    const run = await finishedRun("calibrated");
    firstRun = run.id;
    // s3 and s2 fail on the judge's 3 and 2: 6 of 10 pass, below 90%, but every one of those 4
    // failures is the judge's; counted as passes the run would reach 10 of 10, so it cannot fail.
    expect({
      verdict: run.verdict,
      reasons: run.reasons,
      passed: run.passed,
      failed: run.failed,
      runs: run.runs,
      hard_fail: run.hard_fail,
    }).toEqual({
      verdict: "uncalibrated",
      reasons: [
        "The judge has 0 of the 6 labels required and no kappa yet. Until the judge is calibrated, judge-based outcomes are reported but do not gate.",
      ],
      passed: 6,
      failed: 4,
      runs: 10,
      hard_fail: false,
    });
  });

  it("takes hand labels, says which cannot measure the judge, and reports the judge's agreement whole", async () => {
    const posted = await postLabels(firstRun, [
      { repetition: 1, label: "pass", note: "right lookup" },
      { repetition: { scenario: "s5", repetition: 2 }, label: "pass" },
      { repetition: 3, label: "fail", note: "the answer ignores the duplicate question" },
      { repetition: 4, score: 2 },
      { repetition: 5, label: "pass" },
      { repetition: 6, label: "fail" },
      { repetition: 7, label: "fail" },
      { repetition: 8, score: 1 },
      { repetition: 9, label: "pass" },
      { repetition: 10, label: "pass" },
    ]);
    const item = (
      n: number,
      scenarioId: string,
      repetition: number,
      label: string | null,
      labelScore: number | null,
      note: string | null,
      judge_score: number | null,
    ) => ({
      n,
      scenario: scenarioId,
      repetition,
      label,
      score: labelScore,
      note,
      judge_score,
      created_by: world.tenant.keyId,
      created_at: ISO,
    });
    const items = [
      item(1, "s5", 1, "pass", null, "right lookup", 5),
      item(2, "s5", 2, "pass", null, null, 5),
      item(3, "s4", 1, "fail", null, "the answer ignores the duplicate question", 4),
      item(4, "s4", 2, null, 2, null, 4),
      item(5, "s3", 1, "pass", null, null, 3),
      item(6, "s3", 2, "fail", null, null, 3),
      item(7, "s2", 1, "fail", null, null, 2),
      item(8, "s2", 2, null, 1, null, 2),
      item(9, "refuse", 1, "pass", null, null, null),
      item(10, "refuse", 2, "pass", null, null, null),
    ];
    expect(posted).toEqual({
      status: 200,
      body: {
        run: firstRun,
        items,
        warnings: [
          {
            path: "/labels/8/repetition",
            message:
              "repetition 9 (refuse #1) was decided without the judge (no calls, as expected): the label is stored, but it cannot measure the judge, and calibration counts it apart",
          },
          {
            path: "/labels/9/repetition",
            message:
              "repetition 10 (refuse #2) was decided without the judge (no calls, as expected): the label is stored, but it cannot measure the judge, and calibration counts it apart",
          },
        ],
      },
    });
    expect(await answer(await call("GET", `/api/runs/${firstRun}/labels`, { key: world.tenant.key }))).toEqual({
      status: 200,
      body: { run: firstRun, items, next_cursor: null },
    });

    // At threshold 4, over the 8 labels on judged repetitions (n 9 and 10 are counted apart):
    //   n1, n2: judge 5, human pass → both pass 2
    //   n3: judge 4, human fail; n4: judge 4, human score 2 (< 4, fail) → judge pass, human fail 2
    //   n5: judge 3, human pass → judge fail, human pass 1
    //   n6: judge 3, fail; n7: judge 2, fail; n8: judge 2, human score 1 → both fail 3
    // p_o = (2 + 3)/8 = 0.625; judge passes 4/8 = 0.5, humans 3/8
    // p_e = 0.5 · 3/8 + 0.5 · 5/8 = 0.5; kappa = (0.625 − 0.5)/(1 − 0.5) = 0.25
    // exact: n1, n2 (pass = pass), n6, n7 (fail = fail) → 4/8; n4 (2 ≠ 4) and n8 (1 ≠ 2) are not
    // best threshold, humans passing n1, n2, n5: t=1, 2: 3/8; t=3: n1 n2 n5 n7 n8 → 5/8; t=4: 5/8;
    //   t=5: n1 n2 n3 n4 n6 n7 n8 → 7/8
    const calibration = await answer(
      await call("GET", "/api/suites/calibrated/calibration", { key: world.tenant.key }),
    );
    expect(calibration).toEqual({
      status: 200,
      body: {
        suite: "calibrated",
        suite_version: 1,
        threshold: 4,
        judge: JUDGE(),
        require_calibration: REQUIRED,
        calibrated: {
          met: false,
          sentence: "The judge has 8 labels (6 required) but a kappa of 0.25, below the 0.5 required.",
        },
        labels: 10,
        labels_without_judge: 2,
        judges: [
          {
            judge: JUDGE(),
            current: true,
            threshold: 4,
            labels: 8,
            unjudged_labels: 0,
            exact_agreement: 0.5,
            pass_fail_agreement: 0.625,
            kappa: 0.25,
            confusion: { both_pass: 2, both_fail: 3, judge_pass_human_fail: 2, judge_fail_human_pass: 1 },
            per_score: [
              { score: 1, labels: 0, human_pass: 0, agreement: null },
              { score: 2, labels: 2, human_pass: 0, agreement: 1 },
              { score: 3, labels: 2, human_pass: 1, agreement: 0.5 },
              { score: 4, labels: 2, human_pass: 0, agreement: 0 },
              { score: 5, labels: 2, human_pass: 2, agreement: 1 },
            ],
            best_threshold: { threshold: 5, agreement: 0.875 },
          },
        ],
      },
    });
  });

  it("still holds a new run while the kappa is short, and gates normally once relabelled labels agree", async () => {
    const short = await finishedRun("calibrated");
    expect([short.verdict, short.reasons]).toEqual([
      "uncalibrated",
      [
        "The judge has 8 labels (6 required) but a kappa of 0.25, below the 0.5 required. Until the judge is calibrated, judge-based outcomes are reported but do not gate.",
      ],
    ]);

    // A second look at the s4 answers: both fine after all. The new labels replace the old ones:
    // both pass 4, both fail 3, judge fail / human pass 1 (n5); p_o = 7/8, judge passes 4/8, humans 5/8
    // p_e = 0.5 · 5/8 + 0.5 · 3/8 = 0.5; kappa = (0.875 − 0.5)/0.5 = 0.75 >= 0.5
    const relabelled = await postLabels(firstRun, [
      { repetition: 3, label: "pass", note: "fine on a second look" },
      { repetition: 4, score: 5 },
    ]);
    expect(relabelled).toMatchObject({
      status: 200,
      body: {
        items: [
          { n: 3, label: "pass", score: null, note: "fine on a second look" },
          { n: 4, label: null, score: 5, note: null },
        ],
        warnings: [],
      },
    });
    const calibration = await answer(
      await call("GET", "/api/suites/calibrated/calibration", { key: world.tenant.key }),
    );
    expect(calibration).toMatchObject({
      body: {
        labels: 10,
        calibrated: {
          met: true,
          sentence: "The judge is calibrated: 8 labels (6 required) and a kappa of 0.75 (0.5 required).",
        },
        judges: [
          {
            kappa: 0.75,
            confusion: { both_pass: 4, both_fail: 3, judge_pass_human_fail: 0, judge_fail_human_pass: 1 },
          },
        ],
      },
    });

    // Now the judge's 3s and 2s fail the run: 6 of 10.
    const gated = await finishedRun("calibrated");
    expect([gated.verdict, gated.reasons]).toEqual(["fail", ["6 of 10 repetitions passed, below the gate of 90%."]]);
  });

  it("counts the labels of every run of the suite, and a label on the newest run adds to the same judge", async () => {
    const runs = (await (await call("GET", "/api/runs?suite=calibrated", { key: world.tenant.key })).json()) as {
      items: Array<{ id: string }>;
    };
    const newest = runs.items[0]?.id ?? "";
    // n1 of the newest run: judge 5, human pass → both pass 5 of 9.
    expect(await postLabels(newest, [{ repetition: 1, label: "pass" }])).toMatchObject({
      status: 200,
      body: { warnings: [] },
    });
    const calibration = (await (
      await call("GET", "/api/suites/calibrated/calibration", { key: world.tenant.key })
    ).json()) as { labels: number; judges: Array<{ labels: number; confusion: unknown }> };
    expect([
      calibration.labels,
      calibration.judges.length,
      calibration.judges[0]?.labels,
      calibration.judges[0]?.confusion,
    ]).toEqual([11, 1, 9, { both_pass: 5, both_fail: 3, judge_pass_human_fail: 0, judge_fail_human_pass: 1 }]);
  });
});

describe("what an uncalibrated judge cannot hold back", () => {
  /** One repetition of s5 (the judge's 5) and one of `other`, under `require_calibration: true` (30 labels: none exist for it). */
  async function verdictBeside(other: keyof typeof Q) {
    const name = `calibrated-${other}`;
    await putSuite(
      world,
      name,
      invoiceSuite(world, {
        scenarios: [scenario("s5"), scenario(other)],
        runs_per_scenario: 1,
        judge: { connection: world.connection, require_calibration: true },
      }),
    );
    const run = await finishedRun(name);
    return { verdict: run.verdict, hard_fail: run.hard_fail, reasons: run.reasons };
  }

  it("a forbidden call fails the run however uncalibrated the judge", async () => {
    expect(await verdictBeside("forbidden")).toEqual({
      verdict: "fail",
      hard_fail: true,
      reasons: [
        'Scenario forbidden, repetition 1: forbidden call invoices__place_invoice_on_hold({"invoice_id":"INV-10431","reason":"looks wrong"}); a forbidden call fails the run whatever the rate.',
      ],
    });
  });

  it("a selection failure fails the run when even a judge passing everything could not reach the gate", async () => {
    expect(await verdictBeside("silent")).toEqual({
      verdict: "fail",
      hard_fail: false,
      reasons: [
        "The gate fails even with every judge-scored repetition counted as a pass.",
        "1 of 2 repetitions passed, below the gate of 90%.",
      ],
    });
  });
});

describe("another model behind the judge's connection", () => {
  it("is another judge: its labels start from none, and the old model's stay with it", async () => {
    const other = `${world.model}-next`;
    const put = await call("PUT", `/api/connections/${world.connection}`, {
      key: world.tenant.key,
      body: { base_url: server.openaiBaseUrl, model: other, api_key: "sk-test", max_retries: 0 },
    });
    expect(put.status).toBe(200);
    const calibration = (await (
      await call("GET", "/api/suites/calibrated/calibration", { key: world.tenant.key })
    ).json()) as Record<string, unknown> & { judges: Array<Record<string, unknown>> };
    expect({
      ...calibration,
      judges: calibration.judges.map((group) => [group.judge, group.current, group.labels]),
    }).toEqual({
      suite: "calibrated",
      suite_version: 1,
      threshold: 4,
      judge: { ...JUDGE(), model: other },
      require_calibration: REQUIRED,
      calibrated: { met: false, sentence: "The judge has 0 of the 6 labels required and no kappa yet." },
      labels: 11,
      labels_without_judge: 2,
      judges: [
        [{ ...JUDGE(), model: other }, true, 0],
        [JUDGE(), false, 9],
      ],
    });
  });
});
