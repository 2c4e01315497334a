/**
 * Callbacks: when a run a webhook started ends, its result is POSTed to the webhook's
 * callback_url, signed the Standard Webhooks way with the webhook's secret (its current one, so a
 * rotated secret is the one the receiver holds).
 *
 * The coordinator, once the ended run is in D1, calls queueRunCallback; the POST is made by the
 * callback queue's consumer, never by the coordinator, so a slow or failing receiver holds up
 * nothing. Each attempt is recorded in callback_deliveries (GET /api/runs/:id/callbacks). A
 * non-2xx answer or an unreachable receiver is retried with doubling delays, at most
 * CALLBACK_MAX_ATTEMPTS attempts in all; every attempt carries the same webhook-id, so a receiver
 * that got one already can tell the retry for what it is.
 *
 * At most one POST per successful delivery: before POSTing, the consumer claims the run's send in
 * D1 (callback_sends, held for CALLBACK_HOLD_MS), and records the outcome with the attempt's row in
 * one batch. A message that finds the callback delivered is acknowledged without a POST (the queue
 * redelivering after a 2xx, the run's end enqueuing twice); one that finds another consumer
 * sending is retried later. The window left: a 2xx whose record D1 then refuses, or a consumer
 * that dies between the 2xx and the record, is POSTed again once the hold has passed (same
 * webhook-id).
 */
import { databaseOf } from "../../adapters/d1/database.js";
import { claimCallbackSend, settleCallbackSend } from "../../adapters/d1/callback-sends.js";
import { getRun, runTriggerOf, type RunRow } from "../../adapters/d1/runs.js";
import { isJsonObject } from "../../core/json.js";
import { findWebhookRow, recordCallbackAttempt } from "../../adapters/d1/webhooks.js";
import { sealingKey } from "../../adapters/secret-box.js";
import { signStandard } from "../../adapters/webhook-signature.js";
import type { Env } from "../platform/env.js";
import { progressOfRow, runView } from "./view.js";
import { openWebhookSecret } from "../http/webhook-secret.js";
import type { CallbackMessage } from "../platform/queue-messages.js";
import { messageOf } from "../../core/message-of.js";

export type { CallbackMessage };

/** wrangler.toml's name of the callback queue: the Worker's queue handler routes its batches here. */
export const CALLBACK_QUEUE_NAME = "toolproof-callbacks";
/** Attempts in all (wrangler.toml's max_retries for the queue is one less). */
const CALLBACK_MAX_ATTEMPTS = 6;
const DEFAULT_RETRY_DELAY_SECONDS = 10;
const MAX_RETRY_DELAY_SECONDS = 600;
/** How long a receiver may take to answer one attempt. */
const CALLBACK_TIMEOUT_MS = 10_000;
/** How long a consumer holds a run's send: past the POST's timeout, so a consumer that died mid-send frees it. */
const CALLBACK_HOLD_MS = CALLBACK_TIMEOUT_MS + 20_000;

