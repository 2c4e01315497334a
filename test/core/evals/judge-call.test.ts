import { describe, expect, it } from "vitest";
import type { JudgeCall } from "../../../src/core/evals/agent-types.js";
import { callJudge } from "../../../src/core/evals/judge-call.js";
import type { ChatMessage, ChatRequest, ChatResult } from "../../../src/core/ports.js";
import { JUDGE_PROMPT_VERSION, JUDGE_RESPONSE_FORMAT, judgeMessages } from "../../../src/core/scoring/judge-prompt.js";
import { answer, failed, scriptedModel, TOOLS } from "./scripted.js";

const messages: ChatMessage[] = judgeMessages({
  query: "What's the status of INV-10431?",
  tool_definitions: TOOLS,
  calls: [
    {
      kind: "executed",
      function: "get_invoice",
      arguments: { invoice_id: "INV-10431" },
      call_id: "c1",
      outcome: "result",
      result: { status: "approved" },
    },
  ],
  final_answer: "It is approved.",
});
const GOOD = '{"score": 5, "reason": "One lookup of the invoice the user named."}';
const judged = (text: string | null, latency_ms: number): ChatResult => answer(text, [], latency_ms);
const SERVER_ERROR = {
  kind: "server_error" as const,
  status: 503,
  message: 'connection "judge": the endpoint answered 503 three times (upstream overloaded)',
  retryable: true,
};
const deterministic = { messages, temperature: 0, seed: 1 };
const usageOf = (answers: number) => ({ prompt_tokens: 100 * answers, completion_tokens: 20 * answers });

describe("callJudge", () => {
  it("scores from a good first answer, asking at temperature 0 with a seed and structured output", async () => {
    const model = scriptedModel([judged(GOOD, 300)]);
    const call = await callJudge({
      client: model.client,
      connection: "judge",
      messages,
      parameters: {},
      structured_output: true,
    });
    expect(call).toEqual<JudgeCall>({
      outcome: {
        kind: "score",
        score: 5,
        reason: "One lookup of the invoice the user named.",
        prompt_version: JUDGE_PROMPT_VERSION,
      },
      raw_answers: [GOOD],
      latency_ms: 300,
      usage: usageOf(1),
    });
    // The scoring core's schema, under its name (strict by default).
    expect(model.requests).toEqual([
      {
        ...deterministic,
        response_format: { name: "tool_call_accuracy", schema: JUDGE_RESPONSE_FORMAT.json_schema.schema },
      },
    ]);
  });

  it("leaves out response_format without structured output, and uses the suite's sampling parameters when they are set", async () => {
    const model = scriptedModel([judged(GOOD, 300)]);
    await callJudge({
      client: model.client,
      connection: "judge",
      messages,
      parameters: { temperature: 0.2, seed: 99, max_tokens: 300 },
      structured_output: false,
    });
    expect(model.requests).toEqual<ChatRequest[]>([{ messages, temperature: 0.2, seed: 99, max_tokens: 300 }]);
  });

  it("an explicitly undefined parameter keeps the default", async () => {
    const model = scriptedModel([judged(GOOD, 300)]);
    await callJudge({
      client: model.client,
      connection: "judge",
      messages,
      parameters: { temperature: undefined },
      structured_output: false,
    });
    expect(model.requests).toEqual<ChatRequest[]>([deterministic]);
  });

  it("retries a malformed answer with the same request and scores from the good one, keeping both raw answers", async () => {
    const model = scriptedModel([
      judged("Score: 4. The call was fine.", 200),
      judged('```json\n{"score": 4, "reason": "Correct lookup."}\n```', 250),
    ]);
    const call = await callJudge({
      client: model.client,
      connection: "judge",
      messages,
      parameters: {},
      structured_output: false,
    });
    expect(call).toEqual<JudgeCall>({
      outcome: { kind: "score", score: 4, reason: "Correct lookup.", prompt_version: JUDGE_PROMPT_VERSION },
      raw_answers: ["Score: 4. The call was fine.", '```json\n{"score": 4, "reason": "Correct lookup."}\n```'],
      latency_ms: 450,
      usage: usageOf(2),
    });
    expect(model.requests).toEqual([deterministic, deterministic]);
  });

  it("an always malformed or empty answer becomes a judge error after the attempts, naming each problem", async () => {
    const model = scriptedModel([
      judged('{"score": "4", "reason": "fine"}', 100),
      judged(null, 100),
      judged("   ", 100),
    ]);
    const call = await callJudge({
      client: model.client,
      connection: "judge",
      messages,
      parameters: {},
      structured_output: false,
      attempts: 3,
    });
    expect(call).toEqual<JudgeCall>({
      outcome: {
        kind: "error",
        message:
          'no usable answer after 3 attempts (1: score must be an integer from 1 to 5, got "4"; 2: the judge gave no answer; 3: the judge gave no answer)',
      },
      raw_answers: ['{"score": "4", "reason": "fine"}', null, "   "],
      latency_ms: 300,
      usage: usageOf(3),
    });
  });

  it("tries twice by default", async () => {
    const model = scriptedModel([judged("5", 100), judged("5", 100)]);
    const call = await callJudge({
      client: model.client,
      connection: "judge",
      messages,
      parameters: {},
      structured_output: false,
    });
    expect(call.outcome).toEqual({
      kind: "error",
      message:
        "no usable answer after 2 attempts (1: the answer is not a JSON object; 2: the answer is not a JSON object)",
    });
    expect(model.requests).toHaveLength(2);
  });

  it("reports an endpoint failure as model_failure, not as the judge's answer, keeping the answers before it", async () => {
    const model = scriptedModel([judged("not json", 100), failed(SERVER_ERROR)]);
    const call = await callJudge({
      client: model.client,
      connection: "judge",
      messages,
      parameters: {},
      structured_output: false,
    });
    expect(call).toEqual<JudgeCall>({
      outcome: { kind: "error", message: `the judge's endpoint failed: ${SERVER_ERROR.message}` },
      raw_answers: ["not json"],
      latency_ms: 100,
      usage: usageOf(1),
      model_failure: SERVER_ERROR,
    });
  });
});
