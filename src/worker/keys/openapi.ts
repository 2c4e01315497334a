/** API keys over HTTP (routes/keys.ts): mint, list, read, revoke; README, Deploy. */
import { z } from "zod";
import { ALL_PERMISSIONS } from "../platform/env.js";
import { createKeyRequest, type keyView } from "./routes.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import { assertSameFields, page, PAGING, timestamp, type SameFields } from "../http/openapi/common.js";

const Admin = { kind: "api_key", permission: "AIManager:Admin" } as const;
const keyParam = { id: "The key's id (key_...), as its create answer or the key list gives it." };

named("CreateApiKeyRequest", createKeyRequest);
const ApiKey = named(
  "ApiKey",
  z.object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe("The key's first 12 characters (tpk_ and 8 more), kept in clear to tell keys apart."),
    permissions: z.array(z.enum(ALL_PERMISSIONS)),
    created_at: timestamp,
    last_used_at: timestamp.nullable().describe("Advisory: written at most once a minute."),
    revoked_at: timestamp.nullable(),
  }),
);
assertSameFields<SameFields<ReturnType<typeof keyView>, z.input<typeof ApiKey>>>();
const NewApiKey = named(
  "NewApiKey",
  ApiKey.extend({ key: z.string().describe("The API key (tpk_...), shown this once: only its SHA-256 is stored.") }),
);

export const keyOperations: OperationDoc[] = [
  {
    method: "post",
    path: "/api/keys",
    tag: "API keys",
    summary: "Mint an API key",
    description:
      "A key grants only permissions it holds: AIManager:Admin implies ManageTools and RunEvals (and Admin), never AIManager:RunRealTools, which only a key holding it (the bootstrap key does) can hand on; 403 forbidden names each permission beyond the caller's (details.problems).",
    access: Admin,
    body: { schema: createKeyRequest, example: { name: "ci", permissions: ["AIManager:RunEvals"] } },
    responses: { 201: { description: "The new key, shown this once.", schema: NewApiKey } },
    errors: [...JSON_BODY_ERRORS],
  },
  {
    method: "get",
    path: "/api/keys",
    tag: "API keys",
    summary: "List the tenant's API keys",
    description: "Oldest first, paged, revoked ones included; never a key or its hash.",
    access: Admin,
    query: PAGING,
    responses: { 200: { description: "A page of keys.", schema: page("ApiKeyPage", ApiKey) } },
    errors: ["invalid_request"],
  },
  {
    method: "get",
    path: "/api/keys/:id",
    tag: "API keys",
    summary: "Read one API key",
    access: Admin,
    params: keyParam,
    responses: { 200: { description: "The key (never the key itself).", schema: ApiKey } },
    errors: ["not_found"],
  },
  {
    method: "delete",
    path: "/api/keys/:id",
    tag: "API keys",
    summary: "Revoke an API key",
    description:
      "Effective at once: the next request with the key answers 401. Revoking a revoked key answers it again, unchanged. The tenant's last unrevoked AIManager:Admin key cannot be revoked (409 last_admin_key): mint another Admin key first.",
    access: Admin,
    params: keyParam,
    responses: { 200: { description: "The revoked key.", schema: ApiKey } },
    errors: ["not_found", "last_admin_key"],
  },
];
