/**
 * The eval runner fuzzed end to end (docs/fuzzing.md, "The eval runner"): a few whole runs in
 * workerd, through HTTP, the real queue, the attempt objects and storage, of a model whose answers
 * are generated (test/support/eval-fuzz.ts). The forbidden hold runs without approval here, the
 * shape issue 19 found passing. Every repetition's calls account for every call of its transcript,
 * and a run whose answers name the forbidden function is never a pass. The core fuzz test
 * (test/core/evals/runner.fuzz.test.ts) covers many more answers; this one checks that storage and
 * the attempt objects keep the same promise.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  answers,
  breach,
  type CheckedRecord,
  EVAL_FUZZ_SCALE,
  EVAL_FUZZ_SEED,
  scriptOf,
  type GeneratedAnswer,
} from "../support/eval-fuzz.js";
import {
  GET,
  HOLD,
  invoiceWorld,
  putSuite,
  repetition,
  repetitions,
  server,
  startRun,
  waitForRun,
} from "./run-helpers.js";

const QUERIES = ["Look INV-10431 up.", "Pay INV-10423."] as const;

describe("runs of generated answers", () => {
  it(
    "count every call of each transcript among the repetition's calls, and never pass when the forbidden hold was asked for",
    async () => {
      const world = await invoiceWorld("fuzz-runs");
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(answers([GET, HOLD]), answers([GET, HOLD])),
          async (generated: [GeneratedAnswer[], GeneratedAnswer[]]) => {
            run++;
            const [first, second] = generated.map(scriptOf);
            await server.script(world.model, {
              conversations: { [QUERIES[0]]: first?.default ?? [], [QUERIES[1]]: second?.default ?? [] },
              judge_default: first?.judge_default ?? [],
            });
            await putSuite(world, `fuzz-${run}`, {
              agent: {
                connection: world.connection,
                instructions: "You handle invoices.",
                tools: [
                  { tool_id: world.toolId, operation_id: "get_invoice", approval_mode: "never_require" },
                  { tool_id: world.toolId, operation_id: "place_invoice_on_hold", approval_mode: "never_require" },
                ],
              },
              scenarios: [
                { id: "lookup", query: QUERIES[0], expect: GET, forbid: [HOLD] },
                { id: "pay", query: QUERIES[1], expect: null, forbid: [HOLD] },
              ],
              runs_per_scenario: 1,
              judge: { connection: world.connection },
            });
            const ended = await waitForRun(world, (await startRun(world, `fuzz-${run}`)).id);
            let forbidden = false;
            for (const item of await repetitions(world, String(ended.id))) {
              // SAFETY: the documented repetition shape (GET /api/runs/:id/repetitions/:n).
              const detail = (await repetition(world, String(ended.id), Number(item.n))) as unknown as CheckedRecord;
              expect(breach(detail, [HOLD])).toBeNull();
              forbidden ||= (detail.transcript?.turns ?? []).some((t) =>
                (t.answer.tool_calls ?? []).some((c) => c.name === HOLD),
              );
            }
            if (forbidden) expect([ended.verdict, ended.hard_fail]).toEqual(["fail", true]);
          },
        ),
        { seed: EVAL_FUZZ_SEED, numRuns: 3 * EVAL_FUZZ_SCALE },
      );
    },
    60_000 * EVAL_FUZZ_SCALE,
  );
});
