/**
 * The most a repetition's agent answers may add up to. One answer is bounded by the adapter
 * (MAX_ANSWER_BYTES); a conversation of many large answers still has to fit the repetition's
 * record, which keeps every answer twice (the messages and the turns) in one SQLite value of at
 * most 2 MB (the run's Durable Object, then D1), beside the tool results and the judge's call.
 * Past the budget the conversation ends as a model failure naming it: recorded once, never retried.
 */
import type { ChatAnswer, ModelClient } from "../../../core/ports.js";

export const MAX_REPETITION_ANSWER_BYTES = 384 * 1024;

/** A client for one repetition (wrap it per repetition: it counts what it has read). */
export function answerBudget(
  client: ModelClient,
  connection: string,
  maxBytes: number = MAX_REPETITION_ANSWER_BYTES,
): ModelClient {
  let used = 0;
  return {
    async chat(request) {
      const result = await client.chat(request);
      if (!result.ok) return result;
      used += answerBytes(result.answer);
      if (used <= maxBytes) return result;
      return {
        ok: false,
        failure: {
          kind: "answer_too_large",
          status: 200,
          message: `connection "${connection}": the model's answers in this repetition add up to more than ${maxBytes} bytes, the most toolproof keeps of one repetition's answers; the conversation ends here and is not retried`,
          retryable: false,
        },
      };
    },
  };
}

function answerBytes(answer: ChatAnswer): number {
  const encoder = new TextEncoder();
  const texts = [answer.content ?? "", ...answer.tool_calls.flatMap((call) => [call.id, call.name, call.arguments])];
  return texts.reduce((sum, text) => sum + encoder.encode(text).byteLength, 0);
}
