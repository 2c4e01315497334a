/**
 * Webhooks that start runs of a suite, managed with an API key holding AIManager:Admin:
 *
 * - POST   /api/webhooks                  create one: 201 with its secret, shown this once
 * - GET    /api/webhooks                  the tenant's webhooks, newest first (paged)
 * - GET    /api/webhooks/:id              one webhook (never its secret)
 * - POST   /api/webhooks/:id/rotate       a new secret, shown this once; the old one stops verifying
 * - DELETE /api/webhooks/:id              soft delete: deliveries to it answer as to an unknown id
 * - GET    /api/webhooks/:id/deliveries   every delivery, newest first: accepted, replayed, ignored, refused and why
 * - GET    /api/runs/:id/callbacks        (AIManager:RunEvals) each attempt to POST the run's result to its callback_url
 *
 * The public delivery route, POST /api/webhooks/:id, is webhook-receive.ts: it is mounted before
 * the API-key middleware and authenticated by its signature alone.
 */
import { Hono } from "hono";
import { z } from "zod";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { getRun } from "../../adapters/d1/runs.js";
import { getSuiteVersion } from "../../adapters/d1/suites.js";
import {
  deliverySourceOf,
  findTenantWebhook,
  insertWebhook,
  listCallbackAttempts,
  listDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  softDeleteWebhook,
  webhookEventsOf,
  type WebhookDeliveryRow,
  type WebhookRow,
} from "../../adapters/d1/webhooks.js";
import { webhookSecret } from "../../adapters/webhook-signature.js";
import type { Problem } from "../../core/json.js";
import { RESOURCE_NAME, RESOURCE_NAME_RULE } from "../../core/names.js";
import type { GithubEventFilter } from "../../core/webhooks/github-events.js";
import type { AppEnv } from "../platform/env.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { ApiError, invalidRequest, notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";
import { pageCursor, pageLimit, CREATED_CURSOR, RECEIVED_CURSOR } from "../http/pagination.js";
import { httpUrlProblems } from "../http/schema-fields.js";
import { requireSealingKey, sealWebhookSecret } from "../http/webhook-secret.js";
import { MAX_RUNS_PER_SCENARIO } from "../../core/evals/run-limits.js";

const WEBHOOK_BODY_LIMIT = 16 * 1024;
/** Random bytes in a secret (Standard Webhooks takes 24 to 64). */
const SECRET_BYTES = 32;
const GITHUB_NAME = /^[a-z_]{1,64}$/;

const names = (what: string) =>
  z
    .array(
      z
        .string()
        .regex(
          GITHUB_NAME,
          `expected a GitHub ${what} such as ${what === "action" ? "opened" : "success"} (lower case letters and _)`,
        ),
    )
    .min(1, `expected at least one ${what}`)
    .max(20, "expected at most 20");

const eventFilter = z.strictObject({
  event: z.string().regex(GITHUB_NAME, "expected a GitHub event name such as deployment_status or pull_request"),
  actions: names("action").optional(),
  states: names("state").optional(),
});

export const createBody = z.strictObject({
  suite: z.string().regex(RESOURCE_NAME, RESOURCE_NAME_RULE),
  format: z.enum(["standard", "github"], { error: "expected standard or github" }).optional(),
  runs_per_scenario: z
    .number()
    .int("expected a whole number")
    .min(1, "expected 1 or more")
    .max(MAX_RUNS_PER_SCENARIO, `expected at most ${MAX_RUNS_PER_SCENARIO}`)
    .optional(),
  label: z
    .string()
    .min(1, "expected a label of 1 to 200 characters")
    .max(200, "expected at most 200 characters")
    .optional(),
  callback_url: z.string().max(2048, "expected at most 2048 characters").optional(),
  events: z.array(eventFilter).min(1, "expected at least one event").max(20, "expected at most 20 events").optional(),
});

export const emptyBody = z.strictObject({});

export const webhookRoutes = new Hono<AppEnv>();
webhookRoutes.use("*", requirePermission("AIManager:Admin"));

