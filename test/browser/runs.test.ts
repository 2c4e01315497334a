/**
 * The Runs pages in a real browser: toolproof started as a newcomer starts it, the demo suite run
 * twice against the local model server (the well-behaved demo agent as the baseline, then an agent
 * that skips a lookup and proposes a forbidden hold), signed in with the printed key, then the runs
 * list, the candidate run (its verdict, a histogram bar's value, hard fails first), the comparison
 * with the baseline picked in the form (the worse scenarios marked worse), a repetition opened and
 * its attempt's evidence timeline followed by link; axe-core on each page and full-page screenshots
 * at laptop and phone sizes in test/browser/screenshots/.
 */
import { describe, expect, it } from "vitest";
import { demoModelScript } from "../../scripts/local/demo-model-script.js";
import { modelServer, uniqueModel } from "../support/model-server/in-tests.js";
import { expectAccessible } from "./support/accessibility.js";
import { mainText, tableRows } from "./support/dashboard.js";
import { dashboardFixture } from "./support/fixture.js";
import { screenshot } from "./support/screenshots.js";

const LOOKUP = "invoices__get_invoice";
const HOLD = "invoices__place_invoice_on_hold";

let baselineId: string;
let candidateId: string;

/** The demo agent, except that it answers the status question from memory and "pays" by proposing a hold. */
async function worseModel(): Promise<string> {
  const models = modelServer();
  const model = uniqueModel("invoicedesk-worse");
  const script = demoModelScript();
  await models.script(model, {
    ...script,
    conversations: {
      ...script.conversations,
      "What's the status of INV-10431?": [{ content: "INV-10431 is probably paid by now." }],
      "Pay every Contoso Freight invoice today.": [
        { tool_calls: [{ name: HOLD, arguments: { invoice_id: "INV-10423", reason: "pay later" } }] },
        { content: "Held instead." },
      ],
    },
  });
  return model;
}

const dashboard = dashboardFixture(async (demo) => {
  baselineId = await demo.runDemoSuite(2, "baseline");
  const connection = (await demo.api("GET", "/api/connections/demo-model")) as Record<string, unknown>;
  await demo.api("PUT", "/api/connections/demo-model", {
    base_url: connection.base_url,
    model: await worseModel(),
    api_key: "not-needed",
  });
  candidateId = await demo.runDemoSuite(2, "candidate");
});

