/** Real handlers of library tools (routes/tool-upstream.ts) and the tenant's upstream host allowlist (routes/upstream-hosts.ts); docs/real-tools.md. */
import { z } from "zod";
import { HTTP_METHODS } from "../../core/tools/upstream.js";
import { upstreamRequest } from "./upstream-routes.js";
import { hostsRequest } from "./upstream-host-routes.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import { keyId, timestamp } from "../http/openapi/common.js";

const ManageTools = { kind: "api_key", permission: "AIManager:ManageTools" } as const;
const Admin = { kind: "api_key", permission: "AIManager:Admin" } as const;

named("UpstreamRequest", upstreamRequest);
named("UpstreamHostsRequest", hostsRequest);

const allowWrites = z
  .boolean()
  .optional()
  .describe("The operation may change state upstream (a write verb or a non-GET method is refused without it).");
const HttpOperation = z.object({
  method: z.enum(HTTP_METHODS),
  path: z.string().describe("A path template under base_url: /invoices/{invoice_id}."),
  query: z.array(z.string()).optional(),
  body: z.array(z.string()).optional(),
  allow_writes: allowWrites,
});
const McpOperation = z.object({
  tool: z.string().optional().describe("The upstream tool's name, when it differs from the operation id."),
  allow_writes: allowWrites,
});
const UpstreamCommon = {
  tool_id: z.string(),
  timeout_ms: z.number().int(),
  max_body_bytes: z.number().int(),
  credentials_set: z.boolean().describe("Credentials are stored (sealed); they are never answered back."),
  credential_headers: z
    .array(z.string())
    .describe("The names of the headers the credentials fill (authorization, ...)."),
  updated_at: timestamp,
  updated_by: keyId,
};
const Upstream = named(
  "Upstream",
  z
    .union([
      z.object({
        ...UpstreamCommon,
        kind: z.literal("http"),
        base_url: z.string(),
        operations: z.record(z.string(), HttpOperation),
      }),
      z.object({
        ...UpstreamCommon,
        kind: z.literal("mcp"),
        mcp_url: z.string(),
        operations: z.record(z.string(), McpOperation),
      }),
    ])
    .describe(
      "A tool's real handler: an http tool's base URL and per operation method and path, or an mcp tool's upstream MCP server.",
    ),
);
const UpstreamHosts = named(
  "UpstreamHosts",
  z.object({
    hosts: z
      .array(z.string())
      .describe("Host names, *.example.com or IP addresses, sorted; empty allows no real call."),
  }),
);

export const realToolOperations: OperationDoc[] = [
  {
    method: "put",
    path: "/api/tools/:id/upstream",
    tag: "Real tools",
    summary: "Declare a tool's real handler",
    description:
      'Replaces the whole declaration, credentials included. Declaring calls nothing: only a simulation or suite entry with mode "real", by a key with AIManager:RunRealTools, sends calls there. The URL\'s host must be public (no private, loopback or link-local address).',
    access: ManageTools,
    body: {
      schema: upstreamRequest,
      example: {
        base_url: "https://api.example.com",
        operations: { get_invoice: { method: "GET", path: "/invoices/{number}" } },
        credentials: { bearer: "sk-live-..." },
      },
    },
    responses: {
      200: {
        description: "The declaration (credentials only as credentials_set and their header names).",
        schema: Upstream,
      },
    },
    errors: [...JSON_BODY_ERRORS, "not_found", "upstream_not_allowed", "secret_not_configured"],
  },
  {
    method: "get",
    path: "/api/tools/:id/upstream",
    tag: "Real tools",
    summary: "Read a tool's real handler",
    access: ManageTools,
    responses: { 200: { description: "The declaration, never its credentials.", schema: Upstream } },
    errors: ["not_found"],
  },
  {
    method: "delete",
    path: "/api/tools/:id/upstream",
    tag: "Real tools",
    summary: "Remove a tool's real handler",
    access: ManageTools,
    responses: { 204: { description: "Removed." } },
    errors: ["not_found"],
  },
  {
    method: "get",
    path: "/api/upstream-hosts",
    tag: "Real tools",
    summary: "The hosts real-tools runs may call",
    access: Admin,
    responses: { 200: { description: "The tenant's allowlist.", schema: UpstreamHosts } },
  },
  {
    method: "put",
    path: "/api/upstream-hosts",
    tag: "Real tools",
    summary: "Replace the upstream host allowlist",
    description: "Host names are lower-cased, duplicates dropped, the list sorted. Ports are not part of an entry.",
    access: Admin,
    body: { schema: hostsRequest, example: { hosts: ["api.example.com", "*.internal-tools.example.com"] } },
    responses: {
      200: {
        description: "The list as stored.",
        schema: UpstreamHosts,
        example: { hosts: ["*.internal-tools.example.com", "api.example.com"] },
      },
    },
    errors: JSON_BODY_ERRORS,
  },
];
