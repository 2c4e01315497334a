/**
 * The eval queue's messages: the run id and the repetition's seq, nothing else. The coordinator
 * holds the job, so a message is tiny, and a message redelivered or resent by the watchdog finds
 * out from the coordinator whether its repetition still needs running.
 */
import type { EvalMessage } from "../../platform/queue-messages.js";

export type { EvalMessage };

/** wrangler.toml's queue names: the consumer tells a dead letter by the queue its batch came from. */
export const EVAL_QUEUE_NAME = "toolproof-evals";
export const EVAL_DEAD_LETTER_QUEUE_NAME = "toolproof-evals-dlq";

/** Cloudflare Queues takes at most 100 messages per sendBatch. */
const MAX_BATCH = 100;

export function isEvalMessage(body: unknown): body is EvalMessage {
  if (typeof body !== "object" || body === null) return false;
  const runId: unknown = Reflect.get(body, "run_id");
  const seq: unknown = Reflect.get(body, "seq");
  return typeof runId === "string" && typeof seq === "number" && Number.isInteger(seq) && seq >= 1;
}

/** Sends one message per repetition, in batches of at most 100. */
export async function sendRepetitions(
  queue: Queue<EvalMessage>,
  runId: string,
  seqs: readonly number[],
): Promise<void> {
  for (let i = 0; i < seqs.length; i += MAX_BATCH) {
    await queue.sendBatch(
      seqs.slice(i, i + MAX_BATCH).map((seq) => ({ body: { run_id: runId, seq }, contentType: "json" as const })),
    );
  }
}
