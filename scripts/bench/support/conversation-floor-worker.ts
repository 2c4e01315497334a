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
 *
 * The "toolproof" structure adds, still without any toolproof code, every hop and durable write
 * toolproof's design makes per repetition (runs/consumer/queue.ts and attempts/object.ts), each as
 * the cheapest statement that does it: the claim and the record at the run's own object, one
 * commit each; a new attempt object set up with the scenario's shared setup text stored in it and
 * its lease alarm set; the attempt's D1 row; per tool call an evidence row and the tool's state
 * written in one commit; the evidence and the final state read back for grading; once per task and
 * run, the gold calls replayed on an attempt of their own; and the release, which copies the
 * evidence to D1 in one batch of two statements, marks it copied, waits for the object's writes to
 * be durable and takes the object out of memory. What it still leaves out is toolproof's code:
 * the gap between this structure and toolproof is what the code costs, and the gap between it and
 * the plain floor is what the design's hops and writes cost.
 */
import { type ProbeWorker, startProbeWorker } from "./probe-worker.js";

/** Which steps the floor makes: only the model requests and tool calls, or toolproof's whole per-repetition structure too. */
export type FloorStructure = "calls" | "toolproof";

/**
 * Parts of toolproof's structure a run can leave out, to price each: the run object's claim and
 * record, the shared setup text stored in each attempt, the attempt's D1 row, the evidence and
 * state read back for grading, the gold replay, the evidence copy to D1, and leaving memory.
 */
export const STRUCTURE_PARTS = [
  "run",
  "setup-text",
  "attempt-row",
  "reads",
  "gold",
  "evidence-copy",
  "leave-memory",
] as const;
export type StructurePart = (typeof STRUCTURE_PARTS)[number];

const ROW = `const ROW = JSON.stringify({ tool: "get_order_details", arguments: { order_id: "#W8665881" }, result: { order_id: "#W8665881", status: "pending", items: [{ item_id: "1234567890", price: 99.5 }] } });`;

/** Runs the conversations `concurrency` at a time; `conversation(i)` is the structure's own. */
const SLOTS = `
    let next = 0;
    async function slot() {
      while (next < answers.length) await conversation(next++);
    }
    await Promise.all(Array.from({ length: concurrency }, slot));`;

/** The model request of conversation i's answer a, read whole. */
const ASK_MODEL = `
    async function ask(i, a) {
      const response = await fetch(model, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, conversation: i, answer: a }),
      });
      await response.json();
    }`;

const callsScript = `
import { DurableObject } from "cloudflare:workers";
export class Attempt extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS calls (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  }
  call(n) { this.ctx.storage.sql.exec("INSERT INTO calls (body) VALUES (?)", ROW + n); return "ok " + n; }
}
${ROW}
export default {
  async fetch(request, env) {
    const { answers, concurrency, model, body } = await request.json();
    ${ASK_MODEL}
    async function conversation(i) {
      const stub = env.ATTEMPT.get(env.ATTEMPT.idFromName("conversation-" + i));
      const n = answers[i];
      for (let a = 0; a < n; a++) {
        await ask(i, a);
        // Answers 1 to n - 3 are the agent's with tool calls (the user opens, the agent's last answer and the user's thanks make none).
        if (a >= 1 && a <= n - 3) await stub.call(a);
      }
    }
    ${SLOTS}
    return Response.json({ conversations: answers.length });
  },
};`;

