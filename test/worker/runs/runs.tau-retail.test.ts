/**
 * τ-bench's retail test split as a suite, run through HTTP and the real queue in workerd against
 * scripted models (issue 22, item 5): the environment loaded as `npm run load:tau-retail` loads it,
 * the 115 tasks imported as `npm run import:tau-retail -- --split test` writes them, a user model
 * that says each task's instruction and an agent that answers it with the task's gold calls
 * (test/support/model-server/gold-agent.ts). Every task passes by its end state; an agent that
 * skips the last write or changes one of its arguments fails naming the path, with both values;
 * and the pass^k of one task repeated agrees with τ-bench's estimator on the same pass counts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  goldAgentScript,
  goldAgentTurns,
  type GoldScenario,
  instructedUserScript,
} from "../../support/model-server/gold-agent.js";
import type { Turn } from "../../support/model-server/script.js";
import testSplit from "../../../examples/environments/tau-retail/reference/test.json?raw";
import { repetition, repetitions, server, startRun, waitForRun } from "../run-helpers.js";
import { connection, type RetailWorld, retailWorld, saveSuite } from "./tau-retail-world.js";

/** Loading the environment and running 115 conversations is seconds of work; this only catches a hang. */
const SLOW = 300_000;
const ADDRESS2 = "/retail/orders/#W8665881/address/address2";

let world: RetailWorld;
/** Task 17: five reads, then the one write, modify_pending_order_address (address2 "Suite 640" to "Suite 641"). */
let task: GoldScenario;
let maxIterations: number;

beforeAll(async () => {
  world = await retailWorld();
  maxIterations = world.suite.agent.max_iterations;
  await server.script(world.model, goldAgentScript(world.suite.scenarios, { max_iterations: maxIterations }));
  await server.script(world.userModel, instructedUserScript(world.suite.scenarios));
  await saveSuite(world, "tau-retail-test", world.suite);
  const found = world.suite.scenarios.find((scenario) => scenario.id === "test-17");
  if (!found) throw new Error("the test split has no task 17");
  task = found;
}, SLOW);

/** A one-task suite whose agent runs on the connection `agent` names. */
function oneTask(agent: string, runs: number): Record<string, unknown> {
  return {
    ...world.suite,
    agent: { ...world.suite.agent, connection: agent },
    scenarios: [task],
    runs_per_scenario: runs,
  };
}

/** Task 17's gold turns with its last write's arguments replaced. */
function withWrite(turns: Turn[], address2: string): Turn[] {
  return turns.map((turn) =>
    "tool_calls" in turn && turn.tool_calls[0]?.name === "retail__modify_pending_order_address"
      ? {
          tool_calls: [{ ...turn.tool_calls[0], arguments: { ...(turn.tool_calls[0].arguments as object), address2 } }],
        }
      : turn,
  );
}

