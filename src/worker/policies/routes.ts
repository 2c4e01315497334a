/**
 * Reviewed tool policies: PUT keeps every change as a new version (author key and time), GET answers
 * the latest with the paginated history (or, without a name, the tenant's policies), and check runs
 * the same core check as the offline CLI.
 * Every route needs AIManager:ManageTools; another tenant's policy answers 404 like a missing one.
 */
import { Hono } from "hono";
import { z } from "zod";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import {
  appendPolicyVersion,
  findPolicyVersion,
  listPolicies,
  listPolicyVersions,
  type StoredPolicyVersion,
} from "../../adapters/d1/policies.js";
import type { JsonValue } from "../../core/json.js";
import { checkManifest } from "../../core/policy/check.js";
import { readManifest } from "../../core/policy/manifest.js";
import { parsePolicy } from "../../core/policy/parse-policy.js";
import { MANIFEST_FORMATS } from "../../core/policy/types.js";
import type { AppEnv } from "../platform/env.js";
import { readDocumentBody, versionParam } from "../http/document-body.js";
import { invalidRequest, notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { pageCursor, pageLimit, NAME_CURSOR, VERSION_CURSOR } from "../http/pagination.js";
import { policyName, storedPolicy } from "./stored-policy.js";

/** A policy is a few dozen names and rules; 128 KiB leaves room for large MCP allow lists. */
const POLICY_BODY_LIMIT = 128 * 1024;
/** A manifest carries every tool's parameter schema, and an MCP tools/list can be long. */
const CHECK_BODY_LIMIT = 1024 * 1024;

export const checkBody = z.strictObject({
  // Optional here so its absence gets the explanatory message below rather than a bare "required".
  manifest: z.unknown().optional(),
  format: z.enum(MANIFEST_FORMATS, { error: `expected one of ${MANIFEST_FORMATS.join(", ")}` }).optional(),
  version: z.number().int().positive().optional(),
});

export const policyRoutes = new Hono<AppEnv>();

policyRoutes.use("*", requirePermission("AIManager:ManageTools"));

/** The tenant's policies by name, each with its latest version number and when it was last changed. */
policyRoutes.get("/", async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, NAME_CURSOR);
  const page = await listPolicies(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({ items: page.items, next_cursor: page.next === undefined ? null : encodeCursor([page.next]) });
});

policyRoutes.put("/:name", async (c) => {
  const name = policyName(c.req.param("name"));
  const document = await readDocumentBody(c, POLICY_BODY_LIMIT, "a policy document");
  const parsed = parsePolicy(document);
  if (!parsed.ok) throw invalidRequest(parsed.problems);
  const saved = await appendPolicyVersion(c.var.db, {
    tenantId: c.var.principal.tenantId,
    name,
    document,
    createdBy: c.var.principal.keyId,
  });
  c.header("location", `/api/policies/${encodeURIComponent(name)}`);
  return c.json({ name, ...saved }, 201);
});

policyRoutes.get("/:name", async (c) => {
  const name = policyName(c.req.param("name"));
  const tenantId = c.var.principal.tenantId;
  const limit = pageLimit(c);
  const before = pageCursor(c, VERSION_CURSOR);
  const latest = await findPolicyVersion(c.var.db, tenantId, name);
  if (!latest) throw notFound("policy");
  const page = await listPolicyVersions(c.var.db, tenantId, name, { limit, before });
  return c.json({
    name,
    latest: versionView(latest),
    items: page.items.map(versionView),
    next_cursor: page.next === undefined ? null : encodeCursor([page.next]),
  });
});

policyRoutes.get("/:name/versions/:version", async (c) => {
  const name = policyName(c.req.param("name"));
  const version = versionParam(c.req.param("version"));
  const stored = await findPolicyVersion(c.var.db, c.var.principal.tenantId, name, version);
  if (!stored) throw notFound("policy version");
  return c.json({ name, ...versionView(stored) });
});

policyRoutes.post("/:name/check", async (c) => {
  const name = policyName(c.req.param("name"));
  const body = await readBodyWithHints(c, checkBody, CHECK_BODY_LIMIT);
  if (body.manifest === undefined) {
    throw invalidRequest([
      {
        path: "/manifest",
        message:
          'required: the agent\'s tool manifest (toolproof\'s shape, an OpenAI tools array with "format": "openai", or an MCP tools/list result with "format": "mcp")',
      },
    ]);
  }
  const stored = await findPolicyVersion(c.var.db, c.var.principal.tenantId, name, body.version);
  if (!stored) throw notFound(body.version === undefined ? "policy" : "policy version");
  const policy = storedPolicy(stored);
  const manifest = readManifest(body.manifest, policy, body.format === undefined ? {} : { format: body.format });
  if (!manifest.ok)
    throw invalidRequest(
      manifest.problems.map((problem) => ({ path: `/manifest${problem.path}`, message: problem.message })),
    );
  const report = checkManifest(policy, manifest.manifest);
  return c.json({ ...report, policy: { name, version: stored.version } });
});

function versionView(stored: StoredPolicyVersion): {
  version: number;
  document: JsonValue;
  created_by: string;
  created_at: string;
} {
  return {
    version: stored.version,
    document: stored.document,
    created_by: stored.created_by,
    created_at: stored.created_at,
  };
}
