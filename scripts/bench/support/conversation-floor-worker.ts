/**
 * The floor under a conversation run: a throwaway Worker with no toolproof code in it that does
 * only the steps a conversation run cannot skip, on the same runtime toolproof runs on. Given each
 * conversation's number of model answers, it runs them `concurrency` at a time (a slot takes the
 * next conversation the moment its last one ends, so no slot ever waits on another), and each
 * conversation asks the model for its answers one after another; between two of the agent's
 * answers it makes one tool call, a Durable Object RPC on the conversation's own object that
 * inserts an evidence-sized row (one durable commit), as toolproof's attempt records each call.
 * Each model request carries a body of the given shape (the caller sizes it like toolproof's: the
 * API is stateless, so every request sends the tools and the conversation so far).
 *
 * What it leaves out is everything else toolproof does (the OpenAI client, the agent loop, schemas,
 * the engine, setting up an attempt from its pins and dataset, the gold replay, grading, recording
 * to the coordinator and D1), so its wall time is the least any implementation of that design
 * could reach on this runtime.
 */
import { type ProbeWorker, startProbeWorker } from "./probe-worker.js";

const script = `
import { DurableObject } from "cloudflare:workers";
export class Attempt extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS calls (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  }
  call(n) { this.ctx.storage.sql.exec("INSERT INTO calls (body) VALUES (?)", ROW + n); return "ok " + n; }
}
const ROW = JSON.stringify({ tool: "get_order_details", arguments: { order_id: "#W8665881" }, result: { order_id: "#W8665881", status: "pending", items: [{ item_id: "1234567890", price: 99.5 }] } });
export default {
  async fetch(request, env) {
    const { answers, concurrency, model, body } = await request.json();
    let next = 0;
    async function conversation(i) {
      const stub = env.ATTEMPT.get(env.ATTEMPT.idFromName("conversation-" + i));
      const n = answers[i];
      for (let a = 0; a < n; a++) {
        const response = await fetch(model, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...body, conversation: i, answer: a }),
        });
        await response.json();
        // Answers 1 to n - 3 are the agent's with tool calls (the user opens, the agent's last answer and the user's thanks make none).
        if (a >= 1 && a <= n - 3) await stub.call(a);
      }
    }
    async function slot() {
      while (next < answers.length) await conversation(next++);
    }
    await Promise.all(Array.from({ length: concurrency }, slot));
    return Response.json({ conversations: answers.length });
  },
};`;

/** Starts the floor Worker with its state in a fresh directory under `stateParent`. */
export function startConversationFloor(stateParent: string): Promise<ProbeWorker> {
  return startProbeWorker({
    name: "conversation-floor",
    script,
    binding: "ATTEMPT",
    className: "Attempt",
    stateParent,
  });
}
