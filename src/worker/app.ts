/**
 * The Hono application: services per request, one error mapping, and the routes mounted by resource.
 * Kept free of Durable Object classes so tests and tools can import it on its own.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { newId, randomSecret } from "../adapters/crypto.js";
import { databaseOf } from "../adapters/d1/database.js";
import type { Ids } from "../core/ports.js";
import type { AppEnv } from "./platform/env.js";
import { ApiError, errorResponse, fromHttpException } from "./http/errors.js";
import { authenticate } from "./http/auth.js";
import { methodNotAllowed } from "./http/method-not-allowed.js";
import { docsRoutes } from "./openapi/docs-routes.js";
import { metricRoutes } from "./policies/metric-routes.js";
import { policyRoutes } from "./policies/routes.js";
import { inlineTestingRoutes } from "./tools/inline-testing-routes.js";
import { toolTestingRoutes } from "./tools/testing-routes.js";
import { toolRoutes } from "./tools/routes.js";
import { toolUpstreamRoutes } from "./tools/upstream-routes.js";
import { upstreamHostRoutes } from "./tools/upstream-host-routes.js";
import { attemptCompletionRoutes, attemptRoutes } from "./attempts/routes.js";
import { completeExternalAttempt } from "./runs/external/complete.js";
import { attemptTurnRoutes } from "./runs/external/turn-routes.js";
import { connectionRoutes } from "./connections/routes.js";
import { simulationRoutes } from "./attempts/simulation-routes.js";
import { suiteRoutes } from "./suites/routes.js";
import { runRoutes } from "./runs/routes.js";
import { webhookReceiveRoutes } from "./webhooks/receive-routes.js";
import { runCallbackRoutes, webhookRoutes } from "./webhooks/routes.js";
import { labelRoutes } from "./runs/label-routes.js";
import { dashboardRoutes } from "./dashboard/routes.js";
import { agentSecretRoutes } from "./agent-secrets/routes.js";
import { bootstrapRoutes } from "./keys/bootstrap-routes.js";
import { keyRoutes } from "./keys/routes.js";
import { runDeletionRoutes } from "./runs/deletion-routes.js";
import { datasetRoutes } from "./datasets/routes.js";

/** What the app is built with; tests may steer it (ids, to make two requests meet one object). */
interface AppServices {
  ids: Ids;
}

const systemIds: Ids = { id: newId, secret: randomSecret };

export function createApp(services: Partial<AppServices> = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const ids = services.ids ?? systemIds;

  app.use("*", async (c, next) => {
    c.set("db", databaseOf(c.env.DB));
    c.set("ids", ids);
    await next();
  });
  // Before every route's own checks: a wrong method is the first thing wrong with a request.
  app.use(
    "*",
    methodNotAllowed(() => app.routes),
  );

  app.get("/health", (c) => c.json({ ok: true }));
  // The API reference (GET /openapi.json, GET /docs and the viewer's assets): public, no key.
  app.route("/", docsRoutes);

  // Capability-token routes (attempts) are mounted before the API-key middleware.
  app.route("/api/attempts", attemptRoutes);
  app.route("/api/attempts", attemptCompletionRoutes(completeExternalAttempt));
  app.route("/api/attempts", attemptTurnRoutes);
  // Webhook deliveries (POST /api/webhooks/:id) carry a signature, not an API key.
  app.route("/api/webhooks", webhookReceiveRoutes);
  // The first Admin key of a deployment: opened by the TOOLPROOF_BOOTSTRAP_TOKEN secret, while no key exists.
  app.route("/api/bootstrap", bootstrapRoutes);

  const api = new Hono<AppEnv>();
  api.use("*", authenticate);
  api.route("/tools/testing", inlineTestingRoutes);
  api.route("/tools", toolTestingRoutes);
  api.route("/tools", toolUpstreamRoutes);
  api.route("/upstream-hosts", upstreamHostRoutes);
  api.route("/tools", toolRoutes);
  api.route("/policies", policyRoutes);
  api.route("/metrics", metricRoutes);
  api.route("/simulations", simulationRoutes);
  api.route("/suites", suiteRoutes);
  api.route("/", runRoutes);
  api.route("/", labelRoutes);
  api.route("/connections", connectionRoutes);
  api.route("/webhooks", webhookRoutes);
  api.route("/agent-secrets", agentSecretRoutes);
  api.route("/runs", runCallbackRoutes);
  api.route("/keys", keyRoutes);
  api.route("/runs", runDeletionRoutes);
  api.route("/datasets", datasetRoutes);
  app.route("/api", api);
  // The dashboard's pages (/, /sign-in, /tools, ...): HTML for people, signed in with a session cookie.
  app.route("/", dashboardRoutes);

  app.notFound((c) =>
    new ApiError("not_found", `no route for ${c.req.method} ${new URL(c.req.url).pathname}`).toResponse(),
  );
  app.onError((error) => errorResponse(error instanceof HTTPException ? fromHttpException(error) : error));

  return app;
}
