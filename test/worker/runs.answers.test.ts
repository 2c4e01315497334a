/**
 * Model answers as they arrive over HTTP, through a real run against the local model server: a
 * judge answer that repeats a key, answers past the size bound, and the shapes real
 * OpenAI-compatible endpoints send (docs/connections.md, "Answers as endpoints send them").
 */
import { describe, expect, it } from "vitest";
import { GET, HOLD, invoiceSuite, invoiceWorld, putSuite, QUERIES, repetition, server, startRun, waitForRun, wellBehaved } from "./run-helpers.js";

describe("a judge answer that repeats a key", () => {
  it("is a judge error, not the last of its scores", async () => {
    const world = await invoiceWorld("judge-dup");
    const duplicate = '{"score": 1, "score": 5, "reason": "dup"}';
    await server.script(world.model, { conversations: wellBehaved(), judge_default: [duplicate] });
    await putSuite(world, "one", invoiceSuite(world, { scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [HOLD] }], runs_per_scenario: 1 }));
    const run = await waitForRun(world, (await startRun(world, "one")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "error", runs: 1, passed: 0, errors: 1 });
    const detail = await repetition(world, String(run.id), 1);
    expect(detail).toMatchObject({
      judge: {
        outcome: { kind: "error", message: 'no usable answer after 2 attempts (1: the answer repeats the key "score"; 2: the answer repeats the key "score")' },
        raw_answers: [duplicate, duplicate],
      },
      verdict: { pass: false, outcome: "error", cause: "judge_error" },
    });
  });
});
