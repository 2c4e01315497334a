/**
 * POST /api/webhooks/:id, the public delivery route: no API key, authenticated by the signature
 * over the raw body alone, in the webhook's format (webhook-signature.ts).
 *
 * In this order, so nothing unverified is parsed and nothing tells a stranger which webhooks exist:
 * 1. The body is read as bytes, bounded (413 past the limit).
 * 2. The webhook is looked up and its secret opened. An unknown or deleted id is verified against
 *    a dummy secret all the same, so its answer takes about as long as a wrong signature's, and all
 *    three answer the same 401 body.
 * 3. Standard Webhooks: a webhook-timestamp more than five minutes away is refused (checked after
 *    the signature, so only a holder of the secret learns that it was the clock).
 * 4. GitHub: ping answers 200; an event the webhook's filter does not take answers 202 ignored.
 * 5. The delivery id (webhook-id or X-GitHub-Delivery: empty or over 200 characters, it is refused
 *    with a 400 naming the header) is claimed for a new run (webhooks.ts's partial unique index): a
 *    replay, or the loser of two identical deliveries racing, answers the run id the first one
 *    claimed and starts nothing. The winner starts the run; if the start is refused, its claim is
 *    released.
 *
 * Every delivery is recorded, with its outcome and why, except refusals past a client address's
 * budget (webhooks/refusal-throttle.ts): those answer 429 with retry-after and leave no row.
 */
import { Hono } from "hono";
import { randomSecret } from "../../adapters/crypto.js";
import {
  acceptedDelivery,
  claimDelivery,
  findWebhookRow,
  recordDelivery,
  releaseDelivery,
  webhookEventsOf,
  type WebhookDeliveryRow,
  type WebhookRow,
} from "../../adapters/d1/webhooks.js";
import {
  timestampFresh,
  TIMESTAMP_TOLERANCE_SECONDS,
  verifyGithub,
  verifyStandard,
  webhookSecret,
} from "../../adapters/webhook-signature.js";
import type { JsonValue } from "../../core/json.js";
import { filterDecision, githubSource, type GithubSource } from "../../core/webhooks/github-events.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, invalidRequest } from "../http/errors.js";
import { readBodyBytes, utf8Text } from "../http/json-body.js";
import { openWebhookSecret, requireSealingKey, sealWebhookSecret } from "../http/webhook-secret.js";
import { refusalThrottled } from "./refusal-throttle.js";
import { startWebhookRun } from "./start-webhook-run.js";
import { messageOf } from "../../core/message-of.js";

/** GitHub caps its payloads at 25 MB, but the events a webhook takes are far smaller. */
const WEBHOOK_DELIVERY_LIMIT = 1024 * 1024;
const MAX_DELIVERY_ID = 200;

/** Verified against when a secret does not open (an HMAC key cannot be empty); refused either way. */
const UNOPENED_SECRET = "whsec_dW5vcGVuZWQtd2ViaG9vay1zZWNyZXQtcGxhY2Vob2xkZXI=";

/** The one answer to a delivery that does not verify, whatever the reason. */
const UNVERIFIED = "the delivery's signature does not verify for this webhook";

export const webhookReceiveRoutes = new Hono<AppEnv>();