const toolproofScript = `
import { DurableObject } from "cloudflare:workers";
${ROW}
export class Attempt extends DurableObject {
  setup(own, shared) {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS attempt (id INTEGER PRIMARY KEY, own TEXT NOT NULL, status TEXT NOT NULL, flushed_seq INTEGER NOT NULL DEFAULT 0)");
    sql.exec("CREATE TABLE IF NOT EXISTS attempt_setup (id INTEGER PRIMARY KEY, setup TEXT NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS calls (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS state (tool TEXT PRIMARY KEY, value TEXT NOT NULL)");
    sql.exec("INSERT OR IGNORE INTO attempt (id, own, status) VALUES (1, ?, 'active')", JSON.stringify(own));
    sql.exec("INSERT OR IGNORE INTO attempt_setup (id, setup) VALUES (1, ?)", shared);
    this.ctx.storage.setAlarm(own.expires_at);
    return "ok";
  }
  call(n) {
    const sql = this.ctx.storage.sql;
    sql.exec("INSERT INTO calls (body) VALUES (?)", ROW + n);
    sql.exec("INSERT INTO state (tool, value) VALUES ('retail', ?) ON CONFLICT (tool) DO UPDATE SET value = excluded.value", String(n));
    return "ok " + n;
  }
  calls() { return this.ctx.storage.sql.exec("SELECT seq, body FROM calls ORDER BY seq").toArray(); }
  state() { return this.ctx.storage.sql.exec("SELECT tool, value FROM state").toArray(); }
  async release(id, copyEvidence, leaveMemory) {
    const sql = this.ctx.storage.sql;
    const rows = sql.exec("SELECT seq, body FROM calls WHERE seq > (SELECT flushed_seq FROM attempt) ORDER BY seq").toArray();
    const db = this.env.DB;
    if (copyEvidence) await db.batch([
      db.prepare("UPDATE attempts SET status = 'released', state = ? WHERE id = ?").bind(JSON.stringify(this.state()), id),
      db.prepare("INSERT OR IGNORE INTO attempt_calls (attempt_id, seq, body) SELECT ?1, value ->> 0, value ->> 1 FROM json_each(?2)")
        .bind(id, JSON.stringify(rows.map((row) => [row.seq, row.body]))),
    ]);
    sql.exec("UPDATE attempt SET flushed_seq = ?", rows.length === 0 ? 0 : rows[rows.length - 1].seq);
    if (!leaveMemory) return rows.length;
    await this.ctx.storage.sync();
    setTimeout(() => this.ctx.abort("released"), 0);
    return rows.length;
  }
  alarm() {}
}
export class Run extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS repetitions (seq INTEGER PRIMARY KEY, status TEXT NOT NULL, record TEXT)");
  }
  claim(seq) {
    this.ctx.storage.sql.exec("INSERT INTO repetitions (seq, status) VALUES (?, 'claimed') ON CONFLICT (seq) DO UPDATE SET status = 'claimed'", seq);
    return { seq, attempt_id: "attempt-" + seq };
  }
  record(seq, record) {
    this.ctx.storage.sql.exec("UPDATE repetitions SET status = 'recorded', record = ? WHERE seq = ?", record, seq);
    return "ok";
  }
}
export default {
  async fetch(request, env) {
    const { answers, tasks, concurrency, model, body, shared, record, without } = await request.json();
    const skip = new Set(without);
    // Read once here, not carried over RPC and rebuilt at every release.
    const copyEvidence = !skip.has("evidence-copy");
    const leaveMemory = !skip.has("leave-memory");
    await env.DB.batch([
      env.DB.prepare("CREATE TABLE IF NOT EXISTS attempts (id TEXT PRIMARY KEY, status TEXT NOT NULL, state TEXT)"),
      env.DB.prepare("CREATE TABLE IF NOT EXISTS attempt_calls (attempt_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (attempt_id, seq))"),
    ]);
    const run = env.RUN.get(env.RUN.idFromName("run"));
    ${ASK_MODEL}
    async function attemptOf(id) {
      const stub = env.ATTEMPT.get(env.ATTEMPT.idFromName(id));
      await stub.setup({ attempt_id: id, token_hash: "0".repeat(64), expires_at: Date.now() + 3_600_000 }, skip.has("setup-text") ? "" : shared);
      if (!skip.has("attempt-row"))
        await env.DB.prepare("INSERT OR IGNORE INTO attempts (id, status) VALUES (?, 'active')").bind(id).run();
      return stub;
    }
    // Once per task and run, shared by its repetitions, as toolproof's gold replay is.
    const golds = new Map();
    function gold(task, calls) {
      let replay = golds.get(task);
      if (replay === undefined) {
        replay = (async () => {
          const id = "gold-" + task;
          const stub = await attemptOf(id);
          for (let c = 1; c <= calls; c++) await stub.call(c);
          if (!skip.has("reads")) {
            await stub.calls();
            await stub.state();
          }
          await stub.release(id, copyEvidence, leaveMemory);
        })();
        golds.set(task, replay);
      }
      return replay;
    }
    async function conversation(i) {
      const job = skip.has("run") ? { attempt_id: "attempt-" + i } : await run.claim(i);
      const stub = await attemptOf(job.attempt_id);
      const n = answers[i];
      for (let a = 0; a < n; a++) {
        await ask(i, a);
        if (a >= 1 && a <= n - 3) await stub.call(a);
      }
      if (!skip.has("reads")) await stub.calls();
      if (!skip.has("gold")) await gold(i % tasks, n - 3);
      if (!skip.has("reads")) await stub.state();
      if (!skip.has("run")) await run.record(i, record);
      await stub.release(job.attempt_id, copyEvidence, leaveMemory);
    }
    ${SLOTS}
    // What D1 ended up holding, for the caller to check: every attempt released, every call copied.
    const held = await env.DB.prepare(
      "SELECT (SELECT COUNT(*) FROM attempts WHERE status = 'released') AS released, (SELECT COUNT(*) FROM attempt_calls) AS calls",
    ).first();
    return Response.json({ conversations: answers.length, released_attempts: held.released, copied_calls: held.calls });
  },
};`;

/** Starts the floor Worker with its state in a fresh directory under `stateParent`. */
export function startConversationFloor(stateParent: string, structure: FloorStructure = "calls"): Promise<ProbeWorker> {
  return startProbeWorker({
    name: "conversation-floor",
    script: structure === "calls" ? callsScript : toolproofScript,
    binding: "ATTEMPT",
    className: "Attempt",
    stateParent,
    ...(structure === "toolproof" ? { moreObjects: { RUN: "Run" }, d1Binding: "DB" } : {}),
  });
}