describe("τ-bench's retail test split, imported as a suite", () => {
  it(
    "passes every task, by end state, with an agent that makes each task's gold calls and a user that says its instruction",
    async () => {
      const scenarios = world.suite.scenarios;
      expect(scenarios).toHaveLength(115);
      const run = await waitForRun(
        world,
        (await startRun(world, "tau-retail-test", { runs_per_scenario: 1, label: "gold" })).id,
      );
      expect(run).toMatchObject({
        status: "finished",
        verdict: "pass",
        runs: 115,
        passed: 115,
        failed: 0,
        errors: 0,
        hard_fail: false,
      });

      const items = await repetitions(world, String(run.id));
      const stated = (s: GoldScenario) =>
        (s.outputs ?? []).length === 0 ? "" : ` Every required output is stated (${s.outputs?.length}).`;
      expect(items.map((r) => [r.scenario, r.outcome, r.cause, r.reason])).toEqual(
        scenarios.map((s) => [s.id, "pass", "end_state", `End state matches the gold calls' state.${stated(s)}`]),
      );

      // Each repetition whole: every gold call made by the agent, the conversation ended by the
      // user, and the agent's changes exactly the gold calls' changes, which are τ-bench's: a task
      // changes the data when τ-bench's own final data differs from the starting data.
      const reference = JSON.parse(testSplit) as { tasks: Array<{ final_state: { diff: unknown[] } }> };
      const details: Array<Record<string, unknown>> = [];
      for (let n = 1; n <= scenarios.length; n += 10) {
        const batch = Array.from({ length: Math.min(10, scenarios.length - n + 1) }, (_, i) =>
          repetition(world, String(run.id), n + i),
        );
        details.push(...(await Promise.all(batch)));
      }
      expect(
        details.map((detail) => {
          const endState = detail.end_state as {
            changes: unknown[];
            expected_changes: unknown[];
            mismatch_count: number;
          };
          const conversation = detail.conversation as { stop_reason: string; user_turns: unknown[] };
          return {
            scenario: detail.scenario,
            calls: (detail.calls as unknown[]).length,
            conversation: [conversation.stop_reason, conversation.user_turns.length],
            mismatches: endState.mismatch_count,
            same_changes: JSON.stringify(endState.changes) === JSON.stringify(endState.expected_changes),
            changed: endState.changes.length > 0,
          };
        }),
      ).toEqual(
        scenarios.map((s, i) => ({
          scenario: s.id,
          calls: s.end_state.gold_calls.length,
          conversation: ["user_stop", 2],
          mismatches: 0,
          same_changes: true,
          changed: (reference.tasks[i]?.final_state.diff.length ?? 0) > 0,
        })),
      );

      // The models answered only what the conversations asked: two user messages per task, and the
      // agent's scripted turns for each task, no more.
      const agentTurns = scenarios.reduce((sum, s) => sum + goldAgentTurns(s, maxIterations).length, 0);
      const [agentStats, userStats] = await Promise.all([server.stats(world.model), server.stats(world.userModel)]);
      expect({ agent: agentStats.requests_total, user: userStats.requests_total }).toEqual({
        agent: agentTurns,
        user: 2 * scenarios.length,
      });
    },
    SLOW,
  );

  it(
    "fails the task when the agent skips the last write or changes one of its arguments, naming the path with both values",
    async () => {
      const gold = goldAgentTurns(task, maxIterations);
      const write = gold.findIndex(
        (turn) => "tool_calls" in turn && turn.tool_calls[0]?.name.startsWith("retail__modify"),
      );
      expect(write).toBe(gold.length - 2);
      await server.script(await connection(world.tenant, "agent-skip"), {
        conversations: { [task.user.instruction]: gold.filter((_, i) => i !== write) },
      });
      await server.script(await connection(world.tenant, "agent-changed"), {
        conversations: { [task.user.instruction]: withWrite(gold, "Suite 614") },
      });
      await saveSuite(world, "skips-write", oneTask("agent-skip", 1));
      await saveSuite(world, "changes-write", oneTask("agent-changed", 1));
      const [skipped, changed] = await Promise.all(
        ["skips-write", "changes-write"].map(async (suite) => waitForRun(world, (await startRun(world, suite)).id)),
      );
      expect([skipped, changed]).toMatchObject([
        { status: "finished", verdict: "fail", runs: 1, failed: 1, errors: 0 },
        { status: "finished", verdict: "fail", runs: 1, failed: 1, errors: 0 },
      ]);

      const skip = await repetition(world, String(skipped?.id), 1);
      expect({ verdict: skip.verdict, end_state: skip.end_state }).toEqual({
        verdict: {
          pass: false,
          outcome: "fail",
          cause: "selection",
          reason: `Selection failed: never called retail__modify_pending_order_address. End state differs at 1 path: ${ADDRESS2}: expected "Suite 641", got "Suite 640".`,
          forbidden_calls: [],
          hard_fail: false,
          judge_decided: false,
        },
        end_state: {
          pass: false,
          reason: `End state differs at 1 path: ${ADDRESS2}: expected "Suite 641", got "Suite 640".`,
          mismatches: [{ path: ADDRESS2, expected: "Suite 641", actual: "Suite 640" }],
          mismatch_count: 1,
          changes: [],
          change_count: 0,
          expected_changes: [{ path: ADDRESS2, before: "Suite 640", after: "Suite 641" }],
          gold_attempt_id: expect.stringMatching(/^att_/),
        },
      });

      const change = await repetition(world, String(changed?.id), 1);
      expect({ verdict: change.verdict, end_state: change.end_state }).toEqual({
        verdict: {
          pass: false,
          outcome: "fail",
          cause: "end_state",
          reason: `End state differs at 1 path: ${ADDRESS2}: expected "Suite 641", got "Suite 614".`,
          forbidden_calls: [],
          hard_fail: false,
          judge_decided: false,
        },
        end_state: {
          pass: false,
          reason: `End state differs at 1 path: ${ADDRESS2}: expected "Suite 641", got "Suite 614".`,
          mismatches: [{ path: ADDRESS2, expected: "Suite 641", actual: "Suite 614" }],
          mismatch_count: 1,
          changes: [{ path: ADDRESS2, before: "Suite 640", after: "Suite 614" }],
          change_count: 1,
          expected_changes: [{ path: ADDRESS2, before: "Suite 640", after: "Suite 641" }],
          gold_attempt_id: expect.stringMatching(/^att_/),
        },
      });
    },
    SLOW,
  );

  it(
    "gives one task repeated five times, three passing by script, τ-bench's pass^k for 3 of 5",
    async () => {
      const gold = goldAgentTurns(task, maxIterations);
      const write = gold[gold.length - 2] as Turn;
      // Every repetition reads the same records; after the last read (order #W9389413, the only
      // result with item 4127323219) the 1st, 3rd and 4th repetition to get there make the gold
      // write, the others write Suite 614.
      await server.script(await connection(world.tenant, "agent-mixed"), {
        conversations: { [task.user.instruction]: withWrite(gold, "Suite 614") },
        injections: [{ contains: "4127323219", query: task.user.instruction, follow_on: [1, 3, 4], turn: write }],
      });
      await saveSuite(world, "repeated", oneTask("agent-mixed", 5));
      const run = await waitForRun(world, (await startRun(world, "repeated")).id);
      expect(run).toMatchObject({ status: "finished", verdict: "fail", runs: 5, passed: 3, failed: 2, errors: 0 });

      // τ-bench (run.py): pass^k = the mean over tasks of comb(c, k) / comb(n, k); here one task, c = 3, n = 5.
      const comb = (n: number, k: number): number => {
        if (k > n) return 0;
        let r = 1;
        for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
        return r;
      };
      const tau = Object.fromEntries([1, 2, 3, 4, 5].map((k) => [String(k), comb(3, k) / comb(5, k)]));
      expect(tau).toEqual({ "1": 0.6, "2": 0.3, "3": 0.1, "4": 0, "5": 0 });
      const scenarios = run.scenarios as Array<{ passed: number; pass_hat_k: Record<string, number> }>;
      expect(scenarios[0]?.passed).toBe(3);
      for (const [k, value] of Object.entries(tau)) {
        expect(scenarios[0]?.pass_hat_k[k]).toBeCloseTo(value, 12);
        expect((run.pass_hat_k as Record<string, number>)[k]).toBeCloseTo(value, 12);
      }
      const reasons = (await repetitions(world, String(run.id))).map((r) => r.reason).sort();
      expect(reasons).toEqual([
        `End state differs at 1 path: ${ADDRESS2}: expected "Suite 641", got "Suite 614".`,
        `End state differs at 1 path: ${ADDRESS2}: expected "Suite 641", got "Suite 614".`,
        "End state matches the gold calls' state.",
        "End state matches the gold calls' state.",
        "End state matches the gold calls' state.",
      ]);
    },
    SLOW,
  );
});