webhookReceiveRoutes.post("/:id", async (c) => {
  const id = c.req.param("id");
  const db = c.var.db;
  const headers = c.req.raw.headers;
  const receivedAt = new Date().toISOString();
  const record = (
    row: WebhookRow | undefined,
    outcome: WebhookDeliveryRow["outcome"],
    fields: {
      reason: string | null;
      delivery_id?: string | null;
      run_id?: string | null;
      source?: GithubSource | null;
    },
  ) =>
    recordDelivery(db, {
      id: c.var.ids.id("whd"),
      webhook_id: id.slice(0, MAX_DELIVERY_ID),
      tenant_id: row?.tenant_id ?? null,
      delivery_id: fields.delivery_id?.slice(0, MAX_DELIVERY_ID) ?? deliveryIdOf(headers),
      outcome,
      reason: fields.reason,
      run_id: fields.run_id ?? null,
      source: fields.source ? JSON.stringify(fields.source) : null,
      received_at: receivedAt,
    });

  const body = await readBodyBytes(c.req.raw, WEBHOOK_DELIVERY_LIMIT).catch((error: unknown) => error);
  const row = await findWebhookRow(db, id);
  if (!(body instanceof Uint8Array)) {
    const throttled = await refusalThrottled(c.env, headers);
    if (throttled) return throttled;
    await record(row, "refused", { reason: body instanceof ApiError ? body.message : "the body could not be read" });
    throw body;
  }

  const key = await requireSealingKey(c.env.TOOLPROOF_SECRET);
  const live = row !== undefined && row.deleted_at === null;
  const secret = live ? await openWebhookSecret(key, row) : await dummySecret(key);
  const format = live ? row.format : headers.has("x-hub-signature-256") ? "github" : "standard";
  const verified =
    format === "github"
      ? await verifyGithubDelivery(secret, body, headers)
      : await verifyStandardDelivery(secret, body, headers);
  const refusal = !row
    ? "no such webhook"
    : !live
      ? "the webhook is deleted"
      : secret === undefined
        ? "the webhook's secret does not open with this deployment's TOOLPROOF_SECRET"
        : verified.ok
          ? null
          : verified.reason;
  if (refusal !== null) {
    const throttled = await refusalThrottled(c.env, headers);
    if (throttled) return throttled;
    await record(row, "refused", { reason: refusal });
    throw new ApiError("unauthorized", UNVERIFIED);
  }
  // SAFETY: refusal is null only when the row is live (checked above).
  const webhook = row as WebhookRow;

  let deliveryId: string;
  let source: GithubSource | null = null;
  if (format === "standard") {
    const timestamp = headers.get("webhook-timestamp") ?? "";
    if (!timestampFresh(timestamp, Date.now())) {
      const reason = `webhook-timestamp ${timestamp === "" ? "(empty)" : timestamp.slice(0, 20)} is not within ${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes of the server's clock`;
      await record(webhook, "refused", { reason });
      throw new ApiError("unauthorized", `${reason}: sign each delivery when it is sent`);
    }
    deliveryId = headers.get("webhook-id") ?? "";
    // Even signed, an empty id is no replay key: every later delivery with an empty one would replay it.
    if (deliveryId === "") {
      await record(webhook, "refused", { reason: "webhook-id is empty" });
      throw invalidRequest([
        {
          path: "/headers/webhook-id",
          message: "must not be empty: it is the message's unique id, the key a retry is known by",
        },
      ]);
    }
  } else {
    const event = headers.get("x-github-event");
    const delivery = headers.get("x-github-delivery");
    const missing = [...(event ? [] : ["X-GitHub-Event"]), ...(delivery ? [] : ["X-GitHub-Delivery"])];
    if (missing.length > 0 || !event || !delivery) {
      await record(webhook, "refused", { reason: `missing ${missing.join(" and ")}` });
      throw invalidRequest(
        missing.map((name) => ({
          path: `/headers/${name.toLowerCase()}`,
          message: `GitHub sends ${name} with every delivery`,
        })),
      );
    }
    deliveryId = delivery;
    const payload = parseJson(body);
    if (payload === undefined) {
      await record(webhook, "refused", { reason: "the body is not JSON", delivery_id: deliveryId });
      throw new ApiError(
        "malformed_json",
        "a GitHub delivery's body must be JSON: set the webhook's content type to application/json on GitHub",
      );
    }
    source = githubSource(event, payload);
    if (event === "ping") {
      await record(webhook, "ignored", { reason: "ping", delivery_id: deliveryId, source });
      return c.json({ ok: true, event: "ping", webhook: webhook.id }, 200);
    }
    const decision = filterDecision(webhookEventsOf(webhook) ?? [], source);
    if (!decision.take) {
      await record(webhook, "ignored", { reason: decision.reason, delivery_id: deliveryId, source });
      return c.json({ ignored: true, reason: decision.reason }, 202);
    }
  }

  // A replay key is compared whole: one cut short could make two deliveries one.
  if (deliveryId.length > MAX_DELIVERY_ID) {
    const header = format === "standard" ? "webhook-id" : "X-GitHub-Delivery";
    await record(webhook, "refused", { reason: `${header} is longer than ${MAX_DELIVERY_ID} characters`, source });
    throw invalidRequest([
      { path: `/headers/${header.toLowerCase()}`, message: `expected at most ${MAX_DELIVERY_ID} characters` },
    ]);
  }

  const trigger: Record<string, string> = { kind: "webhook", webhook_id: webhook.id, format, delivery_id: deliveryId };
  if (webhook.callback_url !== null) trigger.callback_url = webhook.callback_url;
  if (source) for (const [name, value] of Object.entries(source)) if (typeof value === "string") trigger[name] = value;

  // Two tries: the accepted row a claim lost to may be released (its run refused) before it is read.
  for (let attempt = 0; attempt < 2; attempt++) {
    const runId = c.var.ids.id("run");
    const claim = {
      id: c.var.ids.id("whd"),
      webhook_id: webhook.id,
      tenant_id: webhook.tenant_id,
      delivery_id: deliveryId,
      outcome: "accepted" as const,
      reason: null,
      run_id: runId,
      source: source ? JSON.stringify(source) : null,
      received_at: receivedAt,
    };
    if (await claimDelivery(db, claim)) {
      try {
        const started = await startWebhookRun(c.env, db, c.var.ids, webhook, runId, trigger);
        return c.json(
          {
            run_id: runId,
            delivery_id: deliveryId,
            replayed: false,
            status: "queued",
            total_repetitions: started.start.repetitions.length,
          },
          202,
        );
      } catch (error) {
        await releaseDelivery(db, claim.id, `the run did not start: ${messageOf(error)}`);
        throw error;
      }
    }
    const first = await acceptedDelivery(db, webhook.id, deliveryId);
    if (first?.run_id) {
      await record(webhook, "replayed", {
        reason: `delivery ${deliveryId} was accepted at ${first.received_at}`,
        delivery_id: deliveryId,
        run_id: first.run_id,
        source,
      });
      return c.json({ run_id: first.run_id, delivery_id: deliveryId, replayed: true }, 200);
    }
  }
  throw new ApiError("internal_error", `delivery ${deliveryId} could not be claimed; deliver it again`);
});

