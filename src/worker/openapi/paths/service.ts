/** Routes outside /api that answer JSON: the health check and this document. */
import { z } from "zod";
import type { OperationDoc } from "../operation.js";
import { named } from "../schemas.js";

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
    description: "The OpenAPI 3.1 document of every API route, built from the zod schemas the routes validate with. GET /docs shows it in Swagger UI, served by this Worker (no CDN).",
    access: { kind: "public" },
    responses: { 200: { description: "The document.", schema: OpenApi } },
  },
];