webhookRoutes.post("/", async (c) => {
  const body = await readBodyWithHints(c, createBody, WEBHOOK_BODY_LIMIT);
  const format = body.format ?? "standard";
  const problems: Problem[] = [...(body.callback_url === undefined ? [] : callbackUrlProblems(body.callback_url))];
  if (format === "github" && body.events === undefined)
    problems.push({
      path: "/events",
      message:
        'a github webhook needs its event filter, for example [{"event": "pull_request", "actions": ["opened", "synchronize"]}]',
    });
  if (format === "standard" && body.events !== undefined)
    problems.push({
      path: "/events",
      message: "only a github webhook has an event filter (a standard webhook's every signed delivery starts a run)",
    });
  if (problems.length > 0) throw invalidRequest(problems);
  const { tenantId, keyId } = c.var.principal;
  if (!(await getSuiteVersion(c.var.db, tenantId, body.suite)))
    throw new ApiError("not_found", `no suite named "${body.suite}"`, {
      problems: [{ path: "/suite", message: `no suite "${body.suite}" (PUT /api/suites/${body.suite} first)` }],
    });

  const key = await requireSealingKey(c.env.TOOLPROOF_SECRET);
  const id = c.var.ids.id("whk");
  const secret = webhookSecret(c.var.ids.secret(SECRET_BYTES));
  const events: GithubEventFilter[] | undefined = body.events;
  const row = await insertWebhook(c.var.db, {
    id,
    tenant_id: tenantId,
    suite_name: body.suite,
    format,
    sealed_secret: await sealWebhookSecret(key, tenantId, id, secret),
    runs_per_scenario: body.runs_per_scenario ?? null,
    label: body.label ?? null,
    callback_url: body.callback_url ?? null,
    events: events === undefined ? null : JSON.stringify(events),
    created_by: keyId,
  });
  c.header("location", `/api/webhooks/${id}`);
  return c.json({ ...webhookView(row), secret }, 201);
});

webhookRoutes.get("/", async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, CREATED_CURSOR);
  const page = await listWebhooks(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({
    items: page.items.map(webhookView),
    next_cursor: page.next ? encodeCursor([page.next.created_at, page.next.id]) : null,
  });
});

webhookRoutes.get("/:id", async (c) => c.json(webhookView(await tenantWebhook(c))));

webhookRoutes.post("/:id/rotate", async (c) => {
  // No body is needed; one that is sent must be an empty object.
  if (Number(c.req.header("content-length") ?? "0") > 0 || c.req.header("transfer-encoding"))
    await readBodyWithHints(c, emptyBody, 1024);
  const found = await tenantWebhook(c);
  const key = await requireSealingKey(c.env.TOOLPROOF_SECRET);
  const secret = webhookSecret(c.var.ids.secret(SECRET_BYTES));
  const row = await rotateWebhookSecret(
    c.var.db,
    found.tenant_id,
    found.id,
    await sealWebhookSecret(key, found.tenant_id, found.id, secret),
    new Date().toISOString(),
  );
  if (!row) throw notFound("webhook");
  return c.json({ ...webhookView(row), secret });
});

webhookRoutes.delete("/:id", async (c) => {
  const found = await tenantWebhook(c);
  if (!(await softDeleteWebhook(c.var.db, found.tenant_id, found.id, new Date().toISOString())))
    throw notFound("webhook");
  return c.json({ id: found.id, deleted: true });
});

webhookRoutes.get("/:id/deliveries", async (c) => {
  const found = await tenantWebhook(c);
  const limit = pageLimit(c);
  const after = pageCursor(c, RECEIVED_CURSOR);
  const page = await listDeliveries(c.var.db, found.tenant_id, found.id, { limit, after });
  return c.json({
    webhook: found.id,
    items: page.items.map(deliveryView),
    next_cursor: page.next ? encodeCursor([page.next.received_at, page.next.id]) : null,
  });
});

/** GET /api/runs/:id/callbacks, mounted beside the run routes. */
export const runCallbackRoutes = new Hono<AppEnv>();

runCallbackRoutes.get("/:id/callbacks", requirePermission("AIManager:RunEvals"), async (c) => {
  const { tenantId } = c.var.principal;
  const run = await getRun(c.var.db, tenantId, c.req.param("id"));
  if (!run) throw notFound("run");
  const attempts = await listCallbackAttempts(c.var.db, tenantId, run.id);
  return c.json({
    run: run.id,
    items: attempts.map(({ attempt, url, status, error, at }) => ({ attempt, url, status, error, at })),
  });
});

async function tenantWebhook(c: { req: { param(name: "id"): string }; var: AppEnv["Variables"] }): Promise<WebhookRow> {
  const found = await findTenantWebhook(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  if (!found) throw notFound("webhook");
  return found;
}

export function webhookView(row: WebhookRow) {
  return {
    id: row.id,
    url: `/api/webhooks/${row.id}`,
    suite: row.suite_name,
    format: row.format,
    runs_per_scenario: row.runs_per_scenario,
    label: row.label,
    callback_url: row.callback_url,
    events: webhookEventsOf(row),
    created_by: row.created_by,
    created_at: row.created_at,
    rotated_at: row.rotated_at,
  };
}

function deliveryView(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    outcome: row.outcome,
    reason: row.reason,
    run_id: row.run_id,
    source: deliverySourceOf(row),
    received_at: row.received_at,
  };
}

function callbackUrlProblems(raw: string): Problem[] {
  // The URL is shown to anyone who reads the webhook or its runs: the receiver checks the signature instead.
  return httpUrlProblems(raw, "/callback_url", {
    example: "https://ci.example.com/toolproof",
    credentials: "the receiver verifies the callback's signature instead",
  }).problems;
}
