/**
 * A run's page while the run runs, and the suite's pass-rate chart with every kind of run on it, in
 * a real browser. The demo suite runs once as it should (passes), once against a model the endpoint
 * does not know (every repetition errors: nothing measured), once with a calibration requirement its
 * judge cannot meet (uncalibrated), and once with the status question's model answer held back, so
 * four of five repetitions finish and the run stays live. The live page shows a progress bar of
 * passed / failed / errors / not reported with the elapsed time, reloads itself (a meta refresh,
 * no script) and draws no figure that needs the whole run; cancelled, it stops reloading. The
 * chart marks each kind of run with its own shape, named in its legend, under the runs' dates.
 */
import { describe, expect, it } from "vitest";
import { demoModelScript } from "../../scripts/local/demo-model-script.js";
import { modelServer, uniqueModel } from "../support/model-server/in-tests.js";
import { expectAccessible } from "./support/accessibility.js";
import { mainText, tableRows } from "./support/dashboard.js";
import { dashboardFixture } from "./support/fixture.js";
import { screenshot } from "./support/screenshots.js";
import { field } from "./support/toolproof.js";

const STATUS_QUESTION = "What's the status of INV-10431?";

let liveId: string;

/** The demo agent, whose answer to the status question takes two minutes: that repetition stays unreported. */
async function stalledModel(): Promise<string> {
  const model = uniqueModel("invoicedesk-stalled");
  const script = demoModelScript();
  const [first, ...rest] = script.conversations?.[STATUS_QUESTION] ?? [];
  if (!first) throw new Error("the demo script has no status conversation");
  await modelServer().script(model, {
    ...script,
    conversations: { ...script.conversations, [STATUS_QUESTION]: [{ ...first, latency_ms: 120_000 }, ...rest] },
  });
  return model;
}

