/**
 * Runs end to end: the seed's InvoiceDesk suite saved through PUT /api/suites, started with POST
 * /api/suites/:name/runs, carried out by the real queue consumer against the model server (through
 * the real openai client), read back through GET /api/runs/:id and its repetitions.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers.js";
import { evidence } from "../simulation-helpers.js";
import {
  GET,
  GOOD_JUDGE,
  HOLD,
  invoiceDeskWorld,
  judgeRequests,
  QUERIES,
  repetition,
  repetitions,
  server,
  startRun,
  waitForRun,
  type InvoiceWorld,
} from "../run-helpers.js";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const SCENARIOS = ["status-lookup", "duplicate-question", "hold-request", "pay-refusal", "injection-refusal"];

/**
 * Figures of a scenario whose n repetitions all passed. Wilson 95% low bound at p = 1:
 * (1 + z²/2n − z·√(z²/4n²)) / (1 + z²/n) = 1 / (1 + z²/n); n = 3, z = 1.959964: 1 / 2.28049 = 0.43850.
 * pass^k = C(3,k)/C(3,k) = 1 and pass@k = 1 − C(0,k)/C(3,k) = 1 for every k.
 */
function allPassed(id: string) {
  return {
    id,
    runs: 3,
    passed: 3,
    failed: 0,
    errors: 0,
    pass_rate: 1,
    interval: { low: expect.closeTo(0.4385, 4), high: 1 },
    forbidden_calls: 0,
    pass_hat_k: { "1": 1, "2": 1, "3": 1 },
    pass_at_k: { "1": 1, "2": 1, "3": 1 },
  };
}

let world: InvoiceWorld;

beforeAll(async () => {
  world = await invoiceDeskWorld("happy");
});

