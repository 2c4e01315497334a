/**
 * Eval suites, with an API key holding AIManager:RunEvals. Versioned with history like policies:
 *
 * - PUT /api/suites/:name                      save a version (JSON or YAML): 201 for version 1, 200 after;
 *                                              a suite identical to the latest version adds none
 * - GET /api/suites                            the tenant's suites, each with its latest version number
 * - GET /api/suites/:name                      the latest version
 * - GET /api/suites/:name/versions             the history, newest first
 * - GET /api/suites/:name/versions/:version    one version
 *
 * Saving: parseSuite (core) reads the document and fills the defaults in; resolveSuite plans the
 * agent's tools as a simulation would (refusals keep the simulation's codes, paths under
 * /agent/tools) and checks every function, variant, tool and policy name the scenarios use. A
 * connection the suite names need not exist yet: the answer lists it under `warnings`, and a run
 * refuses to start without it. Another tenant's suite answers 404 like a missing one.
 */
import { datasetCatalog } from "../../adapters/d1/dataset-pins.js";
import { Hono } from "hono";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { toolLibrary } from "../../adapters/d1/simulations.js";
import {
  appendSuiteVersion,
  getSuiteVersion,
  listSuites,
  listSuiteVersions,
  type StoredSuiteVersion,
} from "../../adapters/d1/suites.js";
import { parseSuite } from "../../core/evals/suite-parse.js";
import { resolveSuite } from "../../core/evals/suite-resolve.js";
import { documentName, readDocumentBody, versionParam } from "../http/document-body.js";
import type { AppEnv } from "../platform/env.js";
import { invalidRequest, notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";
import { pageCursor, pageLimit, NAME_CURSOR, VERSION_CURSOR } from "../http/pagination.js";
import { schemaValidator } from "../platform/services.js";
import { realModePaths } from "../../core/evals/suite-tools.js";
import { realToolContext, requireRealTools } from "../attempts/real/context.js";
import { planRefusalError } from "../http/plan-refusal.js";
import { requireListsFit } from "../attempts/setup-size.js";
import { httpUrlProblems } from "../http/schema-fields.js";
import { connectionWarnings, policySource } from "./stored-suite.js";

/** As a simulation's body: inline tools carry their mock definitions (up to 100 KB each). */
const SUITE_BODY_LIMIT = 4 * 1024 * 1024;

export const suiteRoutes = new Hono<AppEnv>();

suiteRoutes.use("*", requirePermission("AIManager:RunEvals"));

suiteRoutes.get("/", async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, NAME_CURSOR);
  const page = await listSuites(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({ items: page.items, next_cursor: page.next === undefined ? null : encodeCursor([page.next]) });
});

suiteRoutes.put("/:name", async (c) => {
  const name = documentName(c.req.param("name"));
  const { tenantId, keyId } = c.var.principal;
  const parsed = parseSuite(await readDocumentBody(c, SUITE_BODY_LIMIT, "a suite document"));
  if (!parsed.ok) throw invalidRequest(parsed.problems);
  if (parsed.suite.agent.kind === "external") {
    const endpoint = httpUrlProblems(parsed.suite.agent.endpoint, "/agent/endpoint", {
      example: "https://agent.example.com/toolproof/jobs",
      credentials: "the job is authenticated by its signature (agent.secret)",
    });
    if (endpoint.problems.length > 0) throw invalidRequest(endpoint.problems);
  }
  const realModes = realModePaths(parsed.suite.agent.tools);
  requireRealTools(c.var.principal, realModes);
  const real =
    realModes.length > 0
      ? await realToolContext(c.env, c.var.db, tenantId, parsed.suite.agent.policy, "/agent/policy")
      : undefined;
  const resolved = await resolveSuite(parsed.suite, {
    library: toolLibrary(c.var.db, tenantId),
    validator: schemaValidator(),
    policies: policySource(c.var.db, tenantId),
    real,
    datasets: datasetCatalog(c.var.db, tenantId),
  });
  // A tool or policy the document names that does not exist is a mistake in the document being
  // saved, like any other field: 400 with its path. (POST /api/suites/:name/runs, which pins a
  // stored suite, keeps the planner's 404: there the thing went missing after the document was saved.)
  if (!resolved.ok)
    throw resolved.refusal.kind === "not_found"
      ? invalidRequest(resolved.refusal.problems)
      : planRefusalError(resolved.refusal);
  const { suite, plan, policy, approval } = resolved;
  // A suite whose pins a run could not store is refused now, not at its first run.
  requireListsFit(plan.operations, plan.tools);

  const saved = await appendSuiteVersion(c.var.db, { tenantId, name, suite, createdBy: keyId });
  c.header("location", `/api/suites/${encodeURIComponent(name)}`);
  return c.json(
    {
      name,
      version: saved.version,
      created_by: saved.created_by,
      created_at: saved.created_at,
      changed: saved.appended,
      policy,
      functions: plan.operations.map((op) => ({
        name: op.function_name,
        tool_id: op.tool_id,
        tool_name: op.tool_name,
        operation_id: op.operation_id,
        revision: op.revision,
        variant: op.variant,
        approval_mode: approval[op.function_name] ?? null,
      })),
      warnings: await connectionWarnings(c.var.db, tenantId, suite),
    },
    saved.appended && saved.version === 1 ? 201 : 200,
  );
});

suiteRoutes.get("/:name", async (c) => {
  const name = documentName(c.req.param("name"));
  const stored = await getSuiteVersion(c.var.db, c.var.principal.tenantId, name);
  if (!stored) throw notFound("suite");
  return c.json(versionView(stored));
});

suiteRoutes.get("/:name/versions", async (c) => {
  const name = documentName(c.req.param("name"));
  const tenantId = c.var.principal.tenantId;
  const limit = pageLimit(c);
  const before = pageCursor(c, VERSION_CURSOR);
  const page = await listSuiteVersions(c.var.db, tenantId, name, { limit, before });
  // An empty first page means no such suite; a later empty page is just the end of the history.
  if (page.items.length === 0 && before === undefined) throw notFound("suite");
  return c.json({ name, items: page.items, next_cursor: page.next === undefined ? null : encodeCursor([page.next]) });
});

suiteRoutes.get("/:name/versions/:version", async (c) => {
  const name = documentName(c.req.param("name"));
  const version = versionParam(c.req.param("version"));
  const stored = await getSuiteVersion(c.var.db, c.var.principal.tenantId, name, version);
  if (!stored) throw notFound("suite version");
  return c.json(versionView(stored));
});

function versionView(stored: StoredSuiteVersion) {
  return {
    name: stored.name,
    version: stored.version,
    suite: stored.document,
    created_by: stored.created_by,
    created_at: stored.created_at,
  };
}
