/**
 * Model connections: an OpenAI-compatible endpoint (base URL, model or Azure deployment, API key,
 * extra headers, limits) stored per tenant under a name that suites and generation refer to. The
 * key and the header values are sealed under the deployment secret and never answered back: a
 * connection reads as `api_key_set: true` and its header names. `POST /:name/test` makes one cheap
 * call and says in words what went wrong. Every route needs AIManager:Admin; another tenant's
 * connection answers 404 like a missing one.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import {
  deleteConnection,
  findConnection,
  headerNamesOf,
  listConnections,
  putConnection,
  type StoredConnection,
} from "../../adapters/d1/connections.js";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { tcpProbe } from "../../adapters/model/tcp-probe.js";
import { openAIModelClient } from "../../adapters/model/openai-client.js";
import { sealingKey } from "../../adapters/secret-box.js";
import { pointer, type Problem } from "../../core/json.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, invalidRequest, notFound } from "../http/errors.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { requirePermission } from "../http/auth.js";
import { pageCursor, pageLimit, NAME_CURSOR } from "../http/pagination.js";
import { clientRecord, HEADER_VALUE_RULE, headerValue, httpUrlProblems, isHeaderValue } from "../http/schema-fields.js";
import { openStoredConnection } from "./model-clients.js";
import { sealConnectionSecrets, openConnectionSecrets, unreadableMessage } from "./connection-secrets.js";
// Connections follow the name rule of every named resource (policies, suites).
import { documentName as connectionName } from "../http/document-body.js";

const CONNECTION_BODY_LIMIT = 64 * 1024;
const CONNECTION_DEFAULTS = {
  timeout_ms: 60_000,
  max_retries: 2,
  max_concurrency: 8,
  structured_output: true,
} as const;
const CONNECTION_BOUNDS = {
  timeout_ms: [1_000, 600_000],
  max_retries: [0, 10],
  max_concurrency: [1, 64],
} as const;
/** The connection test waits at most this long, and never retries: it reports what the first try met. */
const TEST_TIMEOUT_MS = 30_000;
const MAX_HEADERS = 32;
/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** Headers the HTTP client owns: setting them would break the request, not configure it. */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "connection", "transfer-encoding"]);

const bounded = (field: keyof typeof CONNECTION_BOUNDS) => {
  const [min, max] = CONNECTION_BOUNDS[field];
  const message = `expected a whole number from ${min} to ${max}`;
  return z
    .number({ error: (issue) => (issue.input === undefined ? "required" : message) })
    .int(message)
    .min(min, message)
    .max(max, message);
};

export const connectionBody = z.strictObject({
  base_url: z.string().max(2048, "expected at most 2048 characters"),
  model: z
    .string()
    .min(1, "expected the model name (or the Azure deployment)")
    .max(256, "expected at most 256 characters"),
  api_key: headerValue(
    z.string().min(1, "expected the endpoint's API key").max(8192, "expected at most 8192 characters"),
  ).optional(),
  api_version: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "expected an Azure API version such as 2024-10-21")
    .nullable()
    .optional(),
  headers: clientRecord(z.string().max(8192, "expected at most 8192 characters")).optional(),
  timeout_ms: bounded("timeout_ms").optional(),
  max_retries: bounded("max_retries").optional(),
  max_concurrency: bounded("max_concurrency").optional(),
  structured_output: z.boolean().optional(),
});

export const testBody = z.strictObject({});

/** A connection as answered: everything but the key and the header values. */
export interface ConnectionView {
  name: string;
  base_url: string;
  model: string;
  api_version: string | null;
  api_key_set: true;
  headers: string[];
  timeout_ms: number;
  max_retries: number;
  max_concurrency: number;
  structured_output: boolean;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export const connectionRoutes = new Hono<AppEnv>();

connectionRoutes.use("*", requirePermission("AIManager:Admin"));

connectionRoutes.get("/", async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, NAME_CURSOR);
  const page = await listConnections(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({
    items: page.items.map(connectionView),
    next_cursor: page.next === undefined ? null : encodeCursor([page.next]),
  });
});

connectionRoutes.put("/:name", async (c) => {
  const name = connectionName(c.req.param("name"));
  const body = await readBodyWithHints(c, connectionBody, CONNECTION_BODY_LIMIT);
  const problems = [...baseUrlProblems(body.base_url), ...headerProblems(body.headers)];
  if (problems.length > 0) throw invalidRequest(problems);
  const key = await requireSealingKey(c);
  const tenantId = c.var.principal.tenantId;
  const existing = await findConnection(c.var.db, tenantId, name);

  // api_key and headers are write-only: left out of a replace, the stored ones are kept.
  let kept: { api_key: string; headers: Record<string, string> } | undefined;
  if (existing && (body.api_key === undefined || body.headers === undefined)) {
    kept = await openConnectionSecrets(key, existing);
    if (!kept)
      throw new ApiError(
        "connection_key_unreadable",
        `${unreadableMessage(name)} (or send both api_key and headers to replace them)`,
      );
  }
  const apiKey = body.api_key ?? kept?.api_key;
  if (apiKey === undefined)
    throw invalidRequest([
      {
        path: "/api_key",
        message: "required when creating a connection (on a replace, leave it out to keep the stored key)",
      },
    ]);
  const headers = body.headers === undefined ? (kept?.headers ?? {}) : { ...body.headers };

  const stored = await putConnection(c.var.db, {
    tenant_id: tenantId,
    name,
    base_url: body.base_url,
    model: body.model,
    api_version: body.api_version ?? null,
    header_names: JSON.stringify(Object.keys(headers)),
    sealed: await sealConnectionSecrets(key, tenantId, name, { api_key: apiKey, headers }),
    timeout_ms: body.timeout_ms ?? CONNECTION_DEFAULTS.timeout_ms,
    max_retries: body.max_retries ?? CONNECTION_DEFAULTS.max_retries,
    max_concurrency: body.max_concurrency ?? CONNECTION_DEFAULTS.max_concurrency,
    structured_output: body.structured_output ?? CONNECTION_DEFAULTS.structured_output,
    created_by: c.var.principal.keyId,
    updated_at: new Date().toISOString(),
  });
  c.header("location", `/api/connections/${encodeURIComponent(name)}`);
  return c.json(connectionView(stored), existing ? 200 : 201);
});

