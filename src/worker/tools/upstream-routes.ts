/**
 * A library tool's real handler, for explicit real-tools runs (docs/real-tools.md), with an API
 * key holding AIManager:ManageTools:
 *
 * - PUT    /api/tools/:id/upstream  declare it (replaces the whole declaration, credentials included)
 * - GET    /api/tools/:id/upstream  read it back: credentials only as `credentials_set` and their header names
 * - DELETE /api/tools/:id/upstream  remove it
 *
 * An `http` tool gives a base URL and per operation a method and path template; an `mcp` tool
 * the URL of an upstream MCP server (Streamable HTTP). Credentials are sealed like connection keys
 * (secret-box.ts) and are never returned by any route. Declaring an upstream calls nothing; only a
 * simulation that asks for real mode, with AIManager:RunRealTools, ever sends a call.
 */
import { Hono } from "hono";
import { z } from "zod";
import { sealingKey } from "../../adapters/secret-box.js";
import { getTool, type StoredTool } from "../../adapters/d1/tools.js";
import { deleteUpstream, getUpstreams, putUpstream, type UpstreamRow } from "../../adapters/d1/upstreams.js";
import { pointer, type Problem } from "../../core/json.js";
import {
  addressRefusal,
  HTTP_METHODS,
  pathParameters,
  UPSTREAM_LIMITS,
  type UpstreamConfig,
} from "../../core/tools/upstream.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, invalidRequest, notFound } from "../http/errors.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { toolNotFound } from "./missing-tool.js";
import { sealUpstreamCredentials } from "../attempts/real/credentials.js";
import { allowsLoopback } from "../attempts/real/send.js";
import { clientRecord, headerValue, httpUrlProblems } from "../http/schema-fields.js";

const UPSTREAM_BODY_LIMIT = 64 * 1024;
const argumentName = z.string().min(1).max(200);
const httpOperation = z.strictObject({
  method: z.enum(HTTP_METHODS, { error: `expected one of ${HTTP_METHODS.join(", ")}` }),
  path: z.string().startsWith("/", "expected a path starting with /, such as /invoices/{invoice_id}").max(2000),
  query: z.array(argumentName).max(100).optional(),
  body: z.array(argumentName).max(100).optional(),
  allow_writes: z.boolean().optional(),
});
const mcpOperation = z.strictObject({
  tool: z.string().min(1).max(200).optional(),
  allow_writes: z.boolean().optional(),
});
const headerName = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
export const upstreamRequest = z.strictObject({
  base_url: z.string().max(2000).optional(),
  mcp_url: z.string().max(2000).optional(),
  operations: z.record(z.string(), z.unknown()),
  credentials: z
    .strictObject({
      bearer: headerValue(z.string().min(1).max(8000)).optional(),
      headers: clientRecord(headerValue(z.string().max(8000))).optional(),
    })
    .optional(),
  timeout_ms: z
    .number()
    .int("expected a whole number of milliseconds")
    .min(1)
    .max(UPSTREAM_LIMITS.maxTimeoutMs, `expected at most ${UPSTREAM_LIMITS.maxTimeoutMs}`)
    .default(UPSTREAM_LIMITS.defaultTimeoutMs),
  max_body_bytes: z
    .number()
    .int("expected a whole number of bytes")
    .min(1)
    .max(
      UPSTREAM_LIMITS.maxBodyBytes,
      `expected at most ${UPSTREAM_LIMITS.maxBodyBytes}: one call's evidence, the answer included, must fit one row of the attempt's storage and of D1`,
    )
    .default(UPSTREAM_LIMITS.defaultMaxBodyBytes),
});
type UpstreamRequest = z.output<typeof upstreamRequest>;

export const toolUpstreamRoutes = new Hono<AppEnv>();

toolUpstreamRoutes.put("/:id/upstream", async (c) => {
  const body = await readBodyWithHints(c, upstreamRequest, UPSTREAM_BODY_LIMIT);
  const { tenantId, keyId } = c.var.principal;
  const tool = await ownTool(c, c.req.param("id"));
  const config = upstreamConfig(tool, body, allowsLoopback(c.env));
  const headers = credentialHeaders(body.credentials);
  let sealed: string | null = null;
  if (Object.keys(headers).length > 0) {
    const key = await sealingKey(c.env.TOOLPROOF_SECRET);
    if (!key.ok)
      throw new ApiError("secret_not_configured", `upstream credentials need the deployment secret: ${key.message}`);
    sealed = await sealUpstreamCredentials(key.key, tenantId, tool.id, { headers });
  }
  const row: UpstreamRow = {
    tool_id: tool.id,
    config,
    sealed,
    credential_names: Object.keys(headers).sort(),
    updated_by: keyId,
    updated_at: new Date().toISOString(),
  };
  await putUpstream(c.var.db, tenantId, row);
  return c.json(upstreamView(tool, row));
});

toolUpstreamRoutes.get("/:id/upstream", async (c) => {
  const tool = await ownTool(c, c.req.param("id"));
  const row = (await getUpstreams(c.var.db, c.var.principal.tenantId, [tool.id])).get(tool.id);
  if (!row) throw notFound("upstream");
  return c.json(upstreamView(tool, row));
});

