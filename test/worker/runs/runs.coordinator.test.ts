/**
 * The run coordinator on its own, through its RPC: whatever order results arrive in, and however
 * often each is delivered, every repetition keeps its first record, and the figures are exactly
 * runVerdict over those first records.
 */
import { env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RepetitionRecord } from "../../../src/core/evals/agent-types.js";
import { notRunRecord } from "../../../src/core/evals/evaluate-repetition.js";
import { repetitionVerdict } from "../../../src/core/scoring/repetition-verdict.js";
import { runVerdict } from "../../../src/core/scoring/run-verdict.js";
import { scoreSelection } from "../../../src/core/scoring/selection.js";
import type { RunStart } from "../../../src/worker/runs/coordinator/replies.js";
import { sharedAttemptPlans } from "../../../src/worker/runs/coordinator/run-start.js";
import { runStub } from "../../../src/worker/runs/coordinator/access.js";

const SCENARIOS = [
  { id: "a", query: "qa", expect: null, forbid: [] },
  { id: "b", query: "qb", expect: null, forbid: [] },
];
const PER_SCENARIO = 3;

function start(runId: string): RunStart {
  return {
    run_id: runId,
    tenant_id: "tenant_prop",
    suite_name: "prop",
    suite_version: 1,
    label: null,
    runs_per_scenario: PER_SCENARIO,
    gate: { pass_rate: 0.9, misfire_rate: 0.1 },
    agent: {
      kind: "builtin",
      connection: "m",
      instructions: "i",
      parameters: {},
      max_iterations: 4,
      max_function_calls: 6,
      tools: [],
      approval: {},
    },
    judge: null,
    scenarios: SCENARIOS,
    repetitions: SCENARIOS.flatMap((_, s) =>
      [1, 2, 3].map((repetition) => ({
        seq: s * PER_SCENARIO + repetition,
        scenario_index: s,
        repetition,
        attempt_id: `att_${s}_${repetition}`,
        token_hash: "0".repeat(64),
      })),
    ),
    attempts: sharedAttemptPlans(
      Date.now() + 3_600_000,
      SCENARIOS.map((_, s) => ({ simulation_id: `sim_${s}`, operations: [], tools: [] })),
    ),
    created_at: Date.now(),
    deadline_at: Date.now() + 3_600_000,
  };
}

/** A record of seq's repetition that passes, or one that is an infrastructure error. */
function recordOf(seq: number, passes: boolean): RepetitionRecord {
  const scenario = SCENARIOS[Math.floor((seq - 1) / PER_SCENARIO)] ?? SCENARIOS[0];
  const repetition = ((seq - 1) % PER_SCENARIO) + 1;
  const base = notRunRecord({
    scenario_id: scenario?.id ?? "",
    repetition,
    attempt_id: `att`,
    infrastructure_error: "the endpoint was down",
    at: 0,
  });
  if (!passes) return base;
  const selection = scoreSelection({ expect: null, forbid: [] }, []);
  return { ...base, selection, verdict: repetitionVerdict({ selection, calls: 0, threshold: 4 }) };
}

let counter = 0;

describe("the run coordinator", () => {
  it("keeps the first record of each repetition, whatever the order and number of deliveries", async () => {
    await fc.assert(
      fc.asyncProperty(
        // Deliveries: which repetition, and whether this delivery's record passes. Every seq is delivered at least once.
        fc.array(fc.record({ seq: fc.integer({ min: 1, max: 6 }), passes: fc.boolean() }), {
          minLength: 0,
          maxLength: 12,
        }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        async (extra, last) => {
          const runId = `run_prop_${++counter}`;
          const coordinator = runStub(env, runId);
          expect(await coordinator.start(start(runId))).toEqual({ kind: "ok" });
          const deliveries = [...extra, ...last.map((passes, i) => ({ seq: i + 1, passes }))];
          const first = new Map<number, boolean>();
          const replies: string[] = [];
          for (const { seq, passes } of deliveries) {
            const expected = first.size === 6 ? "ended" : first.has(seq) ? "duplicate" : "recorded";
            if (!first.has(seq)) first.set(seq, passes);
            replies.push(`${(await coordinator.record(seq, recordOf(seq, passes))).kind}/${expected}`);
          }
          expect(replies.filter((reply) => reply.split("/")[0] !== reply.split("/")[1])).toEqual([]);
          const progress = await coordinator.progress();
          const expected = runVerdict(
            SCENARIOS.map((scenario, s) => ({
              id: scenario.id,
              repetitions: [1, 2, 3].map((repetition) => ({
                repetition,
                verdict: recordOf(s * PER_SCENARIO + repetition, first.get(s * PER_SCENARIO + repetition) ?? false)
                  .verdict,
              })),
            })),
            { pass_rate: 0.9, misfire_rate: 0.1 },
          );
          expect(
            progress.kind === "ok" && {
              status: progress.progress.status,
              verdict: progress.progress.verdict,
              outcome: progress.progress.summary.outcome,
            },
          ).toEqual({
            status: "finished",
            verdict: expected.verdict,
            outcome: expected,
          });
        },
      ),
      { numRuns: 15 },
    );
  });
});
