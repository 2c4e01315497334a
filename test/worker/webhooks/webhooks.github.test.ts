/**
 * GitHub deliveries: X-Hub-Signature-256 over the raw body, the webhook's event filter deciding
 * (other events and other actions or states answered 202 ignored and recorded), ping answered
 * 200, the commit and ref of each event kind recorded on the run it starts, X-GitHub-Delivery as
 * the replay key.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readRun, waitForRun, type InvoiceWorld } from "../run-helpers.js";
import {
  createWebhook,
  deliver,
  deliveries,
  githubHeaders,
  standardHeaders,
  nowSeconds,
  UNVERIFIED_BODY,
  webhookWorld,
  type CreatedWebhook,
} from "../webhook-helpers.js";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const SHA = "9f2c1e0b7a6d5c4b3a29180716f5e4d3c2b1a098";
const REPOSITORY = { full_name: "contoso/invoicedesk-agent" };

const deploymentStatus = (state: string) => ({
  deployment_status: { state },
  deployment: { sha: SHA, ref: "main" },
  repository: REPOSITORY,
});
const pullRequest = (action: string) => ({
  action,
  pull_request: { number: 42, head: { sha: SHA, ref: "feature/holds" } },
  repository: REPOSITORY,
});

let world: InvoiceWorld;
let hook: CreatedWebhook;

beforeAll(async () => {
  world = await webhookWorld("github");
  hook = await createWebhook(world, {
    suite: "invoicedesk",
    format: "github",
    events: [
      { event: "deployment_status", states: ["success"] },
      { event: "pull_request", actions: ["opened", "synchronize"] },
      { event: "push" },
    ],
  });
});

async function send(
  event: string,
  delivery: string,
  payload: unknown,
  secret = hook.secret,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify(payload);
  const response = await deliver(hook.id, githubHeaders(secret, event, delivery, body), body);
  // SAFETY: every answer of the route is a JSON object.
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("a GitHub webhook", () => {
  it("is created with its filter and a secret, and reads back without it", async () => {
    expect(hook).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: `/api/webhooks/${hook.id}`,
      suite: "invoicedesk",
      format: "github",
      runs_per_scenario: null,
      label: null,
      callback_url: null,
      events: [
        { event: "deployment_status", states: ["success"] },
        { event: "pull_request", actions: ["opened", "synchronize"] },
        { event: "push" },
      ],
      created_by: world.tenant.keyId,
      created_at: ISO,
      rotated_at: null,
      secret: expect.stringMatching(/^whsec_/),
    });
  });

  it("starts a run for a successful deployment, with the deployment's commit and ref on the run", async () => {
    const answer = await send("deployment_status", "d-success-1", deploymentStatus("success"));
    expect(answer).toEqual({
      status: 202,
      body: {
        run_id: expect.stringMatching(/^run_/),
        delivery_id: "d-success-1",
        replayed: false,
        status: "queued",
        total_repetitions: 5,
      },
    });
    const runId = String(answer.body.run_id);
    expect((await waitForRun(world, runId)).trigger).toEqual({
      kind: "webhook",
      webhook_id: hook.id,
      format: "github",
      delivery_id: "d-success-1",
      event: "deployment_status",
      state: "success",
      commit: SHA,
      ref: "main",
      repository: REPOSITORY.full_name,
    });
  });

  it("records the head commit and branch of a pull request, and a push's after and ref", async () => {
    const opened = await send("pull_request", "pr-opened-1", pullRequest("synchronize"));
    expect(opened.status).toBe(202);
    expect((await readRun(world, String(opened.body.run_id))).trigger).toEqual({
      kind: "webhook",
      webhook_id: hook.id,
      format: "github",
      delivery_id: "pr-opened-1",
      event: "pull_request",
      action: "synchronize",
      commit: SHA,
      ref: "feature/holds",
      repository: REPOSITORY.full_name,
    });
    const pushed = await send("push", "push-1", { ref: "refs/heads/main", after: SHA, repository: REPOSITORY });
    expect(pushed.status).toBe(202);
    expect((await readRun(world, String(pushed.body.run_id))).trigger).toEqual({
      kind: "webhook",
      webhook_id: hook.id,
      format: "github",
      delivery_id: "push-1",
      event: "push",
      commit: SHA,
      ref: "refs/heads/main",
      repository: REPOSITORY.full_name,
    });
    await waitForRun(world, String(opened.body.run_id));
    await waitForRun(world, String(pushed.body.run_id));
  });

  it("ignores events, actions and states its filter does not take (202), answers ping with 200, and logs each", async () => {
    const ignoredHook = await createWebhook(world, {
      suite: "invoicedesk",
      format: "github",
      events: [
        { event: "deployment_status", states: ["success"] },
        { event: "pull_request", actions: ["opened"] },
      ],
    });
    const sendTo = async (event: string, delivery: string, payload: unknown) => {
      const body = JSON.stringify(payload);
      const response = await deliver(ignoredHook.id, githubHeaders(ignoredHook.secret, event, delivery, body), body);
      return { status: response.status, body: await response.json() };
    };
    expect(await sendTo("ping", "ping-1", { zen: "Design for failure.", hook_id: 1 })).toEqual({
      status: 200,
      body: { ok: true, event: "ping", webhook: ignoredHook.id },
    });
    expect(await sendTo("issues", "issue-1", { action: "opened" })).toEqual({
      status: 202,
      body: {
        ignored: true,
        reason: "the event issues is not in the webhook's filter (deployment_status, pull_request)",
      },
    });
    expect(await sendTo("deployment_status", "d-failure-1", deploymentStatus("failure"))).toEqual({
      status: 202,
      body: { ignored: true, reason: "deployment_status: state failure is not one of success" },
    });
    expect(await sendTo("pull_request", "pr-closed-1", pullRequest("closed"))).toEqual({
      status: 202,
      body: { ignored: true, reason: "pull_request: action closed is not one of opened" },
    });
    const items = await deliveries(world, ignoredHook.id);
    expect(
      items.map(({ delivery_id, outcome, reason, run_id, source }) => ({
        delivery_id,
        outcome,
        reason,
        run_id,
        source,
      })),
    ).toEqual([
      {
        delivery_id: "pr-closed-1",
        outcome: "ignored",
        reason: "pull_request: action closed is not one of opened",
        run_id: null,
        source: {
          event: "pull_request",
          action: "closed",
          commit: SHA,
          ref: "feature/holds",
          repository: REPOSITORY.full_name,
        },
      },
      {
        delivery_id: "d-failure-1",
        outcome: "ignored",
        reason: "deployment_status: state failure is not one of success",
        run_id: null,
        source: {
          event: "deployment_status",
          state: "failure",
          commit: SHA,
          ref: "main",
          repository: REPOSITORY.full_name,
        },
      },
      {
        delivery_id: "issue-1",
        outcome: "ignored",
        reason: "the event issues is not in the webhook's filter (deployment_status, pull_request)",
        run_id: null,
        source: { event: "issues", action: "opened" },
      },
      { delivery_id: "ping-1", outcome: "ignored", reason: "ping", run_id: null, source: { event: "ping" } },
    ]);
  });

  it("answers a redelivery (the same X-GitHub-Delivery) with the first run's id", async () => {
    const first = await send("pull_request", "pr-redeliver", pullRequest("opened"));
    const again = await send("pull_request", "pr-redeliver", pullRequest("opened"));
    expect(again).toEqual({
      status: 200,
      body: { run_id: first.body.run_id, delivery_id: "pr-redeliver", replayed: true },
    });
    await waitForRun(world, String(first.body.run_id));
  });

  it("refuses with the same 401 a wrong secret, a tampered body, a missing signature, and a Standard Webhooks signature", async () => {
    const body = JSON.stringify(pullRequest("opened"));
    const good = githubHeaders(hook.secret, "pull_request", "pr-bad", body);
    const cases: Array<[string, Record<string, string>, string]> = [
      ["wrong secret", githubHeaders("whsec_c29tZW9uZSBlbHNlJ3Mgc2VjcmV0", "pull_request", "pr-bad", body), body],
      ["tampered body", good, body.replace("opened", "closed")],
      ["no signature", { "x-github-event": "pull_request", "x-github-delivery": "pr-bad" }, body],
      [
        "sha1 only",
        { "x-github-event": "pull_request", "x-github-delivery": "pr-bad", "x-hub-signature": "sha1=0123" },
        body,
      ],
      ["the other format", standardHeaders(hook.secret, "pr-bad", nowSeconds(), body), body],
    ];
    const answers = [];
    for (const [name, headers, sent] of cases) {
      const response = await deliver(hook.id, headers, sent);
      answers.push({ name, status: response.status, body: await response.text() });
    }
    expect(answers).toEqual(cases.map(([name]) => ({ name, status: 401, body: UNVERIFIED_BODY })));
  });

  it("refuses a signed delivery without X-GitHub-Delivery (400, naming the header), and a body that is not JSON", async () => {
    const body = JSON.stringify(pullRequest("opened"));
    const headers = githubHeaders(hook.secret, "pull_request", "x", body);
    delete headers["x-github-delivery"];
    // An empty X-GitHub-Delivery is no replay key either: refused the same way as a missing one.
    for (const sent of [headers, githubHeaders(hook.secret, "pull_request", "", body)]) {
      const response = await deliver(hook.id, sent, body);
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 400,
        body: {
          error: {
            code: "invalid_request",
            message: "/headers/x-github-delivery: GitHub sends X-GitHub-Delivery with every delivery",
            details: {
              problems: [
                { path: "/headers/x-github-delivery", message: "GitHub sends X-GitHub-Delivery with every delivery" },
              ],
            },
          },
        },
      });
    }
    const [empty, missing] = await deliveries(world, hook.id);
    expect([empty, missing]).toEqual(
      [1, 2].map(() => ({
        id: expect.stringMatching(/^whd_/),
        delivery_id: null,
        outcome: "refused",
        reason: "missing X-GitHub-Delivery",
        run_id: null,
        source: null,
        received_at: ISO,
      })),
    );
    const form = "payload=%7B%7D";
    const notJson = await deliver(
      hook.id,
      {
        ...githubHeaders(hook.secret, "pull_request", "pr-form", form),
        "content-type": "application/x-www-form-urlencoded",
      },
      form,
    );
    expect({ status: notJson.status, body: await notJson.json() }).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_json",
          message:
            "a GitHub delivery's body must be JSON: set the webhook's content type to application/json on GitHub",
        },
      },
    });
  });
});