toolUpstreamRoutes.delete("/:id/upstream", async (c) => {
  const tool = await ownTool(c, c.req.param("id"));
  if (!(await deleteUpstream(c.var.db, c.var.principal.tenantId, tool.id))) throw notFound("upstream");
  return c.body(null, 204);
});

async function ownTool(c: { var: AppEnv["Variables"] }, id: string): Promise<StoredTool> {
  const tool = await getTool(c.var.db, c.var.principal.tenantId, id);
  if (!tool) throw await toolNotFound(c.var.db, c.var.principal.tenantId, id);
  return tool;
}

/** The declaration, checked against the tool: its kind's URL field, its own operations, their shapes. */
function upstreamConfig(tool: StoredTool, body: UpstreamRequest, allowLoopback: boolean): UpstreamConfig {
  const problems: Problem[] = [];
  const urlField = tool.kind === "mcp" ? "mcp_url" : "base_url";
  const otherField = tool.kind === "mcp" ? "base_url" : "mcp_url";
  if (tool.kind === "platform")
    throw invalidRequest([
      {
        path: "",
        message: "a platform tool has no upstream of its own: only http and mcp tools declare a real handler",
      },
    ]);
  if (body[otherField] !== undefined)
    problems.push({
      path: `/${otherField}`,
      message: `a${tool.kind === "mcp" ? "n mcp" : "n http"} tool declares ${urlField}, not ${otherField}`,
    });
  const raw = body[urlField];
  if (raw === undefined)
    problems.push({
      path: `/${urlField}`,
      message: `required: the ${tool.kind === "mcp" ? "upstream MCP server's URL (Streamable HTTP)" : "real handler's base URL"}`,
    });
  else {
    const checked = httpUrlProblems(raw, `/${urlField}`, {
      example: "https://api.example.com",
      credentials: "put them in credentials",
    });
    problems.push(...checked.problems);
    const refusal = checked.url ? addressRefusal(raw, allowLoopback) : null;
    if (refusal !== null)
      throw new ApiError("upstream_not_allowed", `/${urlField}: ${refusal}`, {
        problems: [{ path: `/${urlField}`, message: refusal }],
      });
  }
  const operationIds = tool.operations.map((op) => op.operation_id);
  const http: Record<string, z.output<typeof httpOperation>> = {};
  const mcp: Record<string, z.output<typeof mcpOperation>> = {};
  for (const [id, value] of Object.entries(body.operations)) {
    const at = pointer("operations", id);
    if (!operationIds.includes(id)) {
      problems.push({ path: at, message: `the tool has no operation "${id}" (it has ${operationIds.join(", ")})` });
      continue;
    }
    const schema = tool.kind === "mcp" ? mcpOperation : httpOperation;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push({ path: at + pointer(...issue.path.map(String)), message: issue.message });
      continue;
    }
    if (tool.kind === "mcp") mcp[id] = mcpOperation.parse(value);
    else {
      const op = httpOperation.parse(value);
      const inPath = pathParameters(op.path);
      for (const field of ["query", "body"] as const) {
        for (const name of op[field] ?? [])
          if (inPath.includes(name))
            problems.push({ path: `${at}/${field}`, message: `"${name}" already fills the path` });
      }
      http[id] = op;
    }
  }
  if (Object.keys(body.operations).length === 0)
    problems.push({
      path: "/operations",
      message: `expected at least one operation (the tool has ${operationIds.join(", ")})`,
    });
  if (problems.length > 0 || raw === undefined) throw invalidRequest(problems);
  const bounds = { timeout_ms: body.timeout_ms, max_body_bytes: body.max_body_bytes };
  return tool.kind === "mcp"
    ? { kind: "mcp", mcp_url: raw, operations: mcp, ...bounds }
    : { kind: "http", base_url: raw, operations: http, ...bounds };
}

function credentialHeaders(credentials: UpstreamRequest["credentials"]): Record<string, string> {
  const headers: Record<string, string> = {};
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(credentials?.headers ?? {})) {
    if (!headerName.test(name))
      problems.push({ path: pointer("credentials", "headers", name), message: "expected an HTTP header name" });
    headers[name.toLowerCase()] = value;
  }
  if (credentials?.bearer !== undefined) {
    if (Object.hasOwn(headers, "authorization"))
      problems.push({
        path: "/credentials/bearer",
        message: "give either bearer or an Authorization header, not both",
      });
    headers.authorization = `Bearer ${credentials.bearer}`;
  }
  if (problems.length > 0) throw invalidRequest(problems);
  return headers;
}

function upstreamView(tool: StoredTool, row: UpstreamRow) {
  const { kind: _kind, ...config } = row.config;
  return {
    tool_id: tool.id,
    kind: row.config.kind,
    ...config,
    credentials_set: row.sealed !== null,
    credential_headers: row.credential_names,
    updated_at: row.updated_at,
    updated_by: row.updated_by,
  };
}