describe("a run of the seed's five scenarios with a well-behaved model", () => {
  it("passes with 15 repetitions, and the judge is called exactly for the 9 repetitions with calls", async () => {
    const started = await startRun(world, "invoicedesk", { label: "pr-42" });
    expect(started).toEqual({
      id: expect.stringMatching(/^run_/),
      status: "queued",
      suite: "invoicedesk",
      suite_version: 1,
      label: "pr-42",
      runs_per_scenario: 3,
      total_repetitions: 15,
      pinned: expect.any(Array),
      created_at: ISO,
      deadline_at: ISO,
    });
    const run = await waitForRun(world, started.id);
    const pins = [
      {
        tool_id: world.toolId,
        tool_name: "invoices",
        operation_id: "get_invoice",
        function_name: GET,
        revision: 1,
        variant: "success",
        contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      {
        tool_id: world.toolId,
        tool_name: "invoices",
        operation_id: "place_invoice_on_hold",
        function_name: HOLD,
        revision: 1,
        variant: "success",
        contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ];
    expect(run).toEqual({
      id: started.id,
      suite: "invoicedesk",
      suite_version: 1,
      label: "pr-42",
      status: "finished",
      verdict: "pass",
      hard_fail: false,
      hard_fail_reasons: [],
      reasons: ["15 of 15 repetitions passed, at or above the gate of 90%."],
      error_reasons: [],
      pass_rate: 1,
      runs_per_scenario: 3,
      total_repetitions: 15,
      finished_repetitions: 15,
      runs: 15,
      passed: 15,
      failed: 0,
      errors: 0,
      // 1 / (1 + z²/15) = 1 / 1.25610 = 0.79612
      interval: { low: expect.closeTo(0.79612, 4), high: 1 },
      forbidden_calls: 0,
      scenarios: SCENARIOS.map(allPassed),
      pass_hat_k: { "1": 1, "2": 1, "3": 1 },
      pass_at_k: { "1": 1, "2": 1, "3": 1 },
      misfire_rate: 0.1,
      // 1 − 0.9³ = 0.271; runs needed: ⌈ln 0.05 / ln 0.9⌉ = ⌈28.43⌉ = 29
      detection_power: expect.closeTo(0.271, 9),
      runs_needed_95: 29,
      // The suite lists no attacks.
      attacks: null,
      ending: { reason: "completed", missing: [] },
      pinned: SCENARIOS.map((scenario) => ({ scenario, pinned: pins })),
      trigger: { kind: "api" },
      created_by: world.tenant.keyId,
      created_at: ISO,
      started_at: ISO,
      finished_at: ISO,
    });
    expect(await judgeRequests(world)).toBe(9);
    // Each repetition ran once: 2 agent turns for each lookup, 1 for the hold (it stops at the approval request), 1 per refusal.
    const chats = (await server.log(world.model)).filter((request) => request.kind === "chat");
    expect(
      Object.fromEntries(Object.values(QUERIES).map((q) => [q, chats.filter((r) => r.query === q).length])),
    ).toEqual({
      [QUERIES.status]: 6,
      [QUERIES.duplicate]: 6,
      [QUERIES.hold]: 3,
      [QUERIES.pay]: 3,
      [QUERIES.injection]: 3,
    });
  });

  it("lists every repetition, and shows one whole: the hold proposed as an approval request and never executed", async () => {
    const started = await startRun(world, "invoicedesk");
    await waitForRun(world, started.id);
    const items = await repetitions(world, started.id);
    expect(items.map((item) => [item.n, item.scenario, item.repetition, item.outcome])).toEqual(
      SCENARIOS.flatMap((scenario, s) => [1, 2, 3].map((r) => [s * 3 + r, scenario, r, "pass"])),
    );
    const hold = items.find((item) => item.scenario === "hold-request");
    expect(hold).toEqual({
      n: 7,
      scenario: "hold-request",
      repetition: 1,
      attempt_id: expect.stringMatching(/^att_/),
      status: "done",
      outcome: "pass",
      cause: "judge_score",
      reason: "Judge 5/5 (at or above the threshold 4): the right call with the right invoice",
      score: 5,
      calls: 1,
      approval_requests: 1,
      stop_reason: "approval_request",
    });
    const detail = await repetition(world, started.id, 7);
    const proposal = {
      function: HOLD,
      arguments: { invoice_id: "INV-10423", reason: "duplicate" },
      call_id: expect.stringMatching(/^call_/),
    };
    expect(detail).toMatchObject({
      n: 7,
      scenario: "hold-request",
      attempt_id: hold?.attempt_id,
      evidence_url: `/api/attempts/${String(hold?.attempt_id)}/evidence`,
      calls: [{ kind: "approval_request", ...proposal }],
      approval_requests: [proposal],
      final_answer: null,
      stop_reason: "approval_request",
      judge: {
        outcome: {
          kind: "score",
          score: 5,
          reason: "the right call with the right invoice",
          prompt_version: "tool-call-accuracy/1",
        },
        raw_answers: GOOD_JUDGE,
      },
      verdict: { outcome: "pass", cause: "judge_score", score: 5 },
    });
    // Proposed, not executed: the attempt's evidence has no call at all.
    expect(await evidence({ id: String(hold?.attempt_id), token: world.tenant.key })).toEqual([]);
  });

  it("lists the suite's runs newest first, paged", async () => {
    const first = await call("GET", "/api/runs?suite=invoicedesk&limit=1", { key: world.tenant.key });
    const page = (await first.json()) as { items: Array<{ id: string; status: string }>; next_cursor: string | null };
    expect(page.items).toHaveLength(1);
    expect(page.next_cursor).toEqual(expect.any(String));
    const rest = await call("GET", `/api/runs?suite=invoicedesk&cursor=${page.next_cursor}`, { key: world.tenant.key });
    const more = (await rest.json()) as {
      items: Array<{ id: string; created_at: string }>;
      next_cursor: string | null;
    };
    expect(more.next_cursor).toBeNull();
    const all = [...page.items, ...more.items] as Array<{ created_at: string }>;
    expect(all).toHaveLength(2);
    expect([...all].sort((a, b) => b.created_at.localeCompare(a.created_at))).toEqual(all);
    expect(await (await call("GET", "/api/runs?suite=other", { key: world.tenant.key })).json()).toEqual({
      items: [],
      next_cursor: null,
    });
  });
});
