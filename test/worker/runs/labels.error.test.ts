/**
 * Labels and calibration refused: a run still going, bodies with mistakes (every one named at its
 * field, through HTTP), other tenants' runs and suites, keys without AIManager:RunEvals; and the
 * plain cases around them (paging, a suite that does not require calibration).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, invalidAnswer, keyWith, newTenant } from "../helpers.js";
import {
  GOOD_JUDGE,
  invoiceSuite,
  invoiceDeskWorld,
  invoiceWorld,
  putSuite,
  server,
  startRun,
  waitForRun,
  wellBehaved,
  type InvoiceWorld,
} from "../run-helpers.js";

let world: InvoiceWorld;
let runId: string;

beforeAll(async () => {
  world = await invoiceDeskWorld("labels-error", { runs_per_scenario: 1 });
  runId = (await startRun(world, "invoicedesk")).id;
  await waitForRun(world, runId);
});

const post = (id: string, body: unknown, key = world.tenant.key) =>
  call("POST", `/api/runs/${id}/labels`, { key, body });

describe("POST /api/runs/:id/labels refuses", () => {
  it("a run that has not ended, whose repetitions are not settled yet", async () => {
    const slow = await invoiceWorld("labels-slow");
    await server.script(slow.model, { latency_ms: 5000, conversations: wellBehaved(), judge_default: GOOD_JUDGE });
    await putSuite(slow, "slow", invoiceSuite(slow, { runs_per_scenario: 1 }));
    const started = await startRun(slow, "slow");
    const refused = await answer(
      await call("POST", `/api/runs/${started.id}/labels`, {
        key: slow.tenant.key,
        body: { labels: [{ repetition: 1, label: "pass" }] },
      }),
    );
    expect(refused).toEqual({
      status: 409,
      body: {
        error: {
          code: "run_not_ended",
          message: expect.stringMatching(
            new RegExp(
              `^run ${started.id} is (queued|running): its repetitions can be labelled once it has ended \\(status finished or cancelled\\)$`,
            ),
          ),
        },
      },
    });
    expect((await call("POST", `/api/runs/${started.id}/cancel`, { key: slow.tenant.key })).status).toBe(200);
    // Cancelled is ended: nothing had finished, so every repetition is one that never ran.
    expect(
      await answer(
        await call("POST", `/api/runs/${started.id}/labels`, {
          key: slow.tenant.key,
          body: { labels: [{ repetition: 1, label: "pass" }] },
        }),
      ),
    ).toEqual(
      invalidAnswer({
        path: "/labels/0/repetition",
        message: "repetition 1 (status-lookup #1) has no result to label: the run ended before it ran",
      }),
    );
  });

  it("a body with mistakes, naming every one at its field, and stores none of it", async () => {
    expect(
      await answer(
        await post(runId, {
          labels: [
            { repetition: 1, label: "pass", score: 5 },
            { repetition: { scenario: "status", repetition: 1 }, label: "yes" },
            { repetition: 6, score: 0 },
            { repetition: 2, label: "fail", nots: "x" },
          ],
        }),
      ),
    ).toEqual(
      invalidAnswer(
        {
          path: "/labels/0",
          message:
            'give either "label" (pass or fail) or "score" (1 to 5), not both: a score already says pass or fail at the suite\'s threshold',
        },
        {
          path: "/labels/1/repetition/scenario",
          message:
            'expected one of the run\'s scenarios (status-lookup, duplicate-question, hold-request, pay-refusal, injection-refusal), got "status"',
        },
        { path: "/labels/1/label", message: 'expected "pass" or "fail", got "yes"' },
        {
          path: "/labels/2/repetition",
          message: "expected a repetition number from 1 to 5 (n in GET /api/runs/:id/repetitions), got 6",
        },
        { path: "/labels/2/score", message: "expected a whole number from 1 to 5 (the judge's rubric), got 0" },
        { path: "/labels/3/nots", message: 'unknown field "nots"; did you mean "note"?' },
      ),
    );
    expect(await answer(await call("GET", `/api/runs/${runId}/labels`, { key: world.tenant.key }))).toEqual({
      status: 200,
      body: { run: runId, items: [], next_cursor: null },
    });
    expect(await answer(await post(runId, { labels: [] }))).toEqual(
      invalidAnswer({
        path: "/labels",
        message:
          'expected 1 to 2000 labels ([{"repetition": 1, "label": "pass"}, {"repetition": {"scenario": "<id>", "repetition": 2}, "score": 3}]), got 0',
      }),
    );
    expect(
      (await answer(await call("POST", `/api/runs/${runId}/labels`, { key: world.tenant.key, body: "{labels" }))).body,
    ).toMatchObject({ error: { code: "malformed_json" } });
  });
});

describe("labels and calibration of another tenant, or without the permission", () => {
  it("answer 404 exactly as a missing run or suite does", async () => {
    const other = await newTenant();
    const runMissing = { status: 404, body: { error: { code: "not_found", message: "run not found" } } };
    expect(await answer(await post(runId, { labels: [{ repetition: 1, label: "pass" }] }, other.key))).toEqual(
      runMissing,
    );
    expect(await answer(await call("GET", `/api/runs/${runId}/labels`, { key: other.key }))).toEqual(runMissing);
    expect(await answer(await call("GET", "/api/runs/run_doesnotexist/labels", { key: world.tenant.key }))).toEqual(
      runMissing,
    );
    const suiteMissing = { status: 404, body: { error: { code: "not_found", message: "suite not found" } } };
    expect(await answer(await call("GET", "/api/suites/invoicedesk/calibration", { key: other.key }))).toEqual(
      suiteMissing,
    );
    expect(await answer(await call("GET", "/api/suites/nothing/calibration", { key: world.tenant.key }))).toEqual(
      suiteMissing,
    );
  });

  it("need AIManager:RunEvals", async () => {
    const key = await keyWith(world.tenant.id, ["AIManager:ManageTools"]);
    for (const [method, path] of [
      ["POST", `/api/runs/${runId}/labels`],
      ["GET", `/api/runs/${runId}/labels`],
      ["GET", "/api/suites/invoicedesk/calibration"],
    ] as const) {
      expect({
        path,
        status: (
          await call(method, path, {
            key,
            ...(method === "POST" ? { body: { labels: [{ repetition: 1, label: "pass" }] } } : {}),
          })
        ).status,
      }).toEqual({ path, status: 403 });
    }
  });
});

describe("around the refusals", () => {
  it("pages a run's labels by repetition number", async () => {
    expect(
      (
        await post(runId, {
          labels: [
            { repetition: 3, label: "pass" },
            { repetition: 1, score: 4, note: "good" },
          ],
        })
      ).status,
    ).toBe(200);
    const first = (await (
      await call("GET", `/api/runs/${runId}/labels?limit=1`, { key: world.tenant.key })
    ).json()) as { items: Array<{ n: number }>; next_cursor: string | null };
    expect(first.items.map((item) => item.n)).toEqual([1]);
    const rest = (await (
      await call("GET", `/api/runs/${runId}/labels?limit=1&cursor=${first.next_cursor}`, { key: world.tenant.key })
    ).json()) as { items: Array<{ n: number }>; next_cursor: string | null };
    expect([rest.items.map((item) => item.n), rest.next_cursor]).toEqual([[3], null]);
    expect(await answer(await call("GET", `/api/runs/${runId}/labels?cursor=nope`, { key: world.tenant.key }))).toEqual(
      invalidAnswer({ path: "/query/cursor", message: "not a cursor this list handed out" }),
    );
  });

  it("reports a suite's calibration without a requirement: figures, and nothing to meet", async () => {
    const calibration = (await (
      await call("GET", "/api/suites/invoicedesk/calibration", { key: world.tenant.key })
    ).json()) as Record<string, unknown>;
    // n1 (status-lookup, judge 5) scored 4 by hand: both pass; n3 (hold-request, judge 5) pass: both pass.
    expect(calibration).toMatchObject({
      require_calibration: null,
      calibrated: null,
      labels: 2,
      labels_without_judge: 0,
      judges: [
        {
          current: true,
          labels: 2,
          exact_agreement: 0.5,
          kappa: null,
          confusion: { both_pass: 2, both_fail: 0, judge_pass_human_fail: 0, judge_fail_human_pass: 0 },
        },
      ],
    });
  });
});