type Verified = { ok: true } | { ok: false; reason: string };

async function verifyStandardDelivery(
  secret: string | undefined,
  body: Uint8Array,
  headers: Headers,
): Promise<Verified> {
  const id = headers.get("webhook-id");
  const timestamp = headers.get("webhook-timestamp");
  const signature = headers.get("webhook-signature");
  // Verified even when headers are missing, so every refusal costs about the same.
  const valid = await verifyStandard(secret ?? UNOPENED_SECRET, id ?? "", timestamp ?? "", body, signature ?? "");
  if (id === null || timestamp === null || signature === null) {
    return {
      ok: false,
      reason: `missing ${[id === null ? "webhook-id" : "", timestamp === null ? "webhook-timestamp" : "", signature === null ? "webhook-signature" : ""].filter(Boolean).join(", ")}`,
    };
  }
  return valid && secret !== undefined ? { ok: true } : { ok: false, reason: "no webhook-signature entry matches" };
}

async function verifyGithubDelivery(secret: string | undefined, body: Uint8Array, headers: Headers): Promise<Verified> {
  const signature = headers.get("x-hub-signature-256");
  const valid = await verifyGithub(secret ?? UNOPENED_SECRET, body, signature ?? "");
  if (signature === null) return { ok: false, reason: "missing X-Hub-Signature-256" };
  return valid && secret !== undefined ? { ok: true } : { ok: false, reason: "X-Hub-Signature-256 does not match" };
}

let dummy: Promise<{ sealed: string; key: CryptoKey }> | undefined;

/** A secret no webhook has, opened like a real one so an unknown id costs what a known one does. */
async function dummySecret(key: CryptoKey): Promise<string | undefined> {
  if (!dummy || (await dummy).key !== key)
    dummy = sealWebhookSecret(key, "", "", webhookSecret(randomSecret(32))).then((sealed) => ({ sealed, key }));
  const { sealed } = await dummy;
  return openWebhookSecret(key, { tenant_id: "", id: "", sealed_secret: sealed });
}

/** The delivery's id for its log row; an empty header is none. */
function deliveryIdOf(headers: Headers): string | null {
  const value = headers.get("webhook-id") || headers.get("x-github-delivery");
  return value ? value.slice(0, MAX_DELIVERY_ID) : null;
}

function parseJson(body: Uint8Array): JsonValue | undefined {
  const text = utf8Text(body);
  if (text === undefined) return undefined;
  try {
    // SAFETY: JSON.parse yields JSON values only.
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
