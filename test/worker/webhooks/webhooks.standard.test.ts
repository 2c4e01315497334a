/**
 * Standard Webhooks deliveries to POST /api/webhooks/:id: a valid signature starts a run of the
 * webhook's suite, which finishes against the local model server; every way of not verifying
 * (wrong secret, tampered body, missing headers, an unknown or a deleted webhook) gets the same
 * 401 byte for byte; timestamps more than five minutes away are refused; a webhook-id already
 * accepted answers the first run's id and starts nothing, even when two deliveries race; rotating
 * the secret retires the old one; every delivery is in the webhook's delivery log.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers.js";
import { invoiceSuite, putSuite, readRun, waitForRun, type InvoiceWorld } from "../run-helpers.js";
import {
  createWebhook,
  deliver,
  deliveries,
  nowSeconds,
  standardHeaders,
  UNVERIFIED_BODY,
  webhookWorld,
  type CreatedWebhook,
} from "../webhook-helpers.js";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

let world: InvoiceWorld;
let hook: CreatedWebhook;

beforeAll(async () => {
  world = await webhookWorld("standard");
  hook = await createWebhook(world, { suite: "invoicedesk", label: "deploy" });
});

async function runsOf(suite: string): Promise<string[]> {
  const response = await call("GET", `/api/runs?suite=${suite}`, { key: world.tenant.key });
  // SAFETY: the documented list shape.
  return ((await response.json()) as { items: Array<{ id: string }> }).items.map((run) => run.id);
}

/** A suite of its own, so a test can count the runs it started. */
async function hookOnFreshSuite(name: string): Promise<CreatedWebhook> {
  await putSuite(world, name, invoiceSuite(world, { runs_per_scenario: 1 }));
  return createWebhook(world, { suite: name });
}

describe("a valid Standard Webhooks delivery", () => {
  it("starts a run of the webhook's suite with its label, recorded as started by the webhook, which finishes", async () => {
    const body = JSON.stringify({ deployment: "v1.4.2" });
    const response = await deliver(hook.id, standardHeaders(hook.secret, "msg_valid_1", nowSeconds(), body), body);
    const answer = await response.json();
    expect({ status: response.status, answer }).toEqual({
      status: 202,
      answer: {
        run_id: expect.stringMatching(/^run_/),
        delivery_id: "msg_valid_1",
        replayed: false,
        status: "queued",
        total_repetitions: 5,
      },
    });
    // SAFETY: checked just above.
    const runId = (answer as { run_id: string }).run_id;
    const run = await waitForRun(world, runId);
    expect(run).toMatchObject({
      id: runId,
      suite: "invoicedesk",
      label: "deploy",
      status: "finished",
      verdict: "pass",
      trigger: { kind: "webhook", webhook_id: hook.id, format: "standard", delivery_id: "msg_valid_1" },
      created_by: hook.id,
    });
  });

  it("verifies when any one of several signatures matches, and a timestamp 4 minutes off either way is fresh", async () => {
    const body = "{}";
    for (const [id, skew] of [
      ["msg_multi_past", -240],
      ["msg_multi_future", 240],
    ] as const) {
      const headers = standardHeaders(hook.secret, id, nowSeconds() + skew, body);
      headers["webhook-signature"] =
        `v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= v2,whatever ${headers["webhook-signature"]}`;
      const response = await deliver(hook.id, headers, body);
      expect({ status: response.status, answer: await response.json() }).toMatchObject({
        status: 202,
        answer: { delivery_id: id, replayed: false },
      });
    }
  });
});

