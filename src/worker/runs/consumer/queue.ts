/**
 * The eval queue's consumer: one repetition per message.
 *
 * The repetition's attempt is set up by the delivery that first claims it (attempt-setup.ts), so
 * the attempts alive at once are bounded by the consumer's concurrency, not by the run's size.
 *
 * A message carries only its run id and repetition seq. The consumer asks the run's coordinator for
 * the job (a repetition already recorded, or a run that has ended, is acknowledged and dropped:
 * delivery is at least once), builds the ports (tool calls through the attempt's object, model
 * clients from the tenant's connections, each held to its max_concurrency), runs evaluateRepetition
 * and hands the record to the coordinator, which keeps the first record of each repetition.
 *
 * - A connection that cannot be used (deleted, its key unreadable) ends the repetition at once as
 *   an infrastructure error naming it; a 401 or an unknown model reaches evaluateRepetition as a
 *   ModelFailure and ends it the same way. Neither is retried: retrying cannot fix them.
 * - Anything that throws (a coordinator or attempt object unreachable, D1 refusing the evidence
 *   read) releases the repetition and retries the message with backoff; after max_retries
 *   (wrangler.toml) the queue moves it to the dead-letter queue, whose consumer (this same handler,
 *   told apart by the batch's queue name) records the repetition as an infrastructure error with
 *   the last error its deliveries met. A dead letter is never silently dropped.
 * - Messages of one batch run concurrently, EVAL_BATCH_CONCURRENCY at a time; once all have
 *   started, free slots take their runs' next repetitions ahead of their messages (take-ahead.ts).
 */
import { databaseOf } from "../../../adapters/d1/database.js";
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import { evaluateRepetition, notRunRecord } from "../../../core/evals/evaluate-repetition.js";
import { systemClock, type Clock, type ModelClient } from "../../../core/ports.js";
import type { Database, Env } from "../../platform/env.js";
import type { RunJob } from "../coordinator/replies.js";
import { schemaValidator } from "../../platform/services.js";
import { runStub } from "../coordinator/access.js";
import { answerBudget } from "./answer-budget.js";
import { attemptDispatcher, evidenceMark, evidenceSince, releaseAttempt } from "./attempt-ports.js";
import { ensureAttempt } from "./attempt-setup.js";
import { endStatePort } from "./end-state-ports.js";
import { batchConcurrency, forEachBounded, limitedClient } from "./concurrency.js";
import { EVAL_DEAD_LETTER_QUEUE_NAME, isEvalMessage } from "./messages.js";
import { runExternalJob } from "../external/job.js";
import { resolveUserModel } from "./user-model.js";
import { takeAheadSource, takeAheadWindowMs, type TakenJob } from "./take-ahead.js";

/** modelClientFor's shape (model-clients.ts): a tenant's stored connection as a ready client, or why not. */
type ModelClientResolver = (
  env: Env,
  db: Database,
  tenantId: string,
  name: string,
) => Promise<
  | {
      ok: true;
      client: ModelClient;
      connection: { name: string; model: string; max_concurrency: number; structured_output: boolean };
    }
  | { ok: false; message: string }
>;

/** Longest wait before a failed message is tried again. */
const MAX_RETRY_DELAY_SECONDS = 60;

export function evalQueueHandler(resolve: ModelClientResolver, clock: Clock = systemClock) {
  return async function queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    const concurrency = batchConcurrency(env.EVAL_BATCH_CONCURRENCY);
    if (batch.queue === EVAL_DEAD_LETTER_QUEUE_NAME) {
      await forEachBounded(batch.messages, concurrency, (message) => recordDeadLetter(message, env));
      return;
    }
    const resolveOnce = resolvedOncePerBatch(resolve);
    const windowMs = takeAheadWindowMs(env.EVAL_TAKE_AHEAD_SECONDS);
    const runIds = [...new Set(batch.messages.flatMap((m) => (isEvalMessage(m.body) ? [m.body.run_id] : [])))];
    await forEachBounded(
      batch.messages,
      concurrency,
      (message) => carryOut(message, env, resolveOnce, clock),
      windowMs > 0
        ? {
            next: takeAheadSource(env, runIds, clock, windowMs),
            work: (taken) => carryOutTaken(taken, env, resolveOnce, clock),
          }
        : undefined,
    );
  };
}

