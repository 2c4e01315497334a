/**
 * The Runs, Run and Attempt pages on the data a demanding user meets beside a clean finished run:
 * a run still going, a cancelled one, a run with an attack suite, an external agent's repetition,
 * a real-tools attempt and an attempt with no calls: each reads in words, links where it should,
 * and never answers 500.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { upstream } from "../support/upstream/in-tests.js";
import { answer, call } from "./helpers.js";
import { readPage, signInWith, tableRows, visibleText, type Browser } from "./dashboard-helpers.js";
import { GOOD_JUDGE, invoiceSuite, invoiceWorld, putSuite, runWithLostMessages, server, startRun, waitForRun, wellBehaved, type InvoiceWorld } from "./run-helpers.js";
import { counterTool, createSimulation, dispatch } from "./simulation-helpers.js";

let world: InvoiceWorld;
let browser: Browser;

beforeAll(async () => {
  world = await invoiceWorld("dashboard-odd");
  await server.script(world.model, { conversations: wellBehaved(), judge_default: GOOD_JUDGE });
  await putSuite(world, "invoicedesk", invoiceSuite(world, { runs_per_scenario: 1 }));
  browser = await signInWith(world.tenant.key);
}, 60_000);

describe("explore", () => {
  it("prints", async () => {
    const live = await runWithLostMessages(world);
    const p1 = await readPage(browser, `/runs/${live}`);
    console.log("LIVE", p1.status, p1.text.slice(0, 3000));
    const link = /<a href="(\/attempts\/[^"]+)">Open attempt/.exec(p1.html)?.[1]?.replace(/&amp;/g, "&");
    const p2 = await readPage(browser, link ?? "");
    console.log("LIVEATT", p2.status, p2.text.slice(0, 1500));
    const list = await readPage(browser, `/runs`);
    console.log("LIST", list.status, list.text.slice(0, 2000));
    expect((await call("POST", `/api/runs/${live}/cancel`, { key: world.tenant.key })).status).toBeLessThan(300);
    const p3 = await readPage(browser, `/runs/${live}`);
    console.log("CANCELLED", p3.status, p3.text.slice(0, 3000));
    const [attempt] = (await createSimulation(world.tenant, { tools: [{ inline: counterTool }] })).attempts;
    const p4 = await readPage(browser, `/attempts/${attempt?.id}`);
    console.log("EMPTY", p4.status, p4.text.slice(0, 3000));
  });
});
