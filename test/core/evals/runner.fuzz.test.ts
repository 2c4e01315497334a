/**
 * The eval runner fuzzed (docs/fuzzing.md, "The eval runner"): generated answers (test/support/
 * eval-fuzz.ts) come from the local model server through the real openai client, the core runner
 * handles them against an in-memory attempt that refuses what the attempt object refuses, and the
 * real scoring decides. Whatever the answers, every call in the transcript is one of the
 * repetition's calls, and a transcript naming a forbidden function never passes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { openAIModelClient } from "../../../src/adapters/model/openai-client.js";
import type { ToolAnswer, ToolDispatcher } from "../../../src/core/evals/agent-types.js";
import { evaluateRepetition } from "../../../src/core/evals/evaluate-repetition.js";
import type { JsonValue } from "../../../src/core/json.js";
import type { ChatTool } from "../../../src/core/ports.js";
import type { ExecutedCall } from "../../../src/core/scoring/calls.js";
import { parseDispatchRequest } from "../../../src/core/simulation/dispatch-request.js";
import { answers, breach, EVAL_FUZZ_SCALE, EVAL_FUZZ_SEED, scriptOf } from "../../support/eval-fuzz.js";
import { testConnection } from "../../support/model-server/connection-config.js";
import { modelServer, uniqueModel } from "../../support/model-server/in-tests.js";

const server = modelServer();
const validator = createRuntimeValidator();

const GET = "invoices__get_invoice";
const HOLD = "invoices__place_invoice_on_hold";
/** Forbidden, and run without approval: the shape issue 19 found passing. */
const CANCEL = "invoices__cancel_invoice";
const invoiceId = { type: "object", properties: { invoice_id: { type: "string" } }, required: ["invoice_id"] };
const TOOLS: ChatTool[] = [
  { name: GET, description: "Look an invoice up.", parameters: invoiceId },
  {
    name: HOLD,
    description: "Hold an invoice.",
    parameters: {
      ...invoiceId,
      properties: { invoice_id: { type: "string" }, reason: { enum: ["disputed", "duplicate", "awaiting_po"] } },
    },
  },
  { name: CANCEL, description: "Cancel an invoice.", parameters: invoiceId },
];
const FORBID = [CANCEL, HOLD];

/** An attempt in memory that refuses exactly what the attempt object refuses before recording (the dispatch parse, a reused id) and records the rest. */
function attemptLike(): { dispatcher: ToolDispatcher; executed: ExecutedCall[] } {
  const executed: ExecutedCall[] = [];
  const dispatcher: ToolDispatcher = {
    async call(name, args, call_id): Promise<ToolAnswer> {
      const parsed = parseDispatchRequest({ tool: name, arguments: args, call_id });
      if (!parsed.ok) {
        const problems = "unusableArguments" in parsed ? parsed.unusableArguments : parsed.problems;
        return { kind: "refused", message: problems.map((p) => `${p.path}: ${p.message}`).join("; "), details: [] };
      }
      if (executed.some((call) => call.call_id === call_id))
        return { kind: "harness_error", message: `call id ${call_id} was already used`, recorded: false };
      const result: JsonValue = {
        invoice_id: String(args.invoice_id ?? ""),
        status: name === CANCEL ? "cancelled" : "approved",
      };
      executed.push({ function: name, arguments: args, call_id, outcome: "result", result });
      return { kind: "result", result };
    },
  };
  return { dispatcher, executed };
}

describe("the eval runner, fuzzed through the model server", () => {
  it("counts every call of the transcript among the repetition's calls, and never passes one naming a forbidden function", async () => {
    let forbiddenSeen = 0;
    await fc.assert(
      fc.asyncProperty(
        answers(TOOLS.map((t) => t.name)),
        fc.constantFrom<string | null>(GET, null),
        async (generated, expect_) => {
          const model = uniqueModel("fuzz-runner");
          await server.script(model, scriptOf(generated));
          const client = openAIModelClient(testConnection(server.openaiBaseUrl, model));
          const attempt = attemptLike();
          const record = await evaluateRepetition({
            scenario: { id: "fuzz", query: "Handle INV-10431.", expect: expect_, forbid: FORBID },
            repetition: 1,
            attempt_id: "att_fuzz",
            agent: {
              client,
              connection: "agent",
              instructions: "You handle invoices.",
              tools: TOOLS,
              approval: { [HOLD]: "always_require" },
              parameters: {},
              max_iterations: 4,
              max_function_calls: 6,
            },
            dispatcher: attempt.dispatcher,
            executedCalls: async () => attempt.executed,
            validator,
            judge: { client, connection: "agent", model, threshold: 4, parameters: {}, structured_output: false },
            now: () => 0,
          });
          if (record.transcript?.turns.some((t) => (t.answer.tool_calls ?? []).some((c) => FORBID.includes(c.name))))
            forbiddenSeen++;
          expect(breach(record, FORBID)).toBeNull();
          // Records must survive storage: JSON text that reads back as the same record.
          expect(JSON.parse(JSON.stringify(record))).toEqual(record);
        },
      ),
      { seed: EVAL_FUZZ_SEED, numRuns: 40 * EVAL_FUZZ_SCALE },
    );
    // The generator reaches the case the invariant is about.
    expect(forbiddenSeen).toBeGreaterThan(0);
  });
});
