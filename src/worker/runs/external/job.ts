/**
 * An external agent's repetition, as the eval queue's consumer carries it out (evals/queue.ts hands
 * every job whose agent is external here). Three phases, which the run's coordinator decides
 * when the delivery claims the repetition:
 *
 * - send: the job is POSTed to the agent's endpoint, signed the Standard Webhooks way with the
 *   suite's agent secret. A 2xx means the agent has it: nothing is recorded, the coordinator waits
 *   for the completion or the deadline, and agent_jobs marks the job accepted, so a delivery of
 *   the repetition that comes again (a consumer retry, a redelivery) never POSTs it a second time.
 *   A network failure, a 408, 425, 429 or 5xx is thrown, so the queue retries the message with
 *   backoff (each try carries the same webhook-id: an agent that took a job whose answer never
 *   came back, a timeout or a gateway's 502, must drop the retry by that id). Any other answer
 *   (a 4xx, a redirect) is the endpoint refusing the job for good: the repetition becomes an
 *   infrastructure error naming the status, never an agent pass or fail. A conversation scenario's
 *   job carries the user model's opening message, asked for and stored (in the run coordinator)
 *   before the first send, so every send of the job carries the same; an opening that ends the
 *   conversation (the stop token, or the user model failing) sends nothing and has it scored.
 * - score: the agent completed; its completion (stored on the attempt) and the attempt's evidence
 *   are scored exactly as the built-in runner's (evaluateExternalRepetition), judge included. The
 *   judge is called here, off the completion request, so a slow judge cannot hold that request.
 * - timed_out: the deadline passed without a completion: scored on what the agent did until then.
 */
import { databaseOf } from "../../../adapters/d1/database.js";
import {
  findAgentJob,
  findAgentSecret,
  markAgentJobAccepted,
  recordAgentJob,
} from "../../../adapters/d1/external-agents.js";
import { sealingKey } from "../../../adapters/secret-box.js";
import { signStandard } from "../../../adapters/webhook-signature.js";
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import {
  evaluateExternalRepetition,
  notRunRecord,
  type ExternalOutcome,
} from "../../../core/evals/evaluate-repetition.js";
import type { Clock } from "../../../core/ports.js";
import { attemptStub } from "../../attempts/access.js";
import type { Env } from "../../platform/env.js";
import { schemaValidator } from "../../platform/services.js";
import type { ExternalPhase, RunExternalAgent, RunJob } from "../coordinator/replies.js";
import { evidenceSince } from "../consumer/attempt-ports.js";
import { endStatePort } from "../consumer/end-state-ports.js";
import { externalAttemptToken } from "./attempt-token.js";
import { openAgentSecret } from "../../agent-secrets/agent-secret.js";
import { completionOutcome } from "./completion.js";
import { DEFAULT_USER_MAX_TURNS } from "../../../core/evals/conversation-types.js";
import {
  conversationOutcome,
  openConversation,
  type ExternalConversation,
} from "../../../core/evals/external-conversation.js";
import { askUser } from "../../../core/evals/user-turn.js";
import { sendRepetitions } from "../consumer/messages.js";
import { type ConnectionLookup, resolveUserModel } from "../consumer/user-model.js";
import { runStub } from "../coordinator/access.js";

/** How long an endpoint may take to accept a job (it should answer at once and work after). */
const JOB_TIMEOUT_MS = 15_000;
/** Statuses worth trying again: the endpoint may take the job later. */
const RETRYABLE = new Set([408, 425, 429]);

/** The judge as the consumer resolved it (the same shape evaluateRepetition takes). */
type ResolvedJudge = Parameters<typeof evaluateExternalRepetition>[0]["judge"];

/** The signed body a job carries: everything an agent needs to work on its attempt and report back. */
function jobPayload(
  job: RunJob & { agent: RunExternalAgent },
  phase: ExternalPhase,
  token: string,
  publicUrl: string,
  at: Date,
  conversation?: ExternalConversation,
) {
  const attempt = `${publicUrl}/api/attempts/${job.attempt_id}`;
  // A conversation's opening is the user model's first message: the query too, for an agent that reads only that.
  const opening = conversation?.user_messages[0];
  return {
    type: "attempt.job",
    timestamp: at.toISOString(),
    data: {
      run_id: job.run_id,
      scenario_id: job.scenario.id,
      repetition: job.repetition,
      repetition_seq: job.seq,
      query: opening ?? job.scenario.query,
      attempt_id: job.attempt_id,
      attempt_token: token,
      dispatch_url: `${attempt}/dispatch`,
      mcp_url: `${attempt}/mcp`,
      complete_url: `${attempt}/complete`,
      deadline: new Date(phase.deadline_at).toISOString(),
      tools: job.agent.tools.map((tool) => ({
        name: tool.name,
        approval_mode: job.agent.approval[tool.name] ?? "never_require",
      })),
      ...(opening === undefined
        ? {}
        : {
            conversation: {
              turn: 1,
              message: opening,
              max_turns: maxTurnsOf(job),
              turns_url: `${attempt}/turns`,
            },
          }),
    },
  };
}