function triggerOf(row: RunRow): Record<string, unknown> {
  try {
    const parsed = runTriggerOf(row);
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The hook the run coordinator calls once an ended run is in D1: queues the callback when the run has one. */
export async function queueRunCallback(env: Env, tenantId: string, runId: string): Promise<void> {
  const row = await getRun(databaseOf(env.DB), tenantId, runId);
  if (!row) return;
  const trigger = triggerOf(row);
  if (trigger.kind !== "webhook" || typeof trigger.callback_url !== "string") return;
  await env.CALLBACK_QUEUE.send({ kind: "callback", run_id: runId, tenant_id: tenantId } satisfies CallbackMessage, {
    contentType: "json",
  });
}

function isCallbackMessage(body: unknown): body is CallbackMessage {
  if (typeof body !== "object" || body === null) return false;
  return (
    Reflect.get(body, "kind") === "callback" &&
    typeof Reflect.get(body, "run_id") === "string" &&
    typeof Reflect.get(body, "tenant_id") === "string"
  );
}

/** base, 2·base, 4·base, ... seconds (CALLBACK_RETRY_DELAY_SECONDS, default 10), at most ten minutes. */
function callbackRetryDelaySeconds(env: Env, attempts: number): number {
  const configured = Number(env.CALLBACK_RETRY_DELAY_SECONDS);
  const base = Number.isFinite(configured) && configured >= 0 ? configured : DEFAULT_RETRY_DELAY_SECONDS;
  return Math.min(MAX_RETRY_DELAY_SECONDS, base * 2 ** Math.max(0, attempts - 1));
}

/** What the receiver gets: the run's verdict, its reasons and its per-scenario figures. */
function callbackPayload(row: RunRow, at: Date) {
  const view = runView(row, progressOfRow(row));
  return {
    type: "run.ended",
    timestamp: at.toISOString(),
    data: {
      id: view.id,
      url: `/api/runs/${view.id}`,
      suite: view.suite,
      suite_version: view.suite_version,
      label: view.label,
      status: view.status,
      verdict: view.verdict,
      pass_rate: view.pass_rate,
      hard_fail: view.hard_fail,
      hard_fail_reasons: view.hard_fail_reasons,
      reasons: view.reasons,
      error_reasons: view.error_reasons,
      runs: view.runs,
      passed: view.passed,
      failed: view.failed,
      errors: view.errors,
      scenarios: view.scenarios,
      trigger: view.trigger,
      finished_at: view.finished_at,
    },
  };
}

export async function callbackQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    if (!isCallbackMessage(message.body)) {
      console.error(
        "callback queue: dropping a message that is not {kind: callback, run_id, tenant_id}",
        JSON.stringify(message.body),
      );
      message.ack();
      continue;
    }
    const outcome = await deliver(message.body, env).catch((error: unknown) => ({ retry: true, note: String(error) }));
    if (!outcome.retry || message.attempts >= CALLBACK_MAX_ATTEMPTS) {
      if (outcome.retry)
        console.error(
          `callback queue: run ${message.body.run_id}: giving up after ${message.attempts} attempts (${outcome.note})`,
        );
      message.ack();
    } else {
      message.retry({ delaySeconds: callbackRetryDelaySeconds(env, message.attempts) });
    }
  }
}

/** One attempt, recorded; `retry` when another attempt could succeed. */
async function deliver(message: CallbackMessage, env: Env): Promise<{ retry: boolean; note: string }> {
  const db = databaseOf(env.DB);
  const row = await getRun(db, message.tenant_id, message.run_id);
  if (!row) return { retry: false, note: "no such run" };
  const trigger = triggerOf(row);
  const url = typeof trigger.callback_url === "string" ? trigger.callback_url : "";
  const webhookId = typeof trigger.webhook_id === "string" ? trigger.webhook_id : "";
  const at = new Date();
  const attempt = (status: number | null, error: string | null) =>
    recordCallbackAttempt(db, { run_id: row.id, tenant_id: row.tenant_id, url, status, error, at: at.toISOString() });

  const webhook = await findWebhookRow(db, webhookId);
  if (!webhook || webhook.deleted_at !== null) {
    await attempt(null, "not sent: the webhook that started the run is deleted");
    return { retry: false, note: "webhook deleted" };
  }
  const key = await sealingKey(env.TOOLPROOF_SECRET);
  const secret = key.ok ? await openWebhookSecret(key.key, webhook) : undefined;
  if (secret === undefined) {
    await attempt(null, "not sent: the webhook's secret does not open with this deployment's TOOLPROOF_SECRET");
    return { retry: false, note: "secret unreadable" };
  }

  // Claimed before the POST, so a redelivered message or a second enqueue of the run's end never POSTs a delivered callback again.
  const claim = await claimCallbackSend(db, row.id, at.getTime(), CALLBACK_HOLD_MS);
  if (claim === "delivered") return { retry: false, note: "delivered already" };
  if (claim === "busy") return { retry: true, note: "another delivery of this callback is sending it" };

  const body = JSON.stringify(callbackPayload(row, at));
  const id = `msg_${row.id}`;
  const timestamp = Math.floor(at.getTime() / 1000);
  let status: number | null = null;
  let error: string | null = null;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "toolproof-callbacks",
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signStandard(secret, id, timestamp, body),
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    });
    status = response.status;
    await response.body?.cancel();
    if (status < 200 || status > 299) error = `the receiver answered ${status}`;
  } catch (caught) {
    error = `the receiver could not be reached: ${messageOf(caught)}`;
  }
  await settleCallbackSend(
    db,
    { run_id: row.id, tenant_id: row.tenant_id, url, status, error, at: at.toISOString() },
    error === null,
  );
  return { retry: error !== null, note: error ?? "delivered" };
}
