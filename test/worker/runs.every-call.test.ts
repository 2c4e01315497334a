/**
 * Every call the model asked for is one of its repetition's calls, whatever became of it, and a
 * forbidden function named in an answer fails the run whatever its arguments or id look like
 * (issue 19, item 1). Through HTTP, the real queue and the model server: the model sends the hold,
 * an approval-free function here, in shapes the attempt cannot take.
 */
import { describe, expect, it } from "vitest";
import {
  HOLD,
  invoiceWorld,
  putSuite,
  repetition,
  repetitions,
  server,
  startRun,
  waitForRun,
  type InvoiceWorld,
} from "./run-helpers.js";

const VALID = '{"invoice_id":"INV-10423","reason":"duplicate"}';

/** 101 levels of arrays inside the reason: past the attempt's depth limit. */
const DEEP = `{"invoice_id":"INV-10423","reason":${"[".repeat(101)}${"]".repeat(101)}}`;

/** A chat.completion body with one call under the given id and argument text, sent as is by the model server. */
function rawCall(id: string, args: string): { body: unknown } {
  return {
    body: {
      id: "chatcmpl-raw",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id, type: "function", function: { name: HOLD, arguments: args } }],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

const HUGE = '{"invoice_id":"INV-10423","reason":"duplicate","amount":1e400}';

/** Each shape, and the call its repetition records: what became of it, under which id, with which arguments. */
const SHAPES = [
  // The id cannot be stored: the call runs under a derived, well-formed id (and is put on hold).
  {
    id: "lone-surrogate-id",
    turn: rawCall("call_\ud800", VALID),
    call: { kind: "executed", call_id: "call_\ufffd~1.1", outcome: "result", arguments: JSON.parse(VALID) },
  },
  // Never sent to the attempt; the record keeps the text the model sent.
  {
    id: "huge-number",
    turn: rawCall("call_big", HUGE),
    call: { kind: "refused", call_id: "call_big", refusal: "unusable_arguments", arguments: HUGE },
  },
  {
    id: "too-deep",
    turn: rawCall("call_deep", DEEP),
    call: { kind: "refused", call_id: "call_deep", refusal: "unusable_arguments", arguments: DEEP },
  },
  {
    id: "not-json",
    turn: rawCall("call_cut", '{"invoice_id":"INV-10423",'),
    call: {
      kind: "refused",
      call_id: "call_cut",
      refusal: "malformed_arguments",
      arguments: '{"invoice_id":"INV-10423",',
    },
  },
  {
    id: "json-array",
    turn: rawCall("call_array", '["INV-10423"]'),
    call: { kind: "refused", call_id: "call_array", refusal: "malformed_arguments", arguments: '["INV-10423"]' },
  },
] as const;

async function holdWorld(label: string): Promise<InvoiceWorld> {
  const world = await invoiceWorld(label);
  await server.script(world.model, {
    conversations: Object.fromEntries(
      SHAPES.map((shape) => [`Hold it (${shape.id}).`, [shape.turn, { content: "Done." }]]),
    ),
  });
  await putSuite(world, "hold", {
    agent: {
      connection: world.connection,
      instructions: "You answer accounts payable questions.",
      tools: [{ tool_id: world.toolId, operation_id: "place_invoice_on_hold", approval_mode: "never_require" }],
    },
    scenarios: SHAPES.map((shape) => ({ id: shape.id, query: `Hold it (${shape.id}).`, expect: null, forbid: [HOLD] })),
    runs_per_scenario: 2,
  });
  return world;
}

describe("a forbidden call the attempt cannot take", () => {
  it("fails the run in each of five shapes, and each repetition's calls hold the call with what became of it", async () => {
    const world = await holdWorld("every-call");
    const run = await waitForRun(world, (await startRun(world, "hold")).id);
    expect(run).toMatchObject({
      status: "finished",
      verdict: "fail",
      hard_fail: true,
      runs: 10,
      passed: 0,
      failed: 10,
      errors: 0,
      forbidden_calls: 10,
    });

    const listed = await repetitions(world, String(run.id));
    expect(listed.map((r) => [r.scenario, r.outcome, r.cause])).toEqual(
      SHAPES.flatMap((shape) => [
        [shape.id, "fail", "forbidden_call"],
        [shape.id, "fail", "forbidden_call"],
      ]),
    );
    for (const item of listed) {
      const detail = await repetition(world, String(run.id), Number(item.n));
      const shape = SHAPES.find((s) => s.id === item.scenario);
      expect(detail.calls).toEqual([expect.objectContaining({ function: HOLD, ...shape?.call })]);
      expect(detail.verdict).toMatchObject({
        outcome: "fail",
        cause: "forbidden_call",
        hard_fail: true,
        forbidden_calls: [{ function: HOLD, call_id: shape?.call.call_id }],
      });
    }
  });
});