connectionRoutes.get("/:name", async (c) => {
  const name = connectionName(c.req.param("name"));
  const stored = await findConnection(c.var.db, c.var.principal.tenantId, name);
  if (!stored) throw notFound("connection");
  return c.json(connectionView(stored));
});

connectionRoutes.delete("/:name", async (c) => {
  const name = connectionName(c.req.param("name"));
  if (!(await deleteConnection(c.var.db, c.var.principal.tenantId, name))) throw notFound("connection");
  return c.json({ name, deleted: true });
});

/**
 * One cheap chat call with the stored settings, answered as 200 either way: the test ran, and
 * `ok: false` is what it found (kind, the endpoint's status, a sentence). Errors (4xx/5xx) are
 * kept for a test that could not run: no such connection, no deployment secret, a key that does
 * not open.
 */
connectionRoutes.post("/:name/test", async (c) => {
  const name = connectionName(c.req.param("name"));
  if (Number(c.req.header("content-length") ?? "0") > 0 || c.req.header("transfer-encoding"))
    await readBodyWithHints(c, testBody, 1024);
  await requireSealingKey(c);
  const opened = await openStoredConnection(c.env, c.var.db, c.var.principal.tenantId, name);
  if (!opened.ok) {
    if (opened.reason === "not_found") throw notFound("connection");
    if (opened.reason === "secret_missing") throw new ApiError("secret_not_configured", opened.message);
    throw new ApiError("connection_key_unreadable", opened.message);
  }
  const config = { ...opened.config, max_retries: 0, timeout_ms: Math.min(opened.config.timeout_ms, TEST_TIMEOUT_MS) };
  // No max_tokens: reasoning models refuse the parameter, and one word is cheap either way.
  const result = await openAIModelClient(config, Date.now, { probe: tcpProbe }).chat({
    messages: [{ role: "user", content: "Reply with the single word: ok" }],
  });
  if (result.ok)
    return c.json({ ok: true, connection: name, model: config.model, latency_ms: result.answer.latency_ms });
  const { kind, status, message } = result.failure;
  return c.json({ ok: false, connection: name, model: config.model, kind, status, message });
});

async function requireSealingKey(c: Context<AppEnv>): Promise<CryptoKey> {
  const key = await sealingKey(c.env.TOOLPROOF_SECRET);
  if (!key.ok)
    throw new ApiError("secret_not_configured", `model connections need the deployment secret: ${key.message}`);
  return key.key;
}

function connectionView(row: StoredConnection): ConnectionView {
  return {
    name: row.name,
    base_url: row.base_url,
    model: row.model,
    api_version: row.api_version,
    api_key_set: true,
    headers: headerNamesOf(row),
    timeout_ms: row.timeout_ms,
    max_retries: row.max_retries,
    max_concurrency: row.max_concurrency,
    structured_output: row.structured_output,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function baseUrlProblems(raw: string): Problem[] {
  // base_url is stored in the clear: a secret belongs in api_key or headers, which are sealed.
  const checked = httpUrlProblems(raw, "/base_url", {
    example: "https://api.openai.com/v1",
    credentials: "put the key in api_key or a header, which are stored encrypted",
  });
  if (checked.url === null) return checked.problems;
  if (checked.url.search !== "" || checked.url.hash !== "") {
    return [
      {
        path: "/base_url",
        message:
          "must not carry a query string or fragment (the client appends paths to it); put parameters in headers",
      },
    ];
  }
  return [];
}

function headerProblems(headers: Record<string, string> | undefined): Problem[] {
  if (headers === undefined) return [];
  const problems: Problem[] = [];
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS)
    problems.push({ path: "/headers", message: `expected at most ${MAX_HEADERS} headers` });
  const seen = new Set<string>();
  for (const name of names) {
    const value = headers[name] ?? "";
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name))
      problems.push({
        path: pointer("headers", name),
        message: "not a valid header name (letters, digits and !#$%&'*+.^_`|~-)",
      });
    else if (RESERVED_HEADERS.has(lower))
      problems.push({
        path: pointer("headers", name),
        message: `${lower} is set by the HTTP client and cannot be configured`,
      });
    else if (seen.has(lower))
      problems.push({
        path: pointer("headers", name),
        message: "the same header is given twice (header names ignore case)",
      });
    else if (!isHeaderValue(value)) problems.push({ path: pointer("headers", name), message: HEADER_VALUE_RULE });
    seen.add(lower);
  }
  return problems;
}