describe("deliveries that do not verify", () => {
  it("all get the same 401, byte for byte: wrong secret, tampered body, missing headers, malformed signature, unknown id, deleted id", async () => {
    const body = JSON.stringify({ deployment: "v1" });
    const deleted = await createWebhook(world, { suite: "invoicedesk" });
    const removed = await call("DELETE", `/api/webhooks/${deleted.id}`, { key: world.tenant.key });
    expect({ status: removed.status, body: await removed.json() }).toEqual({
      status: 200,
      body: { id: deleted.id, deleted: true },
    });
    const other = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
    const good = standardHeaders(hook.secret, "msg_bad", nowSeconds(), body);
    const cases: Array<[string, string, Record<string, string>, string]> = [
      ["wrong secret", hook.id, standardHeaders(other, "msg_bad", nowSeconds(), body), body],
      ["tampered body", hook.id, good, JSON.stringify({ deployment: "v2" })],
      ["no signature", hook.id, { "webhook-id": "msg_bad", "webhook-timestamp": String(nowSeconds()) }, body],
      ["no headers at all", hook.id, {}, body],
      ["malformed signature", hook.id, { ...good, "webhook-signature": "v1,not base64!" }, body],
      ["signature for another id", hook.id, { ...good, "webhook-id": "msg_other" }, body],
      ["unknown webhook", "whk_doesnotexist", good, body],
      [
        "deleted webhook, its own secret",
        deleted.id,
        standardHeaders(deleted.secret, "msg_bad", nowSeconds(), body),
        body,
      ],
    ];
    const answers = [];
    for (const [name, id, headers, sent] of cases) {
      const response = await deliver(id, headers, sent);
      answers.push({ name, status: response.status, body: await response.text() });
    }
    expect(answers).toEqual(cases.map(([name]) => ({ name, status: 401, body: UNVERIFIED_BODY })));
  });

  it("refuses a timestamp more than five minutes in the past or the future, saying so only to a holder of the secret", async () => {
    const body = "{}";
    for (const skew of [-301, 301, -86_400]) {
      const timestamp = nowSeconds() + skew;
      const response = await deliver(hook.id, standardHeaders(hook.secret, `msg_stale_${skew}`, timestamp, body), body);
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 401,
        body: {
          error: {
            code: "unauthorized",
            message: `webhook-timestamp ${timestamp} is not within 5 minutes of the server's clock: sign each delivery when it is sent`,
          },
        },
      });
    }
    // Signed over the text as sent: the signature verifies, the timestamp is not seconds.
    const nan = await deliver(hook.id, standardHeaders(hook.secret, "msg_nan", "yesterday", body), body);
    expect({ status: nan.status, body: await nan.json() }).toEqual({
      status: 401,
      body: {
        error: {
          code: "unauthorized",
          message:
            "webhook-timestamp yesterday is not within 5 minutes of the server's clock: sign each delivery when it is sent",
        },
      },
    });
  });
});

describe("a webhook-id too long to be a replay key", () => {
  it("is refused (400 naming the header) rather than cut short, so two ids never become one", async () => {
    const body = "{}";
    const long = `msg_${"x".repeat(197)}`;
    const response = await deliver(hook.id, standardHeaders(hook.secret, long, nowSeconds(), body), body);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: "/headers/webhook-id: expected at most 200 characters",
          details: { problems: [{ path: "/headers/webhook-id", message: "expected at most 200 characters" }] },
        },
      },
    });
    const [logged] = await deliveries(world, hook.id);
    expect(logged).toEqual({
      id: expect.stringMatching(/^whd_/),
      delivery_id: long.slice(0, 200),
      outcome: "refused",
      reason: "webhook-id is longer than 200 characters",
      run_id: null,
      source: null,
      received_at: ISO,
    });
  });
});

describe("an empty delivery header", () => {
  it("an empty webhook-id, even signed, is refused (400 naming the header) and starts nothing, so it never becomes a replay key", async () => {
    const emptied = await hookOnFreshSuite("emptied");
    const body = "{}";
    const expected = {
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: "/headers/webhook-id: must not be empty: it is the message's unique id, the key a retry is known by",
          details: {
            problems: [
              {
                path: "/headers/webhook-id",
                message: "must not be empty: it is the message's unique id, the key a retry is known by",
              },
            ],
          },
        },
      },
    };
    // Twice: the second is refused the same way, not answered as a replay of the first.
    for (const sent of [body, '{"build":10}']) {
      const response = await deliver(emptied.id, standardHeaders(emptied.secret, "", nowSeconds(), sent), sent);
      expect({ status: response.status, body: await response.json() }).toEqual(expected);
    }
    expect(await runsOf("emptied")).toEqual([]);
    const refused = {
      id: expect.stringMatching(/^whd_/),
      delivery_id: null,
      outcome: "refused",
      reason: "webhook-id is empty",
      run_id: null,
      source: null,
      received_at: ISO,
    };
    expect(await deliveries(world, emptied.id)).toEqual([refused, refused]);

    // An empty timestamp or signature was never a hole: neither verifies.
    const noTimestamp = await deliver(emptied.id, standardHeaders(emptied.secret, "msg_no_ts", "", body), body);
    expect({ status: noTimestamp.status, body: await noTimestamp.json() }).toEqual({
      status: 401,
      body: {
        error: {
          code: "unauthorized",
          message:
            "webhook-timestamp (empty) is not within 5 minutes of the server's clock: sign each delivery when it is sent",
        },
      },
    });
    const noSignature = await deliver(
      emptied.id,
      { ...standardHeaders(emptied.secret, "msg_no_sig", nowSeconds(), body), "webhook-signature": "" },
      body,
    );
    expect({ status: noSignature.status, body: await noSignature.text() }).toEqual({
      status: 401,
      body: UNVERIFIED_BODY,
    });
    expect(await runsOf("emptied")).toEqual([]);
  });
});

