/**
 * The run page of a suite graded by end state and outputs, as a person reads it: a repetition that
 * changed one argument of the gold write shows the differing path with the expected and the actual
 * value, what it changed over the starting state beside what the gold calls changed, and a fact its
 * answers never stated.
 */
import { describe, expect, it } from "vitest";
import { readPage, signInWith, tableRows } from "../dashboard-helpers.js";
import { GET, HOLD, invoiceWorld, putSuite, repetition, server, startRun, waitForRun } from "../run-helpers.js";

const ASK = "Please put INV-10423 on hold, it is a duplicate.";
const P = "/invoices/invoices/INV-10423";

describe("the Run page of a suite graded by its outcome", () => {
  it("shows each differing path, the changes over the start as a diff, and the facts never stated", async () => {
    const world = await invoiceWorld("dashboard-end-state");
    await server.script(world.model, {
      conversations: {
        [ASK]: [
          { tool_calls: [{ name: HOLD, arguments: { invoice_id: "INV-10423", reason: "disputed" } }] },
          { content: "INV-10423 is on hold." },
        ],
      },
    });
    await putSuite(world, "graded", {
      agent: {
        connection: world.connection,
        instructions: "You hold invoices when asked.",
        tools: [{ tool_id: world.toolId, approval_mode: "never_require" }],
      },
      scenarios: [
        {
          id: "changed",
          query: ASK,
          expect: [HOLD],
          forbid: [GET],
          end_state: { gold_calls: [{ function: HOLD, arguments: { invoice_id: "INV-10423", reason: "duplicate" } }] },
          outputs: ["on hold", "duplicate"],
        },
      ],
      runs_per_scenario: 1,
    });
    const run = await waitForRun(world, (await startRun(world, "graded")).id);
    expect(run).toMatchObject({ verdict: "fail", failed: 1 });
    const gold = ((await repetition(world, String(run.id), 1)).end_state as { gold_attempt_id: string })
      .gold_attempt_id;

    const browser = await signInWith(world.tenant.key);
    const page = await readPage(browser, `/runs/${String(run.id)}`);
    expect(page.status).toBe(200);
    expect(tableRows(page.html, "Where the end state differs")).toEqual([
      "Path | Expected | Actual",
      `${P}/hold_reason | "duplicate" | "disputed"`,
    ]);
    expect(tableRows(page.html, "What the agent changed over the starting state")).toEqual([
      "Path | Before | After",
      `${P}/hold_reason | null | "disputed"`,
      `${P}/status | "approved" | "on_hold"`,
    ]);
    expect(tableRows(page.html, `What the gold calls changed (attempt ${gold})`)).toEqual([
      "Path | Before | After",
      `${P}/hold_reason | null | "duplicate"`,
      `${P}/status | "approved" | "on_hold"`,
    ]);
    expect(page.text).toContain(
      `End state End state differs at 1 path: ${P}/hold_reason: expected "duplicate", got "disputed".`,
    );
    expect(page.text).toContain("Required outputs Never stated in the agent's answers: duplicate");
  });
});
