/**
 * The webhook management routes: creating (every bad field named), listing and reading (never the
 * secret), deleting, the Admin permission, another tenant's webhook answering 404 like a missing
 * one, and the public route's body bound.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { insertWebhook } from "../../../src/adapters/d1/webhooks.js";
import { call, db, invalidAnswer, keyWith } from "../helpers.js";
import type { InvoiceWorld } from "../run-helpers.js";
import {
  createWebhook,
  deliver,
  deliveries,
  githubHeaders,
  nowSeconds,
  standardHeaders,
  UNVERIFIED_BODY,
  webhookWorld,
} from "../webhook-helpers.js";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

let world: InvoiceWorld;

beforeAll(async () => {
  world = await webhookWorld("routes");
});

async function post(body: unknown, key = world.tenant.key) {
  const response = await call("POST", "/api/webhooks", { key, body });
  return { status: response.status, body: await response.json() };
}

describe("POST /api/webhooks", () => {
  it("creates a standard webhook with its settings and a whsec_ secret of 32 bytes, shown once", async () => {
    const created = await createWebhook(world, {
      suite: "invoicedesk",
      runs_per_scenario: 2,
      label: "staging",
      callback_url: "https://ci.example.com/toolproof",
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: `/api/webhooks/${created.id}`,
      suite: "invoicedesk",
      format: "standard",
      runs_per_scenario: 2,
      label: "staging",
      callback_url: "https://ci.example.com/toolproof",
      events: null,
      created_by: world.tenant.keyId,
      created_at: ISO,
      rotated_at: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(created.secret.slice("whsec_".length), "base64").length).toBe(32);
    const { secret: _secret, ...view } = created;
    const read = await call("GET", `/api/webhooks/${created.id}`, { key: world.tenant.key });
    expect({ status: read.status, body: await read.json() }).toEqual({ status: 200, body: view });
    const listed = await call("GET", "/api/webhooks", { key: world.tenant.key });
    const list = (await listed.json()) as { items: unknown[]; next_cursor: unknown };
    expect(list.items).toContainEqual(view);
    expect(JSON.stringify(list)).not.toContain(created.secret.slice(6, 30));
  });

  it("names every bad field at once", async () => {
    expect(
      await post({ suite: "", format: "gitlab", runs_per_scenario: 0, label: "", callback_url: 7, extra: true }),
    ).toEqual(
      invalidAnswer(
        {
          path: "/suite",
          message: "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit",
        },
        { path: "/format", message: "expected standard or github" },
        { path: "/runs_per_scenario", message: "expected 1 or more" },
        { path: "/label", message: "expected a label of 1 to 200 characters" },
        { path: "/callback_url", message: "expected string, got number" },
        {
          path: "/extra",
          message:
            'unknown field "extra"; expected one of: suite, format, runs_per_scenario, label, callback_url, events',
        },
      ),
    );
  });

  it("refuses a callback URL that is not http(s) or carries credentials, a github webhook without a filter, and a standard one with one", async () => {
    expect(await post({ suite: "invoicedesk", callback_url: "ftp://ci.example.com" })).toEqual(
      invalidAnswer({ path: "/callback_url", message: "expected an http or https URL, got the scheme ftp" }),
    );
    expect(await post({ suite: "invoicedesk", callback_url: "https://user:pw@ci.example.com" })).toEqual(
      invalidAnswer({
        path: "/callback_url",
        message: "must not carry credentials (user:password@): the receiver verifies the callback's signature instead",
      }),
    );
    expect(await post({ suite: "invoicedesk", format: "github" })).toEqual(
      invalidAnswer({
        path: "/events",
        message:
          'a github webhook needs its event filter, for example [{"event": "pull_request", "actions": ["opened", "synchronize"]}]',
      }),
    );
    expect(await post({ suite: "invoicedesk", events: [{ event: "push" }] })).toEqual(
      invalidAnswer({
        path: "/events",
        message: "only a github webhook has an event filter (a standard webhook's every signed delivery starts a run)",
      }),
    );
    expect(
      await post({ suite: "invoicedesk", format: "github", events: [{ event: "Pull Request", actions: [] }] }),
    ).toEqual(
      invalidAnswer(
        { path: "/events/0/event", message: "expected a GitHub event name such as deployment_status or pull_request" },
        { path: "/events/0/actions", message: "expected at least one action" },
      ),
    );
  });

  it("refuses a suite that does not exist (404 naming it)", async () => {
    expect(await post({ suite: "no-such-suite" })).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'no suite named "no-such-suite"',
          details: {
            problems: [{ path: "/suite", message: 'no suite "no-such-suite" (PUT /api/suites/no-such-suite first)' }],
          },
        },
      },
    });
  });

  it("needs AIManager:Admin; RunEvals alone is refused", async () => {
    const key = await keyWith(world.tenant.id, ["AIManager:RunEvals"]);
    expect(await post({ suite: "invoicedesk" }, key)).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "this API key lacks the permission AIManager:Admin",
          details: { required_permission: "AIManager:Admin" },
        },
      },
    });
    const list = await call("GET", "/api/webhooks", {});
    expect(list.status).toBe(401);
  });
});

describe("another tenant and deleted webhooks", () => {
  it("answer 404 like a missing one, on every route", async () => {
    const hook = await createWebhook(world, { suite: "invoicedesk" });
    const stranger = await webhookWorld("routes-stranger");
    const notFound = { status: 404, body: { error: { code: "not_found", message: "webhook not found" } } };
    for (const [method, path] of [
      ["GET", `/api/webhooks/${hook.id}`],
      ["POST", `/api/webhooks/${hook.id}/rotate`],
      ["DELETE", `/api/webhooks/${hook.id}`],
      ["GET", `/api/webhooks/${hook.id}/deliveries`],
    ] as const) {
      const response = await call(method, path, { key: stranger.tenant.key });
      expect({ path, status: response.status, body: await response.json() }).toEqual({ path, ...notFound });
    }
    const deleted = await call("DELETE", `/api/webhooks/${hook.id}`, { key: world.tenant.key });
    expect(deleted.status).toBe(200);
    for (const [method, path] of [
      ["GET", `/api/webhooks/${hook.id}`],
      ["DELETE", `/api/webhooks/${hook.id}`],
    ] as const) {
      const response = await call(method, path, { key: world.tenant.key });
      expect({ path, status: response.status, body: await response.json() }).toEqual({ path, ...notFound });
    }
    const listed = (await (await call("GET", "/api/webhooks", { key: world.tenant.key })).json()) as {
      items: Array<{ id: string }>;
    };
    expect(listed.items.map((item) => item.id)).not.toContain(hook.id);
  });
});

describe("the delivery route's body bound", () => {
  it("refuses a body over 1 MiB with 413 before verifying anything, and records it", async () => {
    const hook = await createWebhook(world, { suite: "invoicedesk" });
    const body = "x".repeat(1024 * 1024 + 1);
    const response = await deliver(hook.id, standardHeaders(hook.secret, "msg_big", nowSeconds(), body), body);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 413,
      body: {
        error: {
          code: "payload_too_large",
          message: "the request body exceeds the limit of 1048576 bytes",
          details: { limit_bytes: 1048576 },
        },
      },
    });
    expect(await deliveries(world, hook.id)).toEqual([
      {
        id: expect.stringMatching(/^whd_/),
        delivery_id: "msg_big",
        outcome: "refused",
        reason: "the request body exceeds the limit of 1048576 bytes",
        run_id: null,
        source: null,
        received_at: ISO,
      },
    ]);
  });
});

describe("a webhook whose stored secret does not open", () => {
  it("refuses deliveries with the same 401 (never a 500), in either format, and logs why", async () => {
    // A row sealed under another deployment secret, or copied from elsewhere: here, not sealed at all.
    const ids = ["whk_unopened_standard", "whk_unopened_github"];
    for (const [i, format] of (["standard", "github"] as const).entries()) {
      await insertWebhook(db(), {
        id: ids[i] ?? "",
        tenant_id: world.tenant.id,
        suite_name: "invoicedesk",
        format,
        sealed_secret: "v1.bm90LXNlYWxlZA",
        events: format === "github" ? '[{"event":"push"}]' : null,
        created_by: world.tenant.keyId,
      });
    }
    const body = "{}";
    const standard = await deliver(
      "whk_unopened_standard",
      standardHeaders("whsec_c2VjcmV0", "msg_unopened", nowSeconds(), body),
      body,
    );
    const github = await deliver(
      "whk_unopened_github",
      githubHeaders("whsec_c2VjcmV0", "push", "push-unopened", body),
      body,
    );
    expect([
      { status: standard.status, body: await standard.text() },
      { status: github.status, body: await github.text() },
    ]).toEqual([
      { status: 401, body: UNVERIFIED_BODY },
      { status: 401, body: UNVERIFIED_BODY },
    ]);
    for (const [id, delivery] of [
      ["whk_unopened_standard", "msg_unopened"],
      ["whk_unopened_github", "push-unopened"],
    ] as const) {
      expect(await deliveries(world, id)).toEqual([
        {
          id: expect.stringMatching(/^whd_/),
          delivery_id: delivery,
          outcome: "refused",
          reason: "the webhook's secret does not open with this deployment's TOOLPROOF_SECRET",
          run_id: null,
          source: null,
          received_at: ISO,
        },
      ]);
    }
  });
});

describe("refused deliveries, throttled", () => {
  it("answers 429 with retry-after once one address has had 30 refusals in a minute, records no more of them, and still takes that address's signed deliveries and others' refusals", async () => {
    const hook = await createWebhook(world, { suite: "invoicedesk" });
    const from = (ip: string, headers: Record<string, string>) => ({ ...headers, "cf-connecting-ip": ip });
    const body = JSON.stringify({ release: "throttled" });
    const forged = (n: number) =>
      from(
        "203.0.113.7",
        standardHeaders("whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC13cm9uZw==", `msg_forged_${n}`, nowSeconds(), body),
      );

    const statuses: number[] = [];
    // Half to an id that does not exist, half to a real webhook with a wrong signature: one budget for both.
    for (let n = 0; n < 30; n++)
      statuses.push((await deliver(n % 2 === 0 ? "whk_does_not_exist" : hook.id, forged(n), body)).status);
    expect(statuses).toEqual(Array.from({ length: 30 }, () => 401));

    const limited = await deliver(hook.id, forged(30), body);
    expect({
      status: limited.status,
      retryAfter: limited.headers.get("retry-after"),
      body: await limited.json(),
    }).toEqual({
      status: 429,
      retryAfter: "60",
      body: {
        error: {
          code: "rate_limited",
          message: "too many refused deliveries from this address; try again in 60 seconds",
          details: { retry_after_seconds: 60 },
        },
      },
    });
    expect((await deliver("whk_does_not_exist", forged(31), body)).status).toBe(429);
    // Only the refusals inside the budget are in the log.
    expect((await deliveries(world, hook.id)).filter((row) => row.outcome === "refused").length).toBe(15);

    // Another address is not held up, and a signed delivery from the throttled one is taken.
    expect(
      (
        await deliver(
          hook.id,
          from(
            "203.0.113.8",
            standardHeaders("whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC13cm9uZw==", "msg_other", nowSeconds(), body),
          ),
          body,
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await deliver(
          hook.id,
          from("203.0.113.7", standardHeaders(hook.secret, "msg_signed", nowSeconds(), body)),
          body,
        )
      ).status,
    ).toBe(202);
  });
});