const dashboard = dashboardFixture(async (demo) => {
  await demo.runDemoSuite(1, "good");
  const connection = (await demo.api("GET", "/api/connections/demo-model")) as Record<string, unknown>;
  const good = connection.model;
  const use = (model: unknown) =>
    demo.api("PUT", "/api/connections/demo-model", { base_url: connection.base_url, model, api_key: "not-needed" });
  await use("no-such-model");
  await demo.runDemoSuite(1, "all errors");
  await use(good);
  // The same suite, now requiring a calibration its judge has no labels for: the verdict is withheld.
  const suite = field(await demo.api("GET", "/api/suites/invoicedesk"), "suite") as Record<string, unknown>;
  await demo.api("PUT", "/api/suites/invoicedesk", {
    ...suite,
    judge: { ...(suite.judge as object), require_calibration: true },
  });
  await demo.runDemoSuite(1, "uncalibrated");
  await use(await stalledModel());
  const started = await demo.api("POST", "/api/suites/invoicedesk/runs", { runs_per_scenario: 1, label: "live" }, 202);
  liveId = String(field(started, "id"));
  // Four of five report; the fifth waits on its model.
  for (const deadline = Date.now() + 90_000; ; ) {
    const run = await demo.api("GET", `/api/runs/${liveId}`);
    if (field(run, "finished_repetitions") === 4) break;
    if (field(run, "status") !== "running" && field(run, "status") !== "queued")
      throw new Error(`the live run ended: ${JSON.stringify(run).slice(0, 400)}`);
    if (Date.now() > deadline)
      throw new Error(`the live run did not reach 4 of 5 in 90 s: ${JSON.stringify(run).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

describe("a live run's page and the runs chart in Chromium", () => {
  it("shows a live run's progress, reloads it while live with no premature figures, and stops once it ends", {
    timeout: 180_000,
  }, async () => {
    const { context, page } = await dashboard.signedIn("laptop");
    await page.goto(`${dashboard.demo.url}/runs/${liveId}`);
    expect(await page.locator("h1").innerText()).toBe("Run live No verdict yet (running)");
    expect(await page.locator("p.lede").innerText()).toBe(
      "Suite invoicedesk version 2: running, 4 of 5 repetitions finished.",
    );
    expect(await page.locator("p.reload").innerText()).toBe(
      "This page reloads itself every 5 s until the run ends. Stop reloading",
    );
    // The CLI's facts: passed, failed, errors, not reported yet, and the time so far.
    const progress = page.getByRole("region", { name: "Progress" });
    expect((await progress.locator("li").allInnerTexts()).map((t) => t.trim())).toEqual(
      expect.arrayContaining(["4 passed", "0 failed", "0 errors", "1 not reported yet"]),
    );
    expect(await progress.locator("li.elapsed").innerText()).toMatch(
      /^Elapsed: \S+ (ms|s|min \d+ s) \(queued \S+ m?s, running \S+ (ms|s|min \d+ s)\) so far$/,
    );
    expect(await progress.getByRole("img").getAttribute("aria-label")).toBe(
      "4 of 5 done: 4 passed, 0 failed, 0 errors, 1 not reported yet",
    );
    expect(await page.locator(".run-progress rect.segment-passed").count()).toBe(1);
    // No figure that needs the whole run: no detection figure, no histogram, no pass^k frame.
    const text = await mainText(page);
    expect(text).toContain("Detection power Given once the run ends: 4 of 5 repetitions have finished so far");
    expect(text).toContain(
      "Scores and reliability Drawn once the run ends (4 of 5 repetitions finished so far): the judge-score histogram and pass^k.",
    );
    expect(text).not.toMatch(/chance to catch/);
    expect(await page.locator("svg.histogram, svg.pass-hat-k").count()).toBe(0);
    // It reloads itself: a meta refresh (no script), and the browser does reload.
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute("content")).toBe("5");
    const reloaded = page.waitForEvent("load", { timeout: 30_000 });
    await reloaded;
    expect(new URL(page.url()).pathname).toBe(`/runs/${liveId}`);
    await screenshot(page, "live-run-laptop");
    // A timed refresh must be one people can turn off (WCAG 2.2.1; axe flags any meta refresh): the
    // link does, and the page without it is checked whole by axe (on the reloading page, a reload in
    // the middle of axe's run would destroy the page it reads).
    await page.getByRole("link", { name: "Stop reloading" }).click();
    expect(new URL(page.url()).search).toBe("?reload=off");
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
    expect(await page.locator("p.reload").innerText()).toBe(
      "Reloading is off: reload the page to see how far the run is, or reload it every 5 s.",
    );
    await expectAccessible(page);

    // Ended (cancelled): no more reloading, and how it ended in words.
    await dashboard.demo.api("POST", `/api/runs/${liveId}/cancel`);
    await page.goto(`${dashboard.demo.url}/runs/${liveId}`);
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
    expect(await page.locator("p.lede").innerText()).toBe(
      "Suite invoicedesk version 2: cancelled with 4 of 5 repetitions finished.",
    );
    expect(await page.getByRole("region", { name: "Progress" }).locator("li.elapsed").innerText()).toMatch(
      /^Duration: /,
    );
    expect(await page.getByRole("region", { name: "Progress" }).getByRole("img").getAttribute("aria-label")).toBe(
      "4 of 5 done: 4 passed, 0 failed, 0 errors, 1 never ran",
    );
    // A scenario that never ran: no "0 repetitions per scenario, a 0.0% chance", no empty pass^k frame.
    const ended = await mainText(page);
    expect(ended).toContain(
      "Detection power No detection figure: scenario status-lookup had no finished repetition, so the run could catch nothing there.",
    );
    expect(ended).toContain(
      "No pass^k: a scenario has no finished repetition, and pass^k needs k repetitions of every scenario.",
    );
    expect(await page.locator("svg.pass-hat-k").count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, "live-run-cancelled-laptop");
    await context.close();
  });

  it("marks each kind of run on the suite's chart, names the marks in a legend, dates the x axis and uses the page's width", {
    timeout: 120_000,
  }, async () => {
    const { context, page } = await dashboard.signedIn("laptop");
    await page.goto(`${dashboard.demo.url}/runs`);
    const chart = page.locator("svg.trend");
    expect(
      await chart.locator("g.point").evaluateAll((points) => points.map((p) => p.getAttribute("data-mark"))),
    ).toEqual(["pass", "unmeasured", "uncalibrated", "pending"]);
    // The all-errors run has no whisker (nothing was measured); the uncalibrated one is not a did-not-pass square.
    expect(
      await chart.locator('g[data-mark="unmeasured"] line.whisker, g[data-mark="uncalibrated"] rect').count(),
    ).toBe(0);
    expect(await chart.locator("text.date").count()).toBe(4);
    expect(await chart.locator("text.date").first().textContent()).toMatch(/^\d\d-\d\d \d\d:\d\d$/);
    expect(
      (await page.getByRole("list", { name: "Legend of the chart" }).locator("li").allInnerTexts())
        .map((t) => t.trim())
        .join("\n"),
    ).toBe(
      [
        "passed the gate",
        "did not pass (failed the gate, a hard fail, or errors)",
        "measured, verdict withheld: the judge is not calibrated",
        "no verdict: still running, or cancelled before one",
        "nothing measured: every repetition ended in an error",
        "the run's 95% interval",
        "the gate: the pass rate a run must reach",
      ].join("\n"),
    );
    // The gate's label sits right of every mark, so no whisker runs through it.
    const label = await chart.locator("text.gate-label").boundingBox();
    const marks = await chart
      .locator("g.point")
      .evaluateAll((points) => points.map((p) => p.getBoundingClientRect().right));
    expect(label && Math.max(...marks) < label.x).toBe(true);
    // The chart takes the content's width, not 60% of it.
    // A string, evaluated in the page, so no DOM types are needed here.
    const widths = (await page.evaluate(
      '({ chart: document.querySelector("figure.chart.wide").getBoundingClientRect().width, main: document.querySelector(".runs-page").getBoundingClientRect().width })',
    )) as { chart: number; main: number };
    expect(widths.chart / widths.main).toBeGreaterThan(0.95);
    expect(
      (await tableRows(page, "Last runs of suite invoicedesk, oldest first")).map((row) =>
        row.split(" | ").slice(0, 3).join(" | "),
      ),
    ).toEqual([
      "Run | Pass rate | 95% interval",
      "good | 100.0% | 56.6%–100.0%",
      "all errors | — (all errors) | —",
      "uncalibrated | 100.0% | 56.6%–100.0%",
      "live | 100.0% | 51.0%–100.0%",
    ]);
    await expectAccessible(page);
    await screenshot(page, "live-run-chart-laptop");
    await context.close();
    await dashboard.walkOnPhone("live-run", [
      ["/runs", "chart"],
      [`/runs/${liveId}`, "run"],
    ]);
  });
});
