/**
 * Model answers as they arrive over HTTP, through a real run against the local model server: a
 * judge answer that repeats a key, answers past the size bound, and the shapes real
 * OpenAI-compatible endpoints send (docs/connections.md, "Answers as endpoints send them").
 */
import { describe, expect, it } from "vitest";
import {
  GET,
  GOOD_JUDGE,
  HOLD,
  invoiceSuite,
  invoiceWorld,
  putSuite,
  QUERIES,
  repetition,
  server,
  startRun,
  waitForRun,
  wellBehaved,
} from "./run-helpers.js";

describe("a judge answer that repeats a key", () => {
  it("is a judge error, not the last of its scores", async () => {
    const world = await invoiceWorld("judge-dup");
    const duplicate = '{"score": 1, "score": 5, "reason": "dup"}';
    await server.script(world.model, { conversations: wellBehaved(), judge_default: [duplicate] });
    await putSuite(
      world,
      "one",
      invoiceSuite(world, {
        scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }],
        runs_per_scenario: 1,
      }),
    );
    const run = await waitForRun(world, (await startRun(world, "one")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "error", runs: 1, passed: 0, errors: 1 });
    const detail = await repetition(world, String(run.id), 1);
    expect(detail).toMatchObject({
      judge: {
        outcome: {
          kind: "error",
          message:
            'no usable answer after 2 attempts (1: the answer repeats the key "score"; 2: the answer repeats the key "score")',
        },
        raw_answers: [duplicate, duplicate],
      },
      verdict: { pass: false, outcome: "error", cause: "judge_error" },
    });
  });
});

describe("answers past the size bound", () => {
  const oneScenario = (query: string) => ({
    scenarios: [{ id: "status-lookup", query, expect: GET, forbid: [HOLD] }],
    runs_per_scenario: 1,
  });
  const bound = (connection: string) =>
    `the agent's model connection "${connection}" failed: connection "${connection}": the endpoint's answer is larger than 262144 bytes, the most toolproof reads of one model answer; the rest was not read and the call is not retried`;

  it.each([
    ["a 10 MB content", { content: "x", repeat: 10 * 1024 * 1024 }],
    [
      "5 MB of tool-call arguments",
      { tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10431" }, padding: 5 * 1024 * 1024 }] },
    ],
  ])(
    "%s ends the repetition once as an error naming the bound, keeping the turns before it",
    async (_name, oversized) => {
      const world = await invoiceWorld("oversized", { max_retries: 3 });
      await server.script(world.model, {
        conversations: {
          [QUERIES.status]: [{ tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10431" } }] }, oversized],
        },
        judge_default: GOOD_JUDGE,
      });
      await putSuite(world, "one", invoiceSuite(world, oneScenario(QUERIES.status)));
      const run = await waitForRun(world, (await startRun(world, "one")).id);
      expect(run).toMatchObject({ status: "finished", verdict: "error", runs: 1, errors: 1 });
      const detail = await repetition(world, String(run.id), 1);
      expect(detail).toMatchObject({
        stop_reason: "model_error",
        verdict: {
          pass: false,
          outcome: "error",
          cause: "infrastructure_error",
          reason: `Infrastructure error: ${bound(world.connection)}`,
        },
      });
      // What came before the oversized answer is kept: the look-up and its result.
      expect(detail).toMatchObject({ calls: [{ function: GET, arguments: { invoice_id: "INV-10431" } }] });
      // Asked once per turn: the oversized answer was neither retried by the client nor redelivered by the queue.
      expect((await server.log(world.model)).map((entry) => [entry.kind, entry.retry_count])).toEqual([
        ["chat", 0],
        ["chat", 0],
      ]);
    },
  );

  it("many answers under the bound end the repetition once their sum passes the repetition's budget", async () => {
    const world = await invoiceWorld("budget");
    // 150 KiB of arguments per look-up: the third passes 384 KiB.
    const lookUp = { tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10431" }, padding: 150 * 1024 }] };
    await server.script(world.model, {
      conversations: { [QUERIES.status]: [lookUp, lookUp, lookUp, lookUp, { content: "Received." }] },
      judge_default: GOOD_JUDGE,
    });
    await putSuite(world, "one", invoiceSuite(world, oneScenario(QUERIES.status)));
    const run = await waitForRun(world, (await startRun(world, "one")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "error", runs: 1, errors: 1 });
    const detail = await repetition(world, String(run.id), 1);
    const reason = `Infrastructure error: the agent's model connection "${world.connection}" failed: connection "${world.connection}": the model's answers in this repetition add up to more than 393216 bytes, the most toolproof keeps of one repetition's answers; the conversation ends here and is not retried`;
    expect(detail).toMatchObject({
      stop_reason: "model_error",
      verdict: { outcome: "error", cause: "infrastructure_error", reason },
    });
    expect((detail.calls as unknown[]).length).toBe(2);
    expect((await server.log(world.model)).length).toBe(3);
  });
});
