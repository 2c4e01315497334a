/**
 * Agent secrets: the Standard Webhooks secrets that sign the jobs sent to external agents (a
 * suite's `agent.secret` names one). Managed with an API key holding AIManager:Admin:
 *
 * - PUT    /api/agent-secrets/:name   store one: `{}` generates a secret and answers it this once;
 *                                     `{"secret": "whsec_…"}` stores yours (not answered back)
 * - GET    /api/agent-secrets         names and dates, never a secret (paged)
 * - DELETE /api/agent-secrets/:name   runs of suites that name it refuse to start
 *
 * Putting a name again replaces its secret (that is the rotation): jobs sent after it carry the new
 * signature. Secrets are sealed under TOOLPROOF_SECRET like connection keys.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  deleteAgentSecret,
  findAgentSecret,
  listAgentSecrets,
  putAgentSecret,
  type AgentSecretRow,
} from "../../adapters/d1/external-agents.js";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { STANDARD_SECRET, webhookSecret } from "../../adapters/webhook-signature.js";
import { documentName } from "../http/document-body.js";
import type { AppEnv } from "../platform/env.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";
import { pageCursor, pageLimit, NAME_CURSOR } from "../http/pagination.js";
import { requireSealingKey } from "../http/webhook-secret.js";
import { sealAgentSecret } from "./agent-secret.js";

const BODY_LIMIT = 8 * 1024;
/** Random bytes in a generated secret (Standard Webhooks takes 24 to 64). */
const SECRET_BYTES = 32;

export const agentSecretBody = z.strictObject({
  // The signer's own rule (webhook-signature.ts): a secret it takes, every Standard Webhooks library
  // reads as the same key, so a job is never signed with a key the agent does not derive.
  secret: z
    .string()
    .regex(
      STANDARD_SECRET,
      "expected a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 random bytes, padded with = to a multiple of 4 characters (openssl rand -base64 32 makes one)",
    )
    .optional(),
});

export const agentSecretRoutes = new Hono<AppEnv>();
agentSecretRoutes.use("*", requirePermission("AIManager:Admin"));

agentSecretRoutes.put("/:name", async (c) => {
  const name = documentName(c.req.param("name"));
  const body = await readBodyWithHints(c, agentSecretBody, BODY_LIMIT);
  const { tenantId, keyId } = c.var.principal;
  const key = await requireSealingKey(c.env.TOOLPROOF_SECRET);
  const secret = body.secret ?? webhookSecret(c.var.ids.secret(SECRET_BYTES));
  const existing = await findAgentSecret(c.var.db, tenantId, name);
  const row = await putAgentSecret(c.var.db, {
    tenant_id: tenantId,
    name,
    sealed_secret: await sealAgentSecret(key, tenantId, name, secret),
    created_by: keyId,
  });
  c.header("location", `/api/agent-secrets/${encodeURIComponent(name)}`);
  // A generated secret is shown this once; one the client chose is never echoed.
  // 201 when the name is new, 200 when this replaced its secret: as every PUT here answers.
  return c.json(body.secret === undefined ? { ...secretView(row), secret } : secretView(row), existing ? 200 : 201);
});

agentSecretRoutes.get("/", async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, NAME_CURSOR);
  const rows = await listAgentSecrets(c.var.db, c.var.principal.tenantId, { limit: limit + 1, after });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return c.json({
    items: items.map(secretView),
    next_cursor: rows.length > limit && last ? encodeCursor([last.name]) : null,
  });
});

agentSecretRoutes.delete("/:name", async (c) => {
  const name = documentName(c.req.param("name"));
  if (!(await deleteAgentSecret(c.var.db, c.var.principal.tenantId, name))) throw notFound("agent secret");
  return c.json({ name, deleted: true });
});

function secretView(row: AgentSecretRow) {
  return { name: row.name, created_by: row.created_by, created_at: row.created_at };
}
