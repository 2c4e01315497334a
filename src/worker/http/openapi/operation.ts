/**
 * How a route is described for GET /openapi.json: one OperationDoc per method and path, kept in
 * src/worker/openapi/paths/<resource>.ts beside (not inside) the route files, so documenting a
 * route never edits its handler. Bodies and answers are zod schemas: request bodies are the very
 * schemas the routes validate with (exported from the route files), answers are written for the
 * document. Every schema is registered by name (`named`), so it becomes one component.
 */
import type { z } from "zod";
import type { ErrorCode } from "../errors.js";
import type { Permission } from "../../platform/env.js";

/** Who may call a route: which credential it takes (see security.ts). */
export type Access =
  | { kind: "public" }
  | { kind: "api_key"; permission: Permission }
  /** The attempt's capability token (from POST /api/simulations); `orApiKey`: an API key of the tenant works too. */
  | {
      kind: "attempt_token";
      orApiKey?: Permission /** MCP: a refused token is 403, not 401 (MCP clients start OAuth on a 401). */;
      refusedWith403?: true;
    }
  | { kind: "webhook_signature" }
  /** POST /api/bootstrap: the deployment's TOOLPROOF_BOOTSTRAP_TOKEN secret, while no API key exists. */
  | { kind: "bootstrap_token" };

interface MediaDoc {
  schema: z.ZodType;
  /** One example, checked against `schema` by the tests. */
  example?: unknown;
}

export interface AnswerDoc extends MediaDoc {
  description: string;
  /** Answers in another media type than application/json (the viewer's HTML, a YAML body). */
  contentType?: string;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

export interface ParameterDoc {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  required?: boolean;
}

export interface OperationDoc {
  method: "get" | "post" | "put" | "delete";
  /** As Hono writes it: /api/tools/:id (turned into /api/tools/{id} in the document). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** Path parameters by name; a parameter the path has but this leaves out gets PATH_PARAMETERS' wording. */
  params?: Record<string, string>;
  query?: ParameterDoc[];
  headers?: ParameterDoc[];
  body?: MediaDoc & { required?: boolean; description?: string; contentTypes?: readonly string[] };
  responses: Partial<Record<200 | 201 | 202, AnswerDoc>> & {
    /** An answer without a body. */
    204?: { description: string };
  };
  /** Error codes the route can answer besides the access ones; grouped by status from ERROR_STATUS. */
  errors?: readonly ErrorCode[];
}

/** Errors of any route that reads a JSON body (src/worker/http/json-body.ts, field-hints.ts). */
export const JSON_BODY_ERRORS: readonly ErrorCode[] = [
  "invalid_request",
  "malformed_json",
  "invalid_encoding",
  "payload_too_large",
  "unsupported_media_type",
];
