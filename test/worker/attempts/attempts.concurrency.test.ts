import { describe, expect, it } from "vitest";
import { newTenant } from "../helpers.js";
import { counterTool, createSimulation, dispatch, dispatchJson, evidence } from "../simulation-helpers.js";

describe("concurrent calls on one attempt", () => {
  it("applies 500 concurrent calls one after another: gap-free seq, each call saw the argument of the one before", async () => {
    const tenant = await newTenant();
    const simulation = await createSimulation(tenant, { tools: [{ inline: counterTool }], attempts: 2 });
    const [attempt, other] = simulation.attempts;
    if (!attempt || !other) throw new Error("two attempts expected");

    const CALLS = 500;
    const responses = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const response = await dispatch(attempt, { tool: "counter", arguments: { n: i + 1 } });
        return {
          status: response.status,
          seq: Number(response.headers.get("x-toolproof-seq")),
          body: (await response.json()) as { previous: number },
          n: i + 1,
        };
      }),
    );
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);

    const calls = await evidence(attempt);
    expect(calls.map((c) => c.seq)).toEqual(Array.from({ length: CALLS }, (_, i) => i + 1));
    // Row k answered the n of row k-1 (0 for the first): nothing lost, nothing interleaved.
    const chain = calls.map((c, k) => ({
      seq: c.seq,
      previous: (c.result as { previous: number }).previous,
      expected: k === 0 ? 0 : (calls[k - 1]?.arguments as { n: number } | undefined)?.n,
    }));
    expect(chain.filter((link) => link.previous !== link.expected)).toEqual([]);
    // Each caller got exactly the answer its evidence row records.
    const bySeq = new Map(calls.map((c) => [c.seq, c]));
    const mismatched = responses.filter((r) => {
      const row = bySeq.get(r.seq);
      return (
        (row?.arguments as { n: number } | undefined)?.n !== r.n ||
        (row?.result as { previous: number } | undefined)?.previous !== r.body.previous
      );
    });
    expect(mismatched).toEqual([]);
    // Every n was applied exactly once.
    expect(new Set(calls.map((c) => (c.arguments as { n: number }).n)).size).toBe(CALLS);

    // The other attempt of the same simulation still starts from the initial state.
    expect(await dispatchJson(other, { tool: "counter", arguments: { n: 1 } })).toEqual({
      status: 200,
      body: { previous: 0 },
    });
    // A generous bound, not a speed check: shared CI machines vary by an order of magnitude.
  }, 120_000);
});
