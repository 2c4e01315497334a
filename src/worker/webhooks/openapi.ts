/** Model connections (routes/connections.ts), webhooks (routes/webhooks.ts) and their deliveries (routes/webhook-receive.ts). */
import { z } from "zod";
import { connectionBody, testBody, type ConnectionView } from "../connections/routes.js";
import { createBody as webhookCreateBody, emptyBody, type webhookView } from "./routes.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import {
  assertSameFields,
  Deleted,
  JsonValue,
  keyId,
  page,
  PAGING,
  timestamp,
  type SameFields,
} from "../http/openapi/common.js";

const Admin = { kind: "api_key", permission: "AIManager:Admin" } as const;

named("ConnectionRequest", connectionBody);
named("ConnectionTestRequest", testBody);
named("RotateRequest", emptyBody);
named("WebhookRequest", webhookCreateBody);

const Connection = named(
  "Connection",
  z.object({
    name: z.string(),
    base_url: z.string(),
    model: z.string(),
    api_version: z.string().nullable(),
    api_key_set: z.literal(true).describe("The key is stored (sealed) and never answered back."),
    headers: z.array(z.string()).describe("The extra headers' names (their values are sealed)."),
    timeout_ms: z.number().int(),
    max_retries: z.number().int(),
    max_concurrency: z.number().int(),
    structured_output: z.boolean(),
    created_by: keyId,
    created_at: timestamp,
    updated_at: timestamp,
  }),
);
assertSameFields<SameFields<ConnectionView, z.input<typeof Connection>>>();

const ConnectionTest = named(
  "ConnectionTest",
  z.union([
    z.object({ ok: z.literal(true), connection: z.string(), model: z.string(), latency_ms: z.number() }),
    z.object({
      ok: z.literal(false),
      connection: z.string(),
      model: z.string(),
      kind: z.string(),
      status: z.number().int().nullable().optional(),
      message: z.string(),
    }),
  ]),
);

const Webhook = named(
  "Webhook",
  z.object({
    id: z.string(),
    url: z.string().describe("Where deliveries are POSTed (relative to this instance)."),
    suite: z.string(),
    format: z.enum(["standard", "github"]),
    runs_per_scenario: z.number().int().nullable(),
    label: z.string().nullable(),
    callback_url: z.string().nullable(),
    events: JsonValue.describe("A github webhook's event filter, or null."),
    created_by: keyId,
    created_at: timestamp,
    rotated_at: timestamp.nullable(),
  }),
);
assertSameFields<SameFields<ReturnType<typeof webhookView>, z.input<typeof Webhook>>>();
const WebhookWithSecret = named(
  "WebhookWithSecret",
  Webhook.extend({ secret: z.string().describe("The signing secret (whsec_...), shown this once.") }),
);
const Delivery = z.object({
  id: z.string(),
  delivery_id: z.string().nullable(),
  outcome: z.enum(["accepted", "replayed", "ignored", "refused"]),
  reason: z.string().nullable(),
  run_id: z.string().nullable(),
  source: JsonValue,
  received_at: timestamp,
});

const DeliveryBody = named(
  "WebhookDelivery",
  z
    .unknown()
    .describe("Any body: a Standard Webhooks payload, or a GitHub event (JSON). Verified as raw bytes, at most 1 MiB."),
);
const DeliveryAnswer = named(
  "WebhookDeliveryAnswer",
  z.union([
    z.object({
      run_id: z.string(),
      delivery_id: z.string(),
      replayed: z.literal(false),
      status: z.literal("queued"),
      total_repetitions: z.number().int(),
    }),
    z.object({ run_id: z.string(), delivery_id: z.string(), replayed: z.literal(true) }),
    z.object({ ignored: z.literal(true), reason: z.string() }),
    z.object({ ok: z.literal(true), event: z.literal("ping"), webhook: z.string() }),
  ]),
);

const connectionName = {
  name: "The connection's name, as suites refer to it: 1 to 128 letters, digits, '_', '.' or '-'.",
};
const webhookId = { id: "The webhook's id." };
const sealing = ["secret_not_configured", "connection_key_unreadable"] as const;