describe("replays", () => {
  it("answer the first delivery's run id and start nothing", async () => {
    const replayed = await hookOnFreshSuite("replayed");
    const body = JSON.stringify({ build: 7 });
    const first = await deliver(replayed.id, standardHeaders(replayed.secret, "msg_once", nowSeconds(), body), body);
    expect(first.status).toBe(202);
    // SAFETY: the 202 body.
    const runId = ((await first.json()) as { run_id: string }).run_id;
    // A sender's retry: the same id, signed again later (a new timestamp).
    const again = await deliver(
      replayed.id,
      standardHeaders(replayed.secret, "msg_once", nowSeconds() + 1, body),
      body,
    );
    expect({ status: again.status, body: await again.json() }).toEqual({
      status: 200,
      body: { run_id: runId, delivery_id: "msg_once", replayed: true },
    });
    expect(await runsOf("replayed")).toEqual([runId]);
    await waitForRun(world, runId);
  });

  it("of two identical deliveries racing, exactly one starts a run and both answer its id", async () => {
    const raced = await hookOnFreshSuite("raced");
    const body = JSON.stringify({ build: 8 });
    const headers = standardHeaders(raced.secret, "msg_race", nowSeconds(), body);
    const answers = await Promise.all([
      deliver(raced.id, headers, body),
      deliver(raced.id, headers, body),
      deliver(raced.id, headers, body),
    ]);
    const bodies = await Promise.all(
      answers.map(async (response) => ({
        status: response.status,
        body: (await response.json()) as { run_id: string; replayed: boolean },
      })),
    );
    const started = bodies.filter((answer) => answer.status === 202);
    expect(started.length).toBe(1);
    const runId = started[0]?.body.run_id;
    expect(bodies.filter((answer) => answer.status === 200)).toEqual(
      [1, 2].map(() => ({ status: 200, body: { run_id: runId, delivery_id: "msg_race", replayed: true } })),
    );
    expect(await runsOf("raced")).toEqual([runId]);
    await waitForRun(world, runId ?? "");
  });
});

describe("a delivery whose run cannot start", () => {
  it("answers the run route's refusal, is logged as refused, and may be delivered again once fixed", async () => {
    const suite = invoiceSuite(world, { runs_per_scenario: 1 });
    const agent = { ...(suite.agent as Record<string, unknown>), connection: "later" };
    await putSuite(world, "later", { ...suite, agent, judge: { connection: "later", threshold: 4 } });
    const later = await createWebhook(world, { suite: "later" });
    const body = JSON.stringify({ build: 9 });
    const refused = await deliver(later.id, standardHeaders(later.secret, "msg_later", nowSeconds(), body), body);
    const missing =
      'no connection named "later" yet: the suite is saved, and runs refuse to start until PUT /api/connections/later stores it';
    const message = `/agent/connection: ${missing}; /judge/connection: ${missing}`;
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 422,
      body: {
        error: {
          code: "model_connection_required",
          message,
          details: {
            problems: [
              { path: "/agent/connection", message: missing },
              { path: "/judge/connection", message: missing },
            ],
          },
        },
      },
    });
    expect(await deliveries(world, later.id)).toEqual([
      {
        id: expect.stringMatching(/^whd_/),
        delivery_id: "msg_later",
        outcome: "refused",
        reason: `the run did not start: ${message}`,
        run_id: null,
        source: null,
        received_at: ISO,
      },
    ]);
    expect(await runsOf("later")).toEqual([]);

    const connection = await call("GET", `/api/connections/${world.connection}`, { key: world.tenant.key });
    const { base_url, model } = (await connection.json()) as { base_url: string; model: string };
    const put = await call("PUT", "/api/connections/later", {
      key: world.tenant.key,
      body: { base_url, model, api_key: "sk-test", max_retries: 0 },
    });
    expect(put.status).toBe(201);
    const again = await deliver(later.id, standardHeaders(later.secret, "msg_later", nowSeconds(), body), body);
    expect({ status: again.status, body: await again.json() }).toMatchObject({
      status: 202,
      body: { delivery_id: "msg_later", replayed: false },
    });
    expect((await runsOf("later")).length).toBe(1);
  });
});

