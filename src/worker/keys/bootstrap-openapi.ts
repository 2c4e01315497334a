/** Routes outside /api that answer JSON: the health check and this document. */
import { z } from "zod";
import { ALL_PERMISSIONS } from "../platform/env.js";
import { bootstrapRequest } from "./bootstrap-routes.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import { timestamp } from "../http/openapi/common.js";

const Health = named("Health", z.object({ ok: z.literal(true) }));
const OpenApi = named("OpenApiDocument", z.record(z.string(), z.unknown()).describe("An OpenAPI 3.1 document."));

export const serviceOperations: OperationDoc[] = [
  {
    method: "get",
    path: "/health",
    tag: "Service",
    summary: "Health check",
    access: { kind: "public" },
    responses: { 200: { description: "The Worker answers.", schema: Health, example: { ok: true } } },
  },
  {
    method: "get",
    path: "/openapi.json",
    tag: "Service",
    summary: "This document",
    description:
      "The OpenAPI 3.1 document of every API route, built from the zod schemas the routes validate with. GET /docs shows it in Swagger UI, served by this Worker (no CDN).",
    access: { kind: "public" },
    responses: { 200: { description: "The document.", schema: OpenApi } },
  },
];

const BootstrapAnswer = named(
  "BootstrapKey",
  z.object({
    tenant: z.object({ id: z.string(), name: z.string() }).describe("The tenant the key belongs to."),
    key: z.string().describe("The API key (tpk_...), shown this once."),
    key_id: z.string(),
    name: z.string(),
    prefix: z.string(),
    permissions: z
      .array(z.enum(ALL_PERMISSIONS))
      .describe(
        "Every permission, AIManager:RunRealTools included: the root key, from which every other key's permissions are handed on.",
      ),
    created_at: timestamp,
  }),
);
named("BootstrapRequest", bootstrapRequest);

export const bootstrapOperations: OperationDoc[] = [
  {
    method: "post",
    path: "/api/bootstrap",
    tag: "Service",
    summary: "Mint a deployment's first Admin key",
    description:
      "For a deployed instance, which has no local admin CLI (README, Deploy). Mints one root key (every permission, AIManager:RunRealTools included) only while the database holds no API key at all; after that it answers 401 for good. Off (503 secret_not_configured) without a TOOLPROOF_BOOTSTRAP_TOKEN secret of at least 32 characters.",
    access: { kind: "bootstrap_token" },
    body: { schema: bootstrapRequest, example: { tenant: "acme", key_name: "first admin" } },
    responses: { 201: { description: "The new key, shown this once.", schema: BootstrapAnswer } },
    errors: [...JSON_BODY_ERRORS, "secret_not_configured"],
  },
];
