/**
 * Reviewed tool policies: PUT keeps every change as a new version (author key and time), GET answers
 * the latest with the paginated history (or, without a name, the tenant's policies), and check runs
 * the same core check as the offline CLI.
 * Every route needs AIManager:ManageTools; another tenant's policy answers 404 like a missing one.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { appendPolicyVersion, findPolicyVersion, listPolicies, listPolicyVersions, type StoredPolicyVersion } from "../../adapters/d1/policies.js";
import type { JsonValue } from "../../core/json.js";
import { isJsonValue } from "../../core/policy/fields.js";
import { checkManifest } from "../../core/policy/check.js";
import { readManifest } from "../../core/policy/manifest.js";
import { parsePolicy } from "../../core/policy/parse-policy.js";
import { parseText } from "../../core/policy/parse-text.js";
import { MANIFEST_FORMATS, type Policy } from "../../core/policy/types.js";
import type { AppEnv } from "../env.js";
import { ApiError, invalidRequest, notFound } from "../http-error.js";
import { requirePermission } from "../middleware/auth.js";
import { readBodyWithHints } from "../field-hints.js";
import { readBodyText, readJson } from "../middleware/json-body.js";
import { pageCursor, pageLimit } from "../pagination.js";

/** A policy is a few dozen names and rules; 128 KiB leaves room for large MCP allow lists. */
export const POLICY_BODY_LIMIT = 128 * 1024;
/** A manifest carries every tool's parameter schema, and an MCP tools/list can be long. */
export const CHECK_BODY_LIMIT = 1024 * 1024;

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const YAML_TYPES = /^(application|text)\/(x-)?yaml\b/i;

const checkBody = z.strictObject({
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
  const after = pageCursor(c, ([name]) => (typeof name === "string" && NAME_PATTERN.test(name) ? name : undefined));
  const page = await listPolicies(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({ items: page.items, next_cursor: page.next === undefined ? null : encodeCursor([page.next]) });
});

policyRoutes.put("/:name", async (c) => {
  const name = policyName(c.req.param("name"));
  const document = await readPolicyDocument(c);
  const parsed = parsePolicy(document);
  if (!parsed.ok) throw invalidRequest(parsed.problems);
  const saved = await appendPolicyVersion(c.var.db, { tenantId: c.var.principal.tenantId, name, document, createdBy: c.var.principal.keyId });
  c.header("location", `/api/policies/${encodeURIComponent(name)}`);
  return c.json({ name, ...saved }, 201);
});

policyRoutes.get("/:name", async (c) => {
  const name = policyName(c.req.param("name"));
  const tenantId = c.var.principal.tenantId;
  const limit = pageLimit(c);
  const before = pageCursor(c, ([version]) => (typeof version === "number" && Number.isInteger(version) && version > 0 ? version : undefined));
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
    throw invalidRequest([{ path: "/manifest", message: 'required: the agent\'s tool manifest (toolproof\'s shape, an OpenAI tools array with "format": "openai", or an MCP tools/list result with "format": "mcp")' }]);
  }
  const stored = await findPolicyVersion(c.var.db, c.var.principal.tenantId, name, body.version);
  if (!stored) throw notFound(body.version === undefined ? "policy" : "policy version");
  const policy = storedPolicy(stored);
  const manifest = readManifest(body.manifest, policy, body.format === undefined ? {} : { format: body.format });
  if (!manifest.ok) throw invalidRequest(manifest.problems.map((problem) => ({ path: `/manifest${problem.path}`, message: problem.message })));
  const report = checkManifest(policy, manifest.manifest);
  return c.json({ ...report, policy: { name, version: stored.version } });
});

/** Parses a stored document; it passed this parser when saved, so a failure means the rules grew stricter since. */
export function storedPolicy(stored: StoredPolicyVersion): Policy {
  const parsed = parsePolicy(stored.document);
  if (parsed.ok) return parsed.policy;
  throw new ApiError("stored_policy_invalid", `policy "${stored.name}" version ${stored.version} no longer passes validation; PUT a corrected version`, { problems: parsed.problems });
}

export function policyName(raw: string): string {
  if (NAME_PATTERN.test(raw)) return raw;
  throw invalidRequest([{ path: "/params/name", message: "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit" }]);
}

function versionParam(raw: string): number {
  const version = Number(raw);
  if (/^[1-9][0-9]{0,8}$/.test(raw)) return version;
  throw invalidRequest([{ path: "/params/version", message: "expected a version number (1, 2, ...)" }]);
}

function versionView(stored: StoredPolicyVersion): { version: number; document: JsonValue; created_by: string; created_at: string } {
  return { version: stored.version, document: stored.document, created_by: stored.created_by, created_at: stored.created_at };
}

/** JSON through the shared reader; YAML (application/yaml) read here under the same size limit. */
async function readPolicyDocument(c: Context<AppEnv>): Promise<JsonValue> {
  const contentType = c.req.header("content-type") ?? "";
  if (!YAML_TYPES.test(contentType.trim())) {
    const value = await readJson(c, POLICY_BODY_LIMIT, ["application/yaml"]);
    return asJson(value);
  }
  const text = await readBodyText(c.req.raw, POLICY_BODY_LIMIT);
  const parsed = parseText(text, "yaml", { maxJsonBytes: POLICY_BODY_LIMIT });
  if (!parsed.ok) throw new ApiError("malformed_yaml", `the request body is ${parsed.message.startsWith("not") ? parsed.message : `not usable: ${parsed.message}`}`);
  return parsed.value;
}

function asJson(value: unknown): JsonValue {
  // JSON.parse only produces JSON values; the guard gives the value its type without a cast.
  if (isJsonValue(value)) return value;
  throw invalidRequest([{ path: "", message: "expected a policy document" }]);
}