describe("rotating the secret", () => {
  it("shows a new secret once; the old one stops verifying and the new one starts runs", async () => {
    const rotated = await hookOnFreshSuite("rotated");
    const response = await call("POST", `/api/webhooks/${rotated.id}/rotate`, { key: world.tenant.key });
    const answer = (await response.json()) as CreatedWebhook;
    const { secret: _old, ...view } = rotated;
    expect({ status: response.status, answer }).toEqual({
      status: 200,
      answer: { ...view, rotated_at: ISO, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) },
    });
    expect(answer.secret).not.toBe(rotated.secret);
    const read = await call("GET", `/api/webhooks/${rotated.id}`, { key: world.tenant.key });
    expect(await read.json()).toEqual({ ...view, rotated_at: answer.rotated_at });

    const body = "{}";
    const old = await deliver(rotated.id, standardHeaders(rotated.secret, "msg_rot", nowSeconds(), body), body);
    expect({ status: old.status, body: await old.text() }).toEqual({ status: 401, body: UNVERIFIED_BODY });
    const fresh = await deliver(rotated.id, standardHeaders(answer.secret, "msg_rot", nowSeconds(), body), body);
    expect(fresh.status).toBe(202);
    // SAFETY: the 202 body.
    await waitForRun(world, ((await fresh.json()) as { run_id: string }).run_id);
  });
});

describe("the delivery log", () => {
  it("lists every delivery, newest first, with its outcome and why, and only the tenant's own", async () => {
    const logged = await hookOnFreshSuite("logged");
    const body = "{}";
    const accepted = await deliver(logged.id, standardHeaders(logged.secret, "msg_log", nowSeconds(), body), body);
    // SAFETY: the 202 body.
    const runId = ((await accepted.json()) as { run_id: string }).run_id;
    await deliver(logged.id, standardHeaders(logged.secret, "msg_log", nowSeconds(), body), body);
    await deliver(logged.id, standardHeaders(logged.secret, "msg_bad_sig", nowSeconds(), body), "{ }");
    await deliver(logged.id, { "webhook-id": "msg_nosig", "webhook-timestamp": String(nowSeconds()) }, body);
    const staleAt = nowSeconds() - 3600;
    await deliver(logged.id, standardHeaders(logged.secret, "msg_stale", staleAt, body), body);
    const items = await deliveries(world, logged.id);
    expect(items).toEqual([
      {
        id: expect.stringMatching(/^whd_/),
        delivery_id: "msg_stale",
        outcome: "refused",
        reason: `webhook-timestamp ${staleAt} is not within 5 minutes of the server's clock`,
        run_id: null,
        source: null,
        received_at: ISO,
      },
      {
        id: expect.stringMatching(/^whd_/),
        delivery_id: "msg_nosig",
        outcome: "refused",
        reason: "missing webhook-signature",
        run_id: null,
        source: null,
        received_at: ISO,
      },
      {
        id: expect.stringMatching(/^whd_/),
        delivery_id: "msg_bad_sig",
        outcome: "refused",
        reason: "no webhook-signature entry matches",
        run_id: null,
        source: null,
        received_at: ISO,
      },
      {
        id: expect.stringMatching(/^whd_/),
        delivery_id: "msg_log",
        outcome: "replayed",
        reason: expect.stringMatching(/^delivery msg_log was accepted at \d{4}-/),
        run_id: runId,
        source: null,
        received_at: ISO,
      },
      {
        id: expect.stringMatching(/^whd_/),
        delivery_id: "msg_log",
        outcome: "accepted",
        reason: null,
        run_id: runId,
        source: null,
        received_at: ISO,
      },
    ]);
    const stranger = await webhookWorld("standard-stranger");
    const foreign = await call("GET", `/api/webhooks/${logged.id}/deliveries`, { key: stranger.tenant.key });
    expect({ status: foreign.status, body: await foreign.json() }).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "webhook not found" } },
    });
    expect((await readRun(world, runId)).trigger).toEqual({
      kind: "webhook",
      webhook_id: logged.id,
      format: "standard",
      delivery_id: "msg_log",
    });
    await waitForRun(world, runId);
  });
});
