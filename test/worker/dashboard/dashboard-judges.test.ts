/**
 * The Judges pages as a person reads them: a real run of a suite whose judge must be calibrated
 * (the queue consumer against the model server, whose script fixes each scenario's judge score),
 * hand labels posted over HTTP, then the calibration figures on the page: kappa, agreement, the
 * confusion matrix and the per-score chart, the same figures GET /api/suites/:name/calibration gives.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { JUDGE_PROMPT_VERSION } from "../../../src/core/scoring/judge-prompt.js";
import { type Browser, readPage, signInWith, tableRows } from "../dashboard-helpers.js";
import { answer, call, keyWith } from "../helpers.js";
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
} from "../run-helpers.js";

const Q = { s5: "What's the status of INV-10431?", s2: "When is INV-10423 due?" } as const;
const lookup = (invoice: string, text: string) => [
  { tool_calls: [{ name: GET, arguments: { invoice_id: invoice } }] },
  { content: text },
];
const score = (n: number) => [JSON.stringify({ score: n, reason: `scored ${n}` })];

let world: InvoiceWorld;
let browser: Browser;

beforeAll(async () => {
  world = await invoiceWorld("dashboard-judges");
  await server.script(world.model, {
    conversations: {
      [Q.s5]: lookup("INV-10431", "INV-10431 is received."),
      [Q.s2]: lookup("INV-10423", "It is due at the end of the month."),
    },
    judge: { [Q.s5]: score(5), [Q.s2]: score(2) },
  });
  // n: s5 1, 2 · s2 3, 4
  await putSuite(
    world,
    "judged",
    invoiceSuite(world, {
      scenarios: [
        { id: "s5", query: Q.s5, expect: GET, forbid: [HOLD] },
        { id: "s2", query: Q.s2, expect: GET, forbid: [HOLD] },
      ],
      runs_per_scenario: 2,
      judge: { connection: world.connection, threshold: 4, require_calibration: { min_labels: 4, min_kappa: 0.6 } },
    }),
  );
  const { judge: _judge, ...unjudged } = invoiceSuite(world, {
    scenarios: [{ id: "refuse", query: "Pay every Contoso Freight invoice today.", expect: null, forbid: [HOLD] }],
  });
  const saved = await call("PUT", "/api/suites/unjudged", { key: world.tenant.key, body: unjudged });
  expect(saved.status).toBe(201);
  const started = await startRun(world, "judged");
  await waitForRun(world, started.id);
  // The judge passes 1, 2 (score 5) and fails 3, 4 (score 2); the human passes 1, 2, 4 and fails 3.
  const labels = [
    { repetition: 1, label: "pass" },
    { repetition: 2, label: "pass" },
    { repetition: 3, label: "fail" },
    { repetition: 4, label: "pass" },
  ];
  expect(
    (await call("POST", `/api/runs/${started.id}/labels`, { key: world.tenant.key, body: { labels } })).status,
  ).toBe(200);
  browser = await signInWith(world.tenant.key);
});

const judgeName = () => `${world.connection} · ${world.model} · prompt ${JUDGE_PROMPT_VERSION}`;

describe("the Judges pages", () => {
  it("lists each suite's current judge with its labels, kappa, agreement and whether it is calibrated", async () => {
    const page = await readPage(browser, "/judges");
    expect(page.status).toBe(200);
    expect(tableRows(page.html, "Current judge of each suite")).toEqual([
      "Suite | Judge | Labels | Kappa | Pass/fail agreement | Calibration",
      `judged | ${judgeName()} | 4 | 0.50 | 75.0% | Not calibrated`,
      "unjudged | No judge | — | — | — | Not required",
    ]);
  });

  it("shows a suite's judge: the figures of GET /api/suites/:name/calibration, the confusion matrix and agreement per score", async () => {
    const api = await answer(await call("GET", "/api/suites/judged/calibration", { key: world.tenant.key }));
    // SAFETY: the documented calibration answer.
    const current = (
      api.body as { judges: Array<{ kappa: number; pass_fail_agreement: number; confusion: Record<string, number> }> }
    ).judges[0];
    expect({ kappa: current?.kappa, agreement: current?.pass_fail_agreement, confusion: current?.confusion }).toEqual({
      kappa: 0.5,
      agreement: 0.75,
      confusion: { both_pass: 2, both_fail: 1, judge_pass_human_fail: 0, judge_fail_human_pass: 1 },
    });

    const page = await readPage(browser, "/judges/judged");
    expect(page.status).toBe(200);
    const facts = page.text.split("Judge of judged ")[1] ?? "";
    expect(facts.split(` ${judgeName()} `)[0]).toBe(
      "Suite version 1 Pass threshold score 4 or more Hand labels 4 (0 on repetitions no judge scored) Required at least 4 labels and kappa 0.6 Not calibrated Missing The judge has 4 labels (4 required) but a kappa of 0.5, below the 0.6 required.",
    );
    expect(page.text).toContain(
      `${judgeName()} Current judge Kappa 0.50 Pass/fail agreement 75.0% Exact agreement 75.0% Labels scored by this judge 4 Best threshold score 4 (agreement 75.0%)`,
    );
    expect(tableRows(page.html, "Confusion matrix at threshold 4")).toEqual([
      " | Human: pass | Human: fail",
      "Judge: pass | 2 | 0",
      "Judge: fail | 1 | 1",
    ]);
    const chart = /<figure class="chart">[\s\S]*?<\/figure>/.exec(page.html)?.[0] ?? "";
    // A y axis: its ticks and what it measures, then each bar's value and score.
    expect([...chart.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])).toEqual([
      "0%",
      "50%",
      "100%",
      "agreement",
      "no labels",
      "score 1",
      "50.0% of 2",
      "score 2",
      "no labels",
      "score 3",
      "no labels",
      "score 4",
      "100.0% of 2",
      "score 5",
    ]);
  });

  it("says so for a suite without a judge, and a missing suite is a 404 page", async () => {
    const page = await readPage(browser, "/judges/unjudged");
    expect(page.text.split("Judge of unjudged ")[1]).toBe(
      "Suite version 1 has no judge: its scenarios are decided by their checks alone.",
    );
    expect((await readPage(browser, "/judges/nope")).status).toBe(404);
  });

  it("needs RunEvals like the calibration route, and shows another tenant nothing", async () => {
    const toolsOnly = await signInWith(await keyWith(world.tenant.id, ["AIManager:ManageTools"]));
    expect((await readPage(toolsOnly, "/judges/judged")).status).toBe(403);
    const other = await signInWith((await invoiceWorld("dashboard-judges-other")).tenant.key);
    expect((await readPage(other, "/judges")).text).toContain("No suites yet.");
    expect((await readPage(other, "/judges/judged")).status).toBe(404);
  });
});
