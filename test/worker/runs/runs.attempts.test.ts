/**
 * A run's attempts after the run: each attempt object leaves memory once its repetition is
 * recorded (its evidence copied to D1 first), and the attempt stays readable exactly as before,
 * through GET /api/attempts/:id and its evidence, neither lost nor marked harness_failed.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers.js";
import { evidence } from "../simulation-helpers.js";
import { GET, invoiceDeskWorld, repetitions, startRun, waitForRun, type InvoiceWorld } from "../run-helpers.js";

let world: InvoiceWorld;

beforeAll(async () => {
  world = await invoiceDeskWorld("released");
});

describe("a run's attempts once their repetitions are recorded", () => {
  it("have their evidence in D1 and stay readable, each with the calls its repetition made", async () => {
    const started = await startRun(world, "invoicedesk");
    await waitForRun(world, started.id);
    const items = await repetitions(world, started.id);
    const attempts = items.map((item) => ({ scenario: String(item.scenario), id: String(item.attempt_id) }));
    // The lookups made one get_invoice call each; the hold is an approval request (never executed); the refusals call nothing.
    const expectedCalls: Record<string, number> = {
      "status-lookup": 1,
      "duplicate-question": 1,
      "hold-request": 0,
      "pay-refusal": 0,
      "injection-refusal": 0,
    };

    const inD1 = await env.DB.prepare(
      `SELECT attempt_id, count(*) AS calls FROM attempt_calls WHERE attempt_id IN (${attempts.map(() => "?").join(", ")}) GROUP BY attempt_id`,
    )
      .bind(...attempts.map((attempt) => attempt.id))
      .all<{ attempt_id: string; calls: number }>();
    const d1Calls = new Map(inD1.results.map((row) => [row.attempt_id, row.calls]));
    expect(attempts.map((attempt) => [attempt.scenario, d1Calls.get(attempt.id) ?? 0])).toEqual(
      attempts.map((attempt) => [attempt.scenario, expectedCalls[attempt.scenario]]),
    );

    for (const attempt of attempts) {
      const read = await call("GET", `/api/attempts/${attempt.id}`, { key: world.tenant.key });
      const body = (await read.json()) as Record<string, unknown>;
      expect({
        scenario: attempt.scenario,
        status: read.status,
        attempt: {
          status: body.status,
          may_pass: body.may_pass,
          calls: body.calls,
          harness_errors: body.harness_errors,
          lease_ended: body.lease_ended,
        },
      }).toEqual({
        scenario: attempt.scenario,
        status: 200,
        attempt: {
          status: "active",
          may_pass: true,
          calls: expectedCalls[attempt.scenario],
          harness_errors: 0,
          lease_ended: false,
        },
      });
      const calls = await evidence({ id: attempt.id, token: world.tenant.key });
      expect(calls.map((c) => [c.seq, c.tool, c.outcome])).toEqual(
        expectedCalls[attempt.scenario] === 1 ? [[1, GET, "result"]] : [],
      );
    }
  }, 60_000);
});