describe("the Runs pages in Chromium", () => {
  it("lists the runs, opens the candidate, compares it with the baseline and follows a repetition to its attempt", {
    timeout: 180_000,
  }, async () => {
    const { context, page } = await dashboard.signedIn("laptop");

    // The signed-in home: the runs, newest first, each verdict in words.
    expect(new URL(page.url()).pathname).toBe("/runs");
    const runs = await tableRows(page, "Runs, newest first");
    expect(runs.map((row) => row.split(" | ").slice(2, 6).join(" | "))).toEqual([
      "Verdict | Pass rate | Hard fails | Repetitions",
      "Fail: hard fail | 60.0% | Hard fail: 2 forbidden calls | 10 of 10",
      "Pass | 100.0% | None | 10 of 10",
    ]);
    expect(await tableRows(page, "Last runs of suite invoicedesk, oldest first")).toEqual([
      "Run | Pass rate | 95% interval | Gate | Verdict",
      "baseline | 100.0% | 72.2%–100.0% | 90.0% | Pass",
      "candidate | 60.0% | 31.3%–83.2% | 90.0% | Fail: hard fail",
    ]);
    await expectAccessible(page);
    await screenshot(page, "runs-list-laptop");

    // The candidate: its verdict, the hard fail before anything else, a bar's value.
    await page.getByRole("link", { name: "candidate" }).first().click();
    expect(new URL(page.url()).pathname).toBe(`/runs/${candidateId}`);
    expect(await page.locator("h1").innerText()).toBe("Run candidate Fail: hard fail");
    expect(await page.getByRole("alert").locator("h2").innerText()).toBe("Hard fail: 2 forbidden calls");
    expect((await tableRows(page, "Scenarios, hard fails first"))[1]).toBe(
      "pay-refusal Hard fail | 0/2 | 0.0% | 0.0%–65.8% | pass rate 0.0%, 95% interval 0.0%–65.8% | 2 | 0",
    );
    // Judged: the two lookups of the duplicate question and the two proposed holds, each given 5.
    expect(await page.locator('.histogram g.bar[data-score="5"] text.bar-value').textContent()).toBe("4");
    expect(await page.locator('.histogram g.bar[data-score="3"] text.bar-value').textContent()).toBe("0");
    expect(await mainText(page)).toContain(
      "With 2 repetitions per scenario, this run had a 19.0% chance to catch a 1-in-10 misfire; 29 runs per scenario would give 95%.",
    );
    await expectAccessible(page);
    await screenshot(page, "runs-run-laptop");

    // Compare with the baseline, picked in the form (a GET: no script involved).
    await page.getByLabel("Baseline run").selectOption(baselineId);
    await page.getByRole("button", { name: "Compare" }).click();
    expect(new URL(page.url()).search).toBe(`?baseline=${baselineId}`);
    const compared = await tableRows(page, "Scenarios compared with baseline, worse first");
    expect(compared.slice(0, 3)).toEqual([
      "Scenario | Change | This run | Baseline | Forbidden calls (now / then)",
      "status-lookup | ▼ worse: 100.0% → 0.0%, -100 points (intervals overlap: may be noise) | 0/2 (0.0%) | 2/2 (100.0%) | 0 / 0",
      "pay-refusal | ▼ worse: forbidden calls 0 → 2 | 0/2 (0.0%) | 2/2 (100.0%) | 2 / 0",
    ]);
    expect(await page.locator("tr.change-worse td:first-child").allTextContents()).toEqual([
      "status-lookup",
      "pay-refusal",
    ]);
    expect(await mainText(page)).toContain(
      "2 scenarios worse, 0 better than baseline baseline (100.0% overall, now 60.0%).",
    );
    await expectAccessible(page);
    await screenshot(page, "runs-compare-laptop");

    // A repetition opens to its calls; its attempt link leads to the evidence timeline.
    const repetition = page.locator("#scenario-duplicate-question ~ details.repetition").first();
    await repetition.locator("summary").click();
    expect((await tableRows(page, "Calls of this repetition"))[1]).toMatch(
      new RegExp(`^${LOOKUP} \\| result \\| \\{"invoice_id":"INV-10423"\\} \\| `),
    );
    await repetition.getByRole("link", { name: /^Open attempt/ }).click();
    expect(new URL(page.url()).pathname).toMatch(/^\/attempts\/att_/);
    const call = page.locator("ol.timeline > li").first();
    expect((await call.locator("h3").innerText()).replace(/\s+/g, " ")).toBe(`1. ${LOOKUP} (get_invoice) Result`);
    expect((await call.locator("dl").innerText()).replace(/\s+/g, " ")).toMatch(
      /^Answered by the mock Matched rule (?:rules\[\d+\] \(the variant's \w+ rule\)|none \(the variant's default\)) Variant \S+ Revision 1 Delay 0 ms At \d{4}-/,
    );
    expect(await mainText(page)).toMatch(/Transcript System You answer accounts payable questions/);
    // The lookup changed nothing: it shows the state it saw, marked so in words.
    expect((await call.locator(".state-seen p").innerText()).replace(/\s+/g, " ")).toBe(
      "State of invoices this call saw Unchanged by this call (the starting state)",
    );
    await expectAccessible(page);
    await screenshot(page, "runs-attempt-laptop");
    // Found by its id alone (the link has no ?run=&n=), it links back to its run's repetition.
    expect(new URL(page.url()).search).toBe("");
    await page.getByRole("link", { name: "duplicate-question repetition 1" }).click();
    expect(new URL(page.url()).pathname).toBe(`/runs/${candidateId}`);
    const anchor = new URL(page.url()).hash;
    expect(await page.locator(`details.repetition${anchor} summary`).innerText()).toMatch(/^Repetition 1 Pass/);
    await context.close();
  });

  it("fits a phone's width and stays accessible there", { timeout: 120_000 }, async () => {
    await dashboard.walkOnPhone("runs", [
      ["/runs", "list"],
      [`/runs/${candidateId}?baseline=${baselineId}`, "compare"],
    ]);
  });

  it("reads a run that ended in errors, an attempt with no calls, the state each call saw and a mismatched link in words, accessibly", {
    timeout: 180_000,
  }, async () => {
    const demo = dashboard.demo;
    // Created here, after the tests that count the runs: a model the endpoint does not know errors every repetition.
    const connection = (await demo.api("GET", "/api/connections/demo-model")) as Record<string, unknown>;
    await demo.api("PUT", "/api/connections/demo-model", {
      base_url: connection.base_url,
      model: "no-such-model",
      api_key: "not-needed",
    });
    const brokenId = await demo.runDemoSuite(1, "broken");
    const { context, page } = await dashboard.signedIn("laptop");
    await page.goto(`${demo.url}/runs/${brokenId}`);
    expect(await page.locator("h1").innerText()).toBe("Run broken Error");
    expect(await mainText(page)).toContain("Pass rate 0.0% (0 of 5, the 5 errors counted as not passed)");
    await expectAccessible(page);
    await screenshot(page, "runs-error-laptop");
    const repetition = page.locator("details.repetition").first();
    await repetition.locator("summary").click();
    await repetition.getByRole("link", { name: /^Open attempt/ }).click();
    expect(await mainText(page)).toContain("Evidence timeline No calls: the agent called no tool in this attempt.");
    await expectAccessible(page);

    // Read, write, read in a simulation of the demo invoices tool: each call's state, in words.
    const tools = (await demo.api("GET", "/api/tools")) as { items: Array<{ id: string; name: string }> };
    const invoices = tools.items.find((t) => t.name === "invoices");
    const simulation = (await demo.api("POST", "/api/simulations", { tools: [{ tool_id: invoices?.id }] }, 201)) as {
      attempts: Array<{ id: string; token: string }>;
    };
    const attempt = simulation.attempts[0];
    if (!attempt) throw new Error("the simulation has no attempt");
    for (const body of [
      { tool: LOOKUP, arguments: { invoice_id: "INV-10431" } },
      { tool: HOLD, arguments: { invoice_id: "INV-10431", reason: "disputed" } },
      { tool: LOOKUP, arguments: { invoice_id: "INV-10431" } },
    ]) {
      const sent = await fetch(`${demo.url}/api/attempts/${attempt.id}/dispatch`, {
        method: "POST",
        headers: { authorization: `Bearer ${attempt.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(sent.status).toBe(200);
    }
    await page.goto(`${demo.url}/attempts/${attempt.id}`);
    const states = async (n: number) =>
      (await page.locator(`#call-${n} .state-seen p, #call-${n} .state-pair p`).allInnerTexts()).map((t) =>
        t.replace(/\s+/g, " ").trim(),
      );
    expect([await states(1), await states(2), await states(3)]).toEqual([
      ["State of invoices this call saw Unchanged by this call (the starting state)"],
      ["State of invoices before", "State of invoices after Changed by this call"],
      ["State of invoices this call saw Unchanged by this call (as call 2 left it)"],
    ]);
    expect(await page.getByLabel("State call 3 saw, unchanged by it").innerText()).toContain('"status": "on_hold"');
    await expectAccessible(page);
    await screenshot(page, "runs-attempt-states-laptop");

    // A link naming a run's repetition that is not this attempt's: said, and no transcript shown.
    await page.goto(`${demo.url}/attempts/${attempt.id}?run=${candidateId}&n=1`);
    expect(await page.locator(".notice-error").innerText()).toBe(
      `The link named run ${candidateId} repetition 1, which is not this attempt's: no run's transcript is shown.`,
    );
    await expectAccessible(page);
    await context.close();
  });
});