/**
 * Each connection read from D1 and opened (its key decrypted) once per batch, not once per
 * repetition: a batch of 100 repetitions of one suite names one or two connections.
 */
function resolvedOncePerBatch(resolve: ModelClientResolver): ModelClientResolver {
  const opened = new Map<string, ReturnType<ModelClientResolver>>();
  return (env, db, tenantId, name) => {
    const key = `${tenantId}\u0000${name}`;
    let found = opened.get(key);
    if (!found) {
      found = resolve(env, db, tenantId, name);
      opened.set(key, found);
      // A lookup that threw is not kept: the next repetition tries again.
      found.catch(() => opened.delete(key));
    }
    return found;
  };
}

async function carryOut(
  message: Message<unknown>,
  env: Env,
  resolve: ModelClientResolver,
  clock: Clock,
): Promise<void> {
  const body = message.body;
  if (!isEvalMessage(body)) {
    // Not a message this Worker sends: there is no repetition to record it against.
    console.error("eval queue: dropping a message that is not {run_id, seq}", JSON.stringify(body));
    message.ack();
    return;
  }
  const coordinator = runStub(env, body.run_id);
  try {
    const claim = await coordinator.claim(body.seq);
    if (claim.kind === "job") await runAndRecord(claim.job, env, resolve, clock);
    message.ack();
  } catch (error) {
    const text = errorText(error);
    console.error(
      `eval queue: repetition ${body.seq} of run ${body.run_id} failed (delivery ${message.attempts}); retrying`,
      text,
    );
    await coordinator
      .release(body.seq, text)
      .catch((releaseError: unknown) => console.error("eval queue: releasing the repetition failed", releaseError));
    message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
  }
}

/**
 * A repetition claimed ahead of its message (take-ahead.ts). A failure frees it as a failed
 * delivery would, and sends it a message of its own to be retried by, since the message it had
 * may already have been acknowledged while this delivery held it.
 */
async function carryOutTaken(taken: TakenJob, env: Env, resolve: ModelClientResolver, clock: Clock): Promise<void> {
  const { run_id, job } = taken;
  try {
    await runAndRecord(job, env, resolve, clock);
  } catch (error) {
    const text = errorText(error);
    console.error(`eval queue: repetition ${job.seq} of run ${run_id} (taken ahead) failed; sending it again`, text);
    await runStub(env, run_id)
      .release(job.seq, text, true)
      .catch((releaseError: unknown) => console.error("eval queue: releasing the repetition failed", releaseError));
    await env.EVAL_QUEUE.send(
      { run_id, seq: job.seq },
      { contentType: "json", delaySeconds: retryDelaySeconds(1) },
    ).catch((sendError: unknown) =>
      console.error("eval queue: sending the repetition again failed; the watchdog sends it", sendError),
    );
  }
}

/** Runs a claimed job and hands its record to the coordinator; throws what a retry could fix. */
async function runAndRecord(job: RunJob, env: Env, resolve: ModelClientResolver, clock: Clock): Promise<void> {
  const record = await runJob(job, env, resolve, clock);
  // Null: an external agent has its job and reports on its own (external/job.ts).
  if (record === null) return;
  const reply = await runStub(env, job.run_id).record(job.seq, record);
  if (reply.kind === "missing") console.error(`eval queue: run ${job.run_id} has no repetition ${job.seq}`);
  // An external agent's attempt stays until its completion is scored.
  await releaseAttempt(env, job);
}

