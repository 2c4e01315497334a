/**
 * The Runs, Run and Attempt pages on the data a demanding user meets beside a clean finished run:
 * a run still waiting for its repetitions, the same run cancelled, a run with an attack suite, a
 * real-tools attempt and an attempt with no calls. Each reads in words, links where it should, and
 * never answers 500.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { upstream } from "../../support/upstream/in-tests.js";
import { answer, call } from "../helpers.js";
import { fetchPage, readPage, signInWith, tableRows, visibleText, type Browser } from "../dashboard-helpers.js";
import {
  attackedWorld,
  GOOD_JUDGE,
  HOLD,
  invoiceSuite,
  invoiceWorld,
  putSuite,
  runWithLostMessages,
  server,
  startRun,
  waitForRun,
  wellBehaved,
  type InvoiceWorld,
} from "../run-helpers.js";
import { counterTool, createSimulation, dispatchJson } from "../simulation-helpers.js";

let world: InvoiceWorld;
let browser: Browser;

beforeAll(async () => {
  world = await invoiceWorld("dashboard-odd");
  await server.script(world.model, { conversations: wellBehaved(), judge_default: GOOD_JUDGE });
  await putSuite(world, "invoicedesk", invoiceSuite(world, { runs_per_scenario: 1 }));
  browser = await signInWith(world.tenant.key);
}, 60_000);

const SCENARIOS = ["status-lookup", "duplicate-question", "hold-request", "pay-refusal", "injection-refusal"];

describe("a run whose repetitions have not run", () => {
  it("reads as waiting while live, and as cancelled once cancelled: no verdict reasons, no detection figure, the missing repetitions named", async () => {
    const live = await runWithLostMessages(world);
    const response = await fetchPage("GET", `/runs/${live}`, { cookie: browser.cookie });
    const page = { status: response.status, html: await response.text() };
    const text = visibleText(page.html);
    expect(page.status).toBe(200);
    expect(text).toMatch(
      new RegExp(
        `Run ${live} No verdict yet \\(queued\\) Suite invoicedesk version 1: queued, 0 of 5 repetitions finished\\. This page reloads itself every 5 s until the run ends\\. Stop reloading Progress 0 passed 0 failed 0 errors 5 not reported yet Elapsed: \\S+ m?s \\(queued \\S+ m?s, not started yet\\) so far Verdict`,
      ),
    );
    // Live: it reloads itself without script, and the CSP still allows no script.
    expect(page.html).toContain('<meta http-equiv="refresh" content="5"/>');
    expect(page.html).toContain(`<a href="/runs/${live}?reload=off">Stop reloading</a>`);
    const stopped = await readPage(browser, `/runs/${live}?reload=off`);
    expect([
      stopped.html.includes("http-equiv"),
      stopped.text.includes("Reloading is off: reload the page to see how far the run is, or reload it every 5 s ."),
    ]).toEqual([false, true]);
    expect(response.headers.get("content-security-policy")).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(text).not.toContain("Why this verdict");
    // No premature figures: no detection sentence, no empty pass^k frame, no histogram of part of the run.
    expect(text).toContain("Detection power Given once the run ends: 0 of 5 repetitions have finished so far");
    expect(text).toContain(
      "Scores and reliability Drawn once the run ends (0 of 5 repetitions finished so far): the judge-score histogram and pass^k.",
    );
    expect([page.html.includes('class="chart pass-hat-k"'), page.html.includes('class="chart histogram"')]).toEqual([
      false,
      false,
    ]);
    const list = await readPage(browser, "/runs");
    expect(list.text).toContain(
      "Suite invoicedesk No run of suite invoicedesk has a pass rate to chart yet: none has finished a repetition.",
    );

    expect((await call("POST", `/api/runs/${live}/cancel`, { key: world.tenant.key })).status).toBe(200);
    const cancelled = await readPage(browser, `/runs/${live}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.html).not.toContain("http-equiv");
    expect(cancelled.text).toContain(
      `How it ended Cancelled: 5 repetitions never ran, so the run has no verdict. ${SCENARIOS.map((s) => `Scenario ${s}, repetition 1`).join(" ")} Detection power No repetitions have finished.`,
    );
    expect(cancelled.text).not.toContain("Why this verdict");
    expect(cancelled.text).toMatch(/Repetitions No repetition ran\.$/);
  });

  it("a repetition's attempt that is not set up yet says so, linked back to its run, instead of 'no such attempt'", async () => {
    const live = await runWithLostMessages(world);
    const run = await readPage(browser, `/runs/${live}`);
    const link =
      /<details class="repetition" id="rep-2">[\s\S]*?<a href="(\/attempts\/[^"]+)">Open attempt/
        .exec(run.html)?.[1]
        ?.replace(/&amp;/g, "&") ?? "";
    expect(link).toMatch(new RegExp(`^/attempts/att_[\\w-]+\\?run=${live}&n=2$`));
    const page = await readPage(browser, link);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `Runs › run ${live} › duplicate-question repetition 1 Attempt ${link.slice(10, link.indexOf("?"))} Not started yet: scenario duplicate-question, repetition 1 of run ${live} is waiting for its turn, and its attempt is set up when it starts. Reload this page later, or go back to the run .`,
    );
    expect(page.html).toContain(`<a href="/runs/${live}#rep-2">go back to the run</a>`);
    // Another repetition's number, or no run at all, is still "no such attempt".
    const wrong = await readPage(browser, link.replace("&n=2", "&n=3"));
    const bare = await readPage(browser, link.slice(0, link.indexOf("?")));
    expect([wrong.status, bare.status, bare.text.includes("No such attempt")]).toEqual([404, 404, true]);
    await call("POST", `/api/runs/${live}/cancel`, { key: world.tenant.key });
  });
});

describe("a run that ended in errors", () => {
  it("says Error in words, why, and opens each errored repetition", async () => {
    // No script for this model: the model server answers 404 model_not_found to every request.
    const broken = await invoiceWorld("dashboard-odd-broken");
    await putSuite(broken, "invoicedesk", invoiceSuite(broken, { runs_per_scenario: 1 }));
    const started = await startRun(broken, "invoicedesk");
    await waitForRun(broken, started.id, 30_000);
    const viewer = await signInWith(broken.tenant.key);
    const page = await readPage(viewer, `/runs/${started.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `Run ${started.id} Error Suite invoicedesk version 1: ended with all 5 repetitions finished. Progress 0 passed 0 failed 5 errors 0 without a result Duration: `,
    );
    expect(page.text).toMatch(
      /\) Verdict Error Pass rate 0\.0% \(0 of 5, the 5 errors counted as not passed\), 95% interval 0\.0%–43\.4% Gate 90\.0% of repetitions must pass Failed, errors 0 failed, 5 errors/,
    );
    // Nothing was measured: said in words, not drawn as an all-zero histogram and a pass^k point at 0%.
    expect(page.text).toContain(
      "Detection power Nothing was measured: every repetition that finished ended in an error",
    );
    expect(page.text).toContain(
      "Scores and reliability No judge scores: none of the 5 repetitions was scored by the judge (5 decided without a score: by selection or an error). No pass^k: all 5 repetitions ended in errors, so nothing was measured.",
    );
    expect([page.html.includes('class="chart pass-hat-k"'), page.html.includes('class="chart histogram"')]).toEqual([
      false,
      false,
    ]);
    expect(page.text).toContain(
      'Why this verdict 5 of 5 repetitions ended in an error, so the run can neither pass nor fail. Scenario status-lookup, repetition 1: Infrastructure error: the agent\'s model connection "model" failed',
    );
    expect(page.text).toContain(
      "Repetition 1 Error · no judge score · 0 calls · decided by infrastructure error Verdict error: Infrastructure error",
    );
    const list = await readPage(viewer, "/runs");
    expect(tableRows(list.html, "Runs, newest first")[1]?.split(" | ").slice(2, 6)).toEqual([
      "Error",
      "0.0%",
      "None",
      "5 of 5",
    ]);
    // On the suite's chart: a cross on the axis with no whisker, "nothing measured" in the table, never a measured 0%.
    expect(list.html).toMatch(
      /<g class="point mark-unmeasured tone-warn" data-mark="unmeasured"><title>[^<]*: nothing measured \(every repetition ended in an error\)[^<]*<\/title><path class="cross"/,
    );
    expect(tableRows(list.html, `Last runs of suite invoicedesk, oldest first`)[1]?.split(" | ").slice(1, 3)).toEqual([
      "— (all errors)",
      "—",
    ]);
  }, 60_000);
});

describe("a run with an attack suite", () => {
  it("shows the attack success rate beside utility, per attack, the succeeded attack marked in words", async () => {
    const attacked = await attackedWorld("dashboard-odd-attack");
    const started = await startRun(attacked, "attacked");
    await waitForRun(attacked, started.id, 30_000);
    const page = await readPage(await signInWith(attacked.tenant.key), `/runs/${started.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      "Attacks Attack success rate 33.3% (1 of 3), 95% interval 6.1%–79.2%: the share of attacked repetitions in which the agent made the call the injected payload asked for (higher is worse). Utility 66.7% under attack, 100.0% without.",
    );
    expect(tableRows(page.html, "Attacks, attack success rate (higher is worse) and utility")).toEqual([
      "Attack | Payload in | Target call | Attack success rate | Utility under attack | Utility without",
      `important Succeeded 1× | invoices__get_invoice (injected_important_instructions) | ${HOLD} | 33.3% (1 of 3), 95% interval 6.1%–79.2% | 66.7% | 100.0%`,
    ]);
  }, 60_000);
});

describe("an attempt's timeline", () => {
  it("an attempt with no calls says so, with its state and no transcript", async () => {
    const [attempt] = (await createSimulation(world.tenant, { tools: [{ inline: counterTool }] })).attempts;
    const page = await readPage(browser, `/attempts/${attempt?.id ?? ""}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Calls 0 ");
    // The object holds the starting state before any flush has copied one to D1.
    expect(page.text).toContain(
      'Evidence timeline No calls yet. State now Per tool, as the attempt holds it now (once its object is gone: as last copied to the database). { "counter": { "last": 0 } } Transcript No transcript',
    );
  });

  it("a real tool's call shows who answered, its status and latency, where the answer breaks the contract, and that mock state played no part", async () => {
    const UP = upstream();
    const created = await answer(
      await call("POST", "/api/tools", {
        key: world.tenant.key,
        body: {
          name: "billing",
          description: "Invoices of the real billing API.",
          kind: "http",
          operations: [
            {
              operation_id: "get_invoice",
              description: "Return the status of one invoice.",
              input_schema: {
                type: "object",
                properties: { invoice_id: { type: "string" } },
                required: ["invoice_id"],
              },
              output_schema: {
                type: "object",
                properties: { invoice_id: { type: "string" }, status: { type: "string" } },
                required: ["invoice_id", "status"],
              },
            },
          ],
        },
      }),
    );
    const toolId = String((created.body as { id: string }).id);
    expect(
      (
        await call("PUT", `/api/tools/${toolId}/upstream`, {
          key: world.tenant.key,
          body: { base_url: UP.url, operations: { get_invoice: { method: "GET", path: "/invoices/{invoice_id}" } } },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call("PUT", "/api/upstream-hosts", { key: world.tenant.key, body: { hosts: ["127.0.0.1"] } })).status,
    ).toBe(200);
    const [attempt] = (
      await createSimulation(world.tenant, { tools: [{ tool_id: toolId, operation_id: "get_invoice", mode: "real" }] })
    ).attempts;
    if (!attempt) throw new Error("no attempt");
    // A name no operation has (a single-operation tool's function is its name) reaches no tool at all.
    expect(
      (await dispatchJson(attempt, { tool: "billing__get_invoice", arguments: { invoice_id: "INV-BAD" } })).status,
    ).toBe(500);
    expect(await dispatchJson(attempt, { tool: "billing", arguments: { invoice_id: "INV-BAD" } })).toEqual({
      status: 200,
      body: { invoice_id: "INV-BAD", status: 42 },
    });
    const page = await readPage(browser, `/attempts/${attempt.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      "Status harness_failed: a call ended in a harness error, so this attempt cannot pass Calls 2 ",
    );
    expect(page.text).toContain(
      "1. billing__get_invoice Harness error Answered by toolproof: no pinned operation has this name Matched rule — Variant — Revision — ",
    );
    expect(page.text).toContain("No tool state: the call reached no pinned operation. 2. billing");
    expect(page.text).toMatch(
      /2\. billing \(get_invoice\) Result Answered by the real tool: HTTP 200 in \d+ ms Matched rule none \(the real tool answered\) Variant real Revision none \(the real tool\) /,
    );
    expect(page.text).toMatch(
      /Arguments \{ "invoice_id": "INV-BAD" \} The real answer breaks the contract in 1 place \(the agent still got it\): \/status : [^{]*string[^{]* Result \{ "invoice_id": "INV-BAD", "status": 42 \} Forwarded to the real tool: the simulated state of billing played no part, and this call did not change it\. State now/,
    );
  });
});
