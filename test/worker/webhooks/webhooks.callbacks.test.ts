/**
 * Callbacks: when a run a webhook started ends, its verdict and figures are POSTed to the
 * webhook's callback_url, Standard-Webhooks-signed with the webhook's secret, through the callback
 * queue, retried with doubling delays while the receiver fails, each attempt visible at
 * GET /api/runs/:id/callbacks. The receiver is a real HTTP server in Node
 * (test/support/receiver); the signature is checked here with node:crypto.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { createHmac } from "node:crypto";
import { beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { receiver } from "../../support/receiver/in-tests.js";
import worker from "../../../src/worker/index.js";
import { CALLBACK_QUEUE_NAME, queueRunCallback, type CallbackMessage } from "../../../src/worker/runs/callbacks.js";
import type { Env } from "../../../src/worker/platform/env.js";
import { claimCallbackSend, settleCallbackSend } from "../../../src/adapters/d1/callback-sends.js";
import { call, db } from "../helpers.js";
import { readRun, startRun, waitForRun, type InvoiceWorld } from "../run-helpers.js";
import { createWebhook, deliver, nowSeconds, standardHeaders, webhookWorld } from "../webhook-helpers.js";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const receivers = receiver();

let world: InvoiceWorld;

beforeAll(async () => {
  world = await webhookWorld("callbacks");
});

interface Attempt {
  attempt: number;
  url: string;
  status: number | null;
  error: string | null;
  at: string;
}

async function callbacks(runId: string): Promise<Attempt[]> {
  const response = await call("GET", `/api/runs/${runId}/callbacks`, { key: world.tenant.key });
  expect(response.status).toBe(200);
  // SAFETY: the documented shape.
  return ((await response.json()) as { items: Attempt[] }).items;
}

/** Polls the run's callback attempts until `done` holds; a callback that never comes is caught by the hung-test timeout. */
async function waitForCallbacks(runId: string, done: (attempts: Attempt[]) => boolean): Promise<Attempt[]> {
  let last: Attempt[] = [];
  onTestFailed(() =>
    console.error(`callbacks of ${runId} as last read before the test failed: ${JSON.stringify(last)}`),
  );
  for (;;) {
    last = await callbacks(runId);
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startedByDelivery(hook: { id: string; secret: string }, deliveryId: string): Promise<string> {
  const body = JSON.stringify({ release: "2026.12.1" });
  const response = await deliver(hook.id, standardHeaders(hook.secret, deliveryId, nowSeconds(), body), body);
  expect(response.status).toBe(202);
  // SAFETY: the 202 body.
  return ((await response.json()) as { run_id: string }).run_id;
}

/** Standard Webhooks verification, written from the spec: HMAC-SHA256 of id.timestamp.body under the base64 key after whsec_. */
function signatureOf(secret: string, headers: Record<string, string>, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`).digest("base64")}`;
}

describe("a run with a callback_url", () => {
  it("POSTs its verdict and figures, signed with the webhook's secret, retrying a receiver that fails twice", async () => {
    await receivers.script("fails-twice", [500, 503]);
    const url = receivers.urlOf("fails-twice");
    const hook = await createWebhook(world, { suite: "invoicedesk", callback_url: url, label: "nightly" });
    const runId = await startedByDelivery(hook, "msg_cb_1");
    await waitForRun(world, runId);

    const attempts = await waitForCallbacks(runId, (items) => items.some((item) => item.status === 200));
    expect(attempts).toEqual([
      { attempt: 1, url, status: 500, error: "the receiver answered 500", at: ISO },
      { attempt: 2, url, status: 503, error: "the receiver answered 503", at: ISO },
      { attempt: 3, url, status: 200, error: null, at: ISO },
    ]);

    const received = await receivers.requests("fails-twice");
    expect(received.map((request) => request.status)).toEqual([500, 503, 200]);
    // Backoff: 1 s, then 2 s (CALLBACK_RETRY_DELAY_SECONDS is 1 in the tests).
    const [first, second, third] = received.map((request) => request.at);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(900);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(1900);

    const run = await readRun(world, runId);
    for (const request of received) {
      expect(request.headers["webhook-signature"]).toBe(signatureOf(hook.secret, request.headers, request.body));
      // The same message id on every attempt, so a receiver can tell a retry; a fresh timestamp on each.
      expect(request.headers["webhook-id"]).toBe(`msg_${runId}`);
      expect(Math.abs(Number(request.headers["webhook-timestamp"]) - nowSeconds())).toBeLessThan(60);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(request.body)).toEqual({
        type: "run.ended",
        timestamp: ISO,
        data: {
          id: runId,
          url: `/api/runs/${runId}`,
          suite: "invoicedesk",
          suite_version: 1,
          label: "nightly",
          status: "finished",
          verdict: "pass",
          pass_rate: 1,
          hard_fail: false,
          hard_fail_reasons: [],
          reasons: run.reasons,
          error_reasons: [],
          runs: 5,
          passed: 5,
          failed: 0,
          errors: 0,
          scenarios: run.scenarios,
          trigger: {
            kind: "webhook",
            webhook_id: hook.id,
            format: "standard",
            delivery_id: "msg_cb_1",
            callback_url: url,
          },
          finished_at: run.finished_at,
        },
      });
    }
    // A tampered body does not verify against the signature sent.
    const last = received[2];
    expect(last && signatureOf(hook.secret, last.headers, last.body.replace('"pass"', '"fail"'))).not.toBe(
      last?.headers["webhook-signature"],
    );
  }, 40_000);

  it("records an unreachable receiver's attempt with the reason", async () => {
    // Port 9 (discard) on loopback: nothing listens there in the test environment.
    const url = "http://127.0.0.1:9/toolproof";
    const hook = await createWebhook(world, { suite: "invoicedesk", callback_url: url });
    const runId = await startedByDelivery(hook, "msg_cb_unreachable");
    await waitForRun(world, runId);
    const [first] = await waitForCallbacks(runId, (items) => items.length >= 1);
    expect(first).toEqual({
      attempt: 1,
      url,
      status: null,
      error: expect.stringMatching(/^the receiver could not be reached: /),
      at: ISO,
    });
  }, 20_000);
});

let callbackMessages = 0;

/** Hands the callback queue's consumer one batch as the broker would (the message's attempt number given), and answers what it acked and retried. */
async function deliverCallback(message: CallbackMessage, attempts = 1): Promise<{ acked: number; retried: number }> {
  const batch = createMessageBatch<CallbackMessage>(CALLBACK_QUEUE_NAME, [
    { id: `cb-${++callbackMessages}`, timestamp: new Date(), attempts, body: message },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  const result = await getQueueResult(batch, ctx);
  return { acked: result.explicitAcks.length, retried: result.retryMessages.length };
}

describe("a callback delivered again", () => {
  it("is POSTed once: the queue redelivering a delivered callback, or two enqueues racing, send nothing more", async () => {
    await receivers.script("once", []);
    const url = receivers.urlOf("once");
    const hook = await createWebhook(world, { suite: "invoicedesk", callback_url: url });
    const runId = await startedByDelivery(hook, "msg_cb_once");
    await waitForRun(world, runId);
    await waitForCallbacks(runId, (items) => items.some((item) => item.status === 200));

    const message: CallbackMessage = { kind: "callback", run_id: runId, tenant_id: world.tenant.id };
    // A redelivery after the 2xx (its ack lost), then two copies at once (the run's end enqueued twice).
    expect(await deliverCallback(message, 2)).toEqual({ acked: 1, retried: 0 });
    expect(await Promise.all([deliverCallback(message), deliverCallback(message)])).toEqual([
      { acked: 1, retried: 0 },
      { acked: 1, retried: 0 },
    ]);
    expect(
      (await receivers.requests("once")).map((request) => [request.status, request.headers["webhook-id"]]),
    ).toEqual([[200, `msg_${runId}`]]);
    expect(await callbacks(runId)).toEqual([{ attempt: 1, url, status: 200, error: null, at: ISO }]);
  }, 30_000);
});

describe("a callback's send, claimed in D1", () => {
  it("is held by one consumer at a time, freed by a failure or when the hold runs out, and closed for good by a 2xx", async () => {
    const runId = `run_claim_${crypto.randomUUID().slice(0, 8)}`;
    const attempt = (status: number | null, at: number) => ({
      run_id: runId,
      tenant_id: world.tenant.id,
      url: "https://ci.example.com/cb",
      status,
      error: status === 200 ? null : "failed",
      at: new Date(at).toISOString(),
    });
    const t = 1_800_000_000_000;
    const steps = [
      await claimCallbackSend(db(), runId, t, 30_000),
      await claimCallbackSend(db(), runId, t + 1, 30_000),
      // The holder died mid-send: once its hold has run out, another consumer may send.
      await claimCallbackSend(db(), runId, t + 30_000, 30_000),
    ];
    await settleCallbackSend(db(), attempt(503, t + 30_001), false);
    steps.push(await claimCallbackSend(db(), runId, t + 30_002, 30_000));
    await settleCallbackSend(db(), attempt(200, t + 30_003), true);
    steps.push(
      await claimCallbackSend(db(), runId, t + 30_004, 30_000),
      await claimCallbackSend(db(), runId, t + 999_999, 30_000),
    );
    expect(steps).toEqual(["claimed", "busy", "claimed", "claimed", "delivered", "delivered"]);
    // Each settle wrote its attempt's row in the same batch.
    const rows = await env.DB.prepare(
      "SELECT attempt, status FROM callback_deliveries WHERE run_id = ? ORDER BY attempt",
    )
      .bind(runId)
      .all<{ attempt: number; status: number | null }>();
    expect(rows.results).toEqual([
      { attempt: 1, status: 503 },
      { attempt: 2, status: 200 },
    ]);
  });
});

describe("runs without a callback", () => {
  it("list no attempts: a webhook without callback_url, and a run started over the API", async () => {
    const hook = await createWebhook(world, { suite: "invoicedesk" });
    const hooked = await startedByDelivery(hook, "msg_no_cb");
    const api = await startRun(world, "invoicedesk");
    const withUrl = await startedByDelivery(
      await createWebhook(world, { suite: "invoicedesk", callback_url: "https://ci.example.com/cb" }),
      "msg_with_cb",
    );
    await Promise.all([waitForRun(world, hooked), waitForRun(world, api.id), waitForRun(world, withUrl)]);
    // queueRunCallback is the one sender of callback messages (the coordinator calls it once the
    // ended run is in D1): asked with a queue that counts, it sends for the run with a callback_url
    // only. No waiting for a callback that must not come.
    const sent: string[] = [];
    // SAFETY: the test env with its callback queue replaced by one that records what it is sent.
    const counting = {
      ...env,
      CALLBACK_QUEUE: { send: async (message: CallbackMessage) => void sent.push(message.run_id) },
    } as unknown as Env;
    for (const runId of [hooked, api.id, withUrl]) await queueRunCallback(counting, world.tenant.id, runId);
    expect(sent).toEqual([withUrl]);
    expect(await callbacks(hooked)).toEqual([]);
    const response = await call("GET", `/api/runs/${api.id}/callbacks`, { key: world.tenant.key });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 200,
      body: { run: api.id, items: [] },
    });
    const missing = await call("GET", "/api/runs/run_nope/callbacks", { key: world.tenant.key });
    expect({ status: missing.status, body: await missing.json() }).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "run not found" } },
    });
  });
});