export const integrationOperations: OperationDoc[] = [
  {
    method: "get",
    path: "/api/connections",
    tag: "Connections",
    summary: "List the tenant's connections",
    access: Admin,
    query: PAGING,
    responses: { 200: { description: "A page of connections.", schema: page("ConnectionPage", Connection) } },
    errors: ["invalid_request"],
  },
  {
    method: "put",
    path: "/api/connections/:name",
    tag: "Connections",
    summary: "Store a connection",
    description:
      "201 when new, 200 on a replace. api_key and headers are write-only: left out of a replace, the stored ones are kept.",
    access: Admin,
    params: connectionName,
    body: {
      schema: connectionBody,
      example: { base_url: "https://api.openai.com/v1", model: "gpt-4.1-mini", api_key: "sk-..." },
    },
    responses: {
      200: { description: "The replaced connection.", schema: Connection },
      201: { description: "The new connection.", schema: Connection },
    },
    errors: [...JSON_BODY_ERRORS, ...sealing],
  },
  {
    method: "get",
    path: "/api/connections/:name",
    tag: "Connections",
    summary: "Read a connection",
    access: Admin,
    params: connectionName,
    responses: { 200: { description: "The connection (never its key).", schema: Connection } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "delete",
    path: "/api/connections/:name",
    tag: "Connections",
    summary: "Delete a connection",
    access: Admin,
    params: connectionName,
    responses: { 200: { description: "Deleted.", schema: Deleted("DeletedConnection", "name") } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "post",
    path: "/api/connections/:name/test",
    tag: "Connections",
    summary: "Test a connection",
    description:
      "One cheap chat call with the stored settings, answered 200 either way: ok false says in words what went wrong. No body (or {}).",
    access: Admin,
    params: connectionName,
    body: { schema: testBody, required: false },
    responses: { 200: { description: "What the test found.", schema: ConnectionTest } },
    errors: ["invalid_request", "not_found", ...sealing],
  },
  {
    method: "post",
    path: "/api/webhooks",
    tag: "Webhooks",
    summary: "Create a webhook",
    description:
      "A signed delivery to its url starts a run of the suite. The answer holds the secret, shown this once.",
    access: Admin,
    body: { schema: webhookCreateBody, example: { suite: "invoicedesk", format: "standard" } },
    responses: { 201: { description: "The webhook and its secret.", schema: WebhookWithSecret } },
    errors: [...JSON_BODY_ERRORS, "not_found", "secret_not_configured"],
  },
  {
    method: "get",
    path: "/api/webhooks",
    tag: "Webhooks",
    summary: "List the tenant's webhooks",
    description: "Newest first, paged.",
    access: Admin,
    query: PAGING,
    responses: { 200: { description: "A page of webhooks.", schema: page("WebhookPage", Webhook) } },
    errors: ["invalid_request"],
  },
  {
    method: "get",
    path: "/api/webhooks/:id/deliveries",
    tag: "Webhooks",
    summary: "A webhook's deliveries",
    description: "Newest first: accepted, replayed, ignored, refused, and why.",
    access: Admin,
    params: webhookId,
    query: PAGING,
    responses: {
      200: { description: "A page of deliveries.", schema: page("DeliveryPage", Delivery, { webhook: z.string() }) },
    },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "post",
    path: "/api/webhooks/:id/rotate",
    tag: "Webhooks",
    summary: "Rotate a webhook's secret",
    description: "The old secret stops verifying at once. No body (or {}).",
    access: Admin,
    params: webhookId,
    body: { schema: emptyBody, required: false },
    responses: { 200: { description: "The webhook and its new secret, shown this once.", schema: WebhookWithSecret } },
    errors: ["invalid_request", "not_found", "secret_not_configured"],
  },
  {
    method: "delete",
    path: "/api/webhooks/:id",
    tag: "Webhooks",
    summary: "Delete a webhook",
    description: "Deliveries to it answer as to an unknown id.",
    access: Admin,
    params: webhookId,
    responses: { 200: { description: "Deleted.", schema: Deleted("DeletedWebhook", "id") } },
    errors: ["not_found"],
  },
  {
    method: "get",
    path: "/api/webhooks/:id",
    tag: "Webhooks",
    summary: "Read a webhook",
    description: "Never its secret.",
    access: Admin,
    params: webhookId,
    responses: { 200: { description: "The webhook.", schema: Webhook } },
    errors: ["not_found"],
  },
  {
    method: "post",
    path: "/api/webhooks/:id",
    tag: "Webhooks",
    summary: "Deliver to a webhook",
    description:
      "The public delivery route: no API key. Standard Webhooks (webhook-id, webhook-timestamp within 5 minutes, webhook-signature) or GitHub (X-Hub-Signature-256, X-GitHub-Event, X-GitHub-Delivery). A replayed delivery id answers the first run's id and starts nothing. Refused deliveries are throttled per client address: 30 a minute, then 429 rate_limited with retry-after.",
    access: { kind: "webhook_signature" },
    params: webhookId,
    headers: [
      {
        name: "webhook-id",
        description: "Standard Webhooks: the delivery id (the replay key).",
        schema: { type: "string" },
      },
      {
        name: "webhook-timestamp",
        description: "Standard Webhooks: seconds since the epoch.",
        schema: { type: "string" },
      },
      { name: "X-GitHub-Event", description: "GitHub: the event name.", schema: { type: "string" } },
      {
        name: "X-GitHub-Delivery",
        description: "GitHub: the delivery id (the replay key).",
        schema: { type: "string" },
      },
    ],
    body: { schema: DeliveryBody },
    responses: {
      200: { description: "A replayed delivery (the first run's id), or a GitHub ping.", schema: DeliveryAnswer },
      202: { description: "A run started, or the event was ignored by the webhook's filter.", schema: DeliveryAnswer },
    },
    errors: [
      "invalid_request",
      "malformed_json",
      "payload_too_large",
      "rate_limited",
      "secret_not_configured",
      "internal_error",
    ],
  },
];