/** User messages the agent may be sent in a conversation: the scenario's limit, else the suite's user model's. */
function maxTurnsOf(job: Pick<RunJob, "scenario" | "user_model">): number {
  return job.scenario.user?.max_turns ?? job.user_model?.max_turns ?? DEFAULT_USER_MAX_TURNS;
}

/** The webhook-id of a repetition's job: the same on every try, so an agent can drop a repeat. */
function jobMessageId(runId: string, seq: number): string {
  return `job_${runId}_${seq}`;
}

/** One delivery of an external repetition: a record when it is decided, null while the agent works. */
export async function runExternalJob(
  job: RunJob & { agent: RunExternalAgent; external: ExternalPhase },
  env: Env,
  judge: ResolvedJudge,
  clock: Clock,
  lookup: ConnectionLookup,
): Promise<RepetitionRecord | null> {
  const notRun = (infrastructure_error: string): RepetitionRecord =>
    notRunRecord({
      scenario_id: job.scenario.id,
      repetition: job.repetition,
      attempt_id: job.attempt_id,
      infrastructure_error,
      at: clock.now(),
    });
  if (job.external.phase === "send") {
    let conversation: ExternalConversation | undefined;
    if (job.scenario.user) {
      const opened = await openingOf(job, env, lookup);
      if (!opened.ok) return notRun(opened.message);
      // Over before it began: the coordinator marked it done, and the message sent here scores it.
      if (opened.score) {
        await sendRepetitions(env.EVAL_QUEUE, job.run_id, [job.seq]).catch((error: unknown) =>
          console.error("sending an ended conversation for scoring failed; the watchdog resends it", error),
        );
        return null;
      }
      conversation = opened.conversation;
    }
    const refused = await sendJob(job, job.external, env, clock, conversation);
    return refused === null ? null : notRun(refused);
  }
  let outcome: ExternalOutcome;
  if (job.external.phase === "timed_out") {
    outcome = timedOutOutcome(job.external.deadline_at);
  } else {
    const snapshot = await attemptStub(env, job.attempt_id).snapshot();
    if (snapshot.kind !== "ok") throw new Error(`attempt ${job.attempt_id} holds no attempt`);
    const read = completionOutcome(snapshot.snapshot.completion);
    // A conversation the user ended (or whose user model failed) may be scored with no completion.
    if (read) outcome = read;
    else if (job.conversation?.end) outcome = { kind: "no_completion" };
    else return notRun("the attempt's completion could not be read back");
  }
  return evaluateExternalRepetition({
    scenario: job.scenario,
    repetition: job.repetition,
    attempt_id: job.attempt_id,
    tools: job.agent.tools,
    outcome,
    // Every call on the attempt is the agent's: it holds the token, whichever delivery sent the job.
    executedCalls: () => evidenceSince(env, job.attempt_id, 0),
    validator: schemaValidator(),
    judge,
    started_at: jobStartedAt(job.external.deadline_at, job.agent),
    now: () => clock.now(),
    ...(job.scenario.end_state ? { endState: endStatePort(env, job, 0) } : {}),
    ...(job.conversation ? { conversation: conversationOutcome(job.conversation) } : {}),
  });
}

/**
 * A conversation's opening: the one stored by an earlier delivery, or the user model's first
 * message, asked for now and stored before the job carries it (a job sent again carries the same).
 */
async function openingOf(
  job: RunJob,
  env: Env,
  lookup: ConnectionLookup,
): Promise<{ ok: true; conversation: ExternalConversation; score: boolean } | { ok: false; message: string }> {
  if (job.conversation) return { ok: true, conversation: job.conversation, score: false };
  const user = job.scenario.user;
  const found = await resolveUserModel(job, lookup);
  if (!found.ok) return found;
  if (!user || found.user_model === null) return { ok: false, message: "the scenario is not a conversation" };
  const { client, connection, model, parameters } = found.user_model;
  const step = await askUser({ client, connection, parameters, instruction: user.instruction }, []);
  const stored = await runStub(env, job.run_id).openConversation(
    job.seq,
    openConversation({ connection, model }, step),
  );
  if (stored.kind !== "ok") throw new Error(`run ${job.run_id} has no repetition ${job.seq} to open a conversation on`);
  return { ok: true, conversation: stored.conversation, score: stored.score };
}

