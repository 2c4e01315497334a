/**
 * Fixtures for webhook tests: a webhook created through POST /api/webhooks for the InvoiceDesk
 * suite (run-helpers.ts), and deliveries signed the way senders sign them, with node:crypto's
 * HMAC (not the Worker's WebCrypto code), so a test checks the Worker against the formats, not
 * against itself.
 */
import { createHmac } from "node:crypto";
import { expect } from "vitest";
import { call } from "./helpers.js";
import {
  GOOD_JUDGE,
  invoiceSuite,
  invoiceWorld,
  putSuite,
  server,
  wellBehaved,
  type InvoiceWorld,
} from "./run-helpers.js";

export interface CreatedWebhook {
  id: string;
  url: string;
  secret: string;
  format: string;
  [field: string]: unknown;
}

/** A tenant whose well-behaved model and judge finish runs, with the suite `suite` saved (1 run per scenario: runs end fast). */
export async function webhookWorld(label: string, suite = "invoicedesk"): Promise<InvoiceWorld> {
  const world = await invoiceWorld(label);
  await server.script(world.model, { conversations: wellBehaved(), judge_default: GOOD_JUDGE });
  await putSuite(world, suite, invoiceSuite(world, { runs_per_scenario: 1 }));
  return world;
}

export async function createWebhook(world: InvoiceWorld, body: Record<string, unknown>): Promise<CreatedWebhook> {
  const created = await call("POST", "/api/webhooks", { key: world.tenant.key, body });
  const answer = await created.json();
  expect({ status: created.status, answer }).toMatchObject({ status: 201 });
  // SAFETY: the 201 body of POST /api/webhooks.
  return answer as CreatedWebhook;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Standard Webhooks headers: HMAC-SHA256 of `id.timestamp.body` keyed with the base64 after whsec_. */
export function standardHeaders(
  secret: string,
  id: string,
  timestamp: number | string,
  body: string,
): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": `v1,${signature}`,
  };
}

/** GitHub's headers: HMAC-SHA256 of the raw body keyed with the secret's text. */
export function githubHeaders(secret: string, event: string, delivery: string, body: string): Record<string, string> {
  const signature = createHmac("sha256", secret).update(body).digest("hex");
  return {
    "content-type": "application/json",
    "x-github-event": event,
    "x-github-delivery": delivery,
    "x-hub-signature-256": `sha256=${signature}`,
  };
}

export function deliver(webhookId: string, headers: Record<string, string>, body: string): Promise<Response> {
  return call("POST", `/api/webhooks/${webhookId}`, { headers, body });
}

export async function deliveries(world: InvoiceWorld, webhookId: string): Promise<Array<Record<string, unknown>>> {
  const response = await call("GET", `/api/webhooks/${webhookId}/deliveries`, { key: world.tenant.key });
  expect(response.status).toBe(200);
  // SAFETY: the documented list shape.
  return ((await response.json()) as { items: Array<Record<string, unknown>> }).items;
}

/** The same 401 every unverified delivery gets. */
export const UNVERIFIED_BODY =
  '{"error":{"code":"unauthorized","message":"the delivery\'s signature does not verify for this webhook"}}';
