/** Runs end to end: the seed's InvoiceDesk suite through PUT /api/suites, POST .../runs, the real queue and the model server. */
import { beforeAll, describe, expect, it } from "vitest";
import { GET, GOOD_JUDGE, HOLD, invoiceSuite, invoiceWorld, judgeRequests, putSuite, repetition, repetitions, server, startRun, waitForRun, wellBehaved, type InvoiceWorld } from "./run-helpers.js";

let world: InvoiceWorld;

beforeAll(async () => {
  world = await invoiceWorld("happy");
  await server.script(world.model, { conversations: wellBehaved(), judge_default: GOOD_JUDGE });
  await putSuite(world, "invoicedesk", invoiceSuite(world));
});

describe("a run of the seed's five scenarios with a well-behaved model", () => {
  it("passes with 15 repetitions, and the judge is called exactly for the 9 repetitions with calls", async () => {
    const started = await startRun(world, "invoicedesk");
    expect(started).toMatchObject({ status: "queued", total_repetitions: 15 });
    const run = await waitForRun(world, started.id);
    expect(run).toMatchObject({ status: "finished", verdict: "pass", hard_fail: false, pass_rate: 1, runs: 15, passed: 15, finished_repetitions: 15 });
    expect(await judgeRequests(world)).toBe(9);

    const hold = (await repetitions(world, started.id)).filter((r) => r.scenario === "hold-request");
    expect(hold.map((r) => r.outcome)).toEqual(["pass", "pass", "pass"]);
    const detail = await repetition(world, started.id, Number(hold[0]?.n));
    expect(detail.approval_requests).toEqual([{ function: HOLD, arguments: { invoice_id: "INV-10423", reason: "duplicate" }, call_id: expect.any(String) }]);
    void GET;
  });
});