/** Why a repetition whose agent never completed fails, naming the deadline its job carried. */
/** When an external agent's job began: its deadline less the agent's time allowance. */
export function jobStartedAt(deadlineAt: number, agent: Pick<RunExternalAgent, "timeout_seconds">): number {
  return deadlineAt - agent.timeout_seconds * 1000;
}

export function timedOutOutcome(deadlineAt: number): ExternalOutcome {
  return {
    kind: "timed_out",
    reason: `the agent did not complete its attempt by its deadline (${new Date(deadlineAt).toISOString()})`,
  };
}

/** POSTs the job; answers null once the endpoint has it, or why it refused the job for good. Throws what a retry may fix. */
async function sendJob(
  job: RunJob & { agent: RunExternalAgent },
  phase: ExternalPhase,
  env: Env,
  clock: Clock,
  conversation: ExternalConversation | undefined,
): Promise<string | null> {
  const db = databaseOf(env.DB);
  const publicUrl = (env.TOOLPROOF_PUBLIC_URL ?? "").replace(/\/+$/, "");
  if (publicUrl === "") return "TOOLPROOF_PUBLIC_URL is not set, so the job cannot tell the agent where its attempt is";
  const key = await sealingKey(env.TOOLPROOF_SECRET);
  if (!key.ok) return key.message;
  const row = await findAgentSecret(db, job.tenant_id, job.agent.secret_name);
  if (!row)
    return `the agent secret "${job.agent.secret_name}" does not exist (PUT /api/agent-secrets/${job.agent.secret_name})`;
  const secret = await openAgentSecret(key.key, row);
  if (secret === undefined)
    return `the agent secret "${job.agent.secret_name}" does not open with this deployment's TOOLPROOF_SECRET; PUT it again`;

  // Recorded before the POST: an agent that completes at once must find its repetition.
  const existing = await findAgentJob(db, job.attempt_id);
  // The agent has this job already (a delivery that came again after its 2xx): a second POST would
  // run it twice on one attempt, and every call of both runs would count as the agent's.
  if (existing?.accepted_at) return null;
  if (!existing)
    await recordAgentJob(db, {
      attempt_id: job.attempt_id,
      tenant_id: job.tenant_id,
      run_id: job.run_id,
      seq: job.seq,
    });

  const at = new Date(clock.now());
  const token = await externalAttemptToken(env.TOOLPROOF_SECRET ?? "", job.attempt_id);
  const body = JSON.stringify(jobPayload(job, phase, token, publicUrl, at, conversation));
  const id = jobMessageId(job.run_id, job.seq);
  const timestamp = Math.floor(at.getTime() / 1000);
  // A failed connection says only "Network connection lost.": this repetition's dead letter keeps the
  // last error, so it must name the endpoint and what was tried, or the person reading cannot act on it.
  const tried = `delivery ${job.claim} of this repetition, each a signed POST with webhook-id ${id} and a ${JOB_TIMEOUT_MS / 1000} s timeout`;
  const response = await fetch(job.agent.endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "toolproof-jobs",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await signStandard(secret, id, timestamp, body),
    },
    body,
    redirect: "manual",
    signal: AbortSignal.timeout(JOB_TIMEOUT_MS),
  }).catch((error: unknown) => {
    const cause =
      error instanceof Error
        ? error.name === "TimeoutError"
          ? `no answer within ${JOB_TIMEOUT_MS / 1000} s`
          : error.message
        : String(error);
    throw new Error(`could not reach the agent endpoint ${job.agent.endpoint} to POST its job (${tried}): ${cause}`);
  });
  const text = (await response.text().catch(() => "")).slice(0, 200);
  if (response.status >= 200 && response.status <= 299) {
    // Not thrown: a retry after a 2xx is exactly the second POST this mark is there to prevent.
    await markAgentJobAccepted(db, job.attempt_id, new Date(clock.now()).toISOString()).catch((error: unknown) =>
      console.error(
        `external job: marking the job of attempt ${job.attempt_id} accepted failed; a redelivery would POST it again`,
        error,
      ),
    );
    return null;
  }
  const said = text === "" ? "" : `: ${text}`;
  if (response.status >= 500 || RETRYABLE.has(response.status))
    throw new Error(`the agent endpoint ${job.agent.endpoint} answered ${response.status}${said} (${tried})`);
  return `the agent endpoint refused the job (HTTP ${response.status}${said}); it was not sent again`;
}