/** One repetition, start to record (null while an external agent works). Only what retrying could fix is thrown. */
async function runJob(
  job: RunJob,
  env: Env,
  resolve: ModelClientResolver,
  clock: Clock = systemClock,
): Promise<RepetitionRecord | null> {
  const db = databaseOf(env.DB);
  const notRun = (infrastructure_error: string): RepetitionRecord =>
    notRunRecord({
      scenario_id: job.scenario.id,
      repetition: job.repetition,
      attempt_id: job.attempt_id,
      infrastructure_error,
      at: clock.now(),
    });
  // Set up now, not at the run's start: a run's attempts never all exist at once (attempt-setup.ts).
  await ensureAttempt(env, job);

  const runAgent = job.agent;
  if (runAgent.kind === "external") {
    const external = job.external;
    if (!external) return notRun("the external agent's repetition was claimed without its phase");
    // Only scoring needs the judge; sending the job must not wait on (or fail for) its connection.
    const judge = external.phase === "send" ? null : await resolveJudge(job, env, db, resolve);
    if (judge !== null && !judge.ok) return notRun(judge.message);
    return runExternalJob({ ...job, agent: runAgent, external }, env, judge?.judge ?? null, clock, (name) =>
      resolve(env, db, job.tenant_id, name),
    );
  }
  const agent = await resolve(env, db, job.tenant_id, runAgent.connection);
  if (!agent.ok)
    return notRun(`the agent's model connection "${runAgent.connection}" cannot be used: ${agent.message}`);
  const judgeFound = await resolveJudge(job, env, db, resolve);
  if (!judgeFound.ok) return notRun(judgeFound.message);
  const judge = judgeFound.judge;
  const userFound = await resolveUserModel(job, (name) => resolve(env, db, job.tenant_id, name));
  if (!userFound.ok) return notRun(userFound.message);

  // A later delivery runs on an attempt an earlier one may have called already: only its own calls count.
  const afterSeq = job.claim > 1 ? await evidenceMark(env, job.attempt_id) : 0;
  const { approval, tools, kind: _kind, ...agentSpec } = runAgent;
  return evaluateRepetition({
    scenario: job.scenario,
    repetition: job.repetition,
    attempt_id: job.attempt_id,
    agent: {
      ...agentSpec,
      client: answerBudget(
        limitedClient(agent.client, job.tenant_id, agent.connection.name, agent.connection.max_concurrency),
        agent.connection.name,
      ),
      tools,
      approval,
    },
    dispatcher: attemptDispatcher(env, job),
    executedCalls: () => evidenceSince(env, job.attempt_id, afterSeq),
    validator: schemaValidator(),
    judge,
    now: () => clock.now(),
    ...(job.scenario.end_state ? { endState: endStatePort(env, job, afterSeq) } : {}),
    ...(userFound.user_model === null ? {} : { user_model: userFound.user_model }),
  });
}

type JudgeInputs = NonNullable<Parameters<typeof evaluateRepetition>[0]["judge"]>;

/** The suite's judge as a ready client (null when the suite has none), or why it cannot be used. */
async function resolveJudge(
  job: RunJob,
  env: Env,
  db: Database,
  resolve: ModelClientResolver,
): Promise<{ ok: true; judge: JudgeInputs | null } | { ok: false; message: string }> {
  if (!job.judge) return { ok: true, judge: null };
  const found = await resolve(env, db, job.tenant_id, job.judge.connection);
  if (!found.ok)
    return {
      ok: false,
      message: `the judge's model connection "${job.judge.connection}" cannot be used: ${found.message}`,
    };
  return {
    ok: true,
    judge: {
      client: limitedClient(found.client, job.tenant_id, found.connection.name, found.connection.max_concurrency),
      connection: job.judge.connection,
      model: found.connection.model,
      threshold: job.judge.threshold,
      parameters: job.judge.parameters,
      structured_output: found.connection.structured_output,
    },
  };
}

async function recordDeadLetter(message: Message<unknown>, env: Env): Promise<void> {
  const body = message.body;
  if (!isEvalMessage(body)) {
    console.error("eval dead-letter queue: dropping a message that is not {run_id, seq}", JSON.stringify(body));
    message.ack();
    return;
  }
  try {
    const reply = await runStub(env, body.run_id).deadLetter(body.seq, null);
    if (reply.kind === "missing")
      console.error(`eval dead-letter queue: run ${body.run_id} has no repetition ${body.seq}`);
    message.ack();
  } catch (error) {
    console.error(
      `eval dead-letter queue: recording repetition ${body.seq} of run ${body.run_id} failed; retrying`,
      errorText(error),
    );
    message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
  }
}

/** 2, 4, 8, ... seconds, at most a minute. */
function retryDelaySeconds(attempts: number): number {
  return Math.min(MAX_RETRY_DELAY_SECONDS, 2 ** Math.max(1, attempts));
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
