/**
 * Eval runs, with an API key holding AIManager:RunEvals:
 *
 * - POST /api/suites/:name/runs          start a run of the suite's latest version (or `version`):
 *                                        202 with the run's id; optional `runs_per_scenario`, `label`
 * - GET  /api/runs?suite=                the tenant's runs, newest first (paged)
 * - GET  /api/runs/:id                   status, verdict, hard-fail reasons, figures, pins, timings
 * - POST /api/runs/:id/cancel            pending repetitions are not run; the run ends `cancelled`
 * - GET  /api/runs/:id/repetitions       each repetition's outcome (paged by n)
 * - GET  /api/runs/:id/repetitions/:n    one repetition whole: calls, approval requests, judge, transcript
 *
 * Where answers come from: a run that is queued or running is read from its coordinator (live
 * figures); an ended one from D1, where the coordinator copied its final row and every record.
 * The D1 row is read first either way, so another tenant's run is a 404 like a missing one.
 */
import { Hono } from "hono";
import { RUN_REAL_TOOLS } from "../attempts/real/context.js";
import { z } from "zod";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { listRuns } from "../../adapters/d1/runs.js";
import { systemClock } from "../../core/ports.js";
import { RESOURCE_NAME } from "../../core/names.js";
import { documentName } from "../http/document-body.js";
import type { AppEnv } from "../platform/env.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { ApiError, invalidRequest, notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";
import { queryParam } from "../http/query.js";
import { pageCursor, pageLimit, CREATED_CURSOR, POSITION_CURSOR } from "../http/pagination.js";
import { runStub } from "./coordinator/access.js";
import { runnableSuite } from "./runnable-suite.js";
import { MAX_RUNS_PER_SCENARIO } from "../../core/evals/run-limits.js";
import { startRun } from "./start-run.js";
import { progressOfRow, repetitionDetail, repetitionSummary, runView } from "./view.js";
import { progressOf, repetitionItems, tenantRun } from "./run-queries.js";

export const runRequest = z.strictObject({
  runs_per_scenario: z
    .number()
    .int("expected a whole number")
    .min(1, "expected 1 or more")
    .max(MAX_RUNS_PER_SCENARIO, `expected at most ${MAX_RUNS_PER_SCENARIO}`)
    .optional(),
  label: z
    .string()
    .min(1, "expected a label of 1 to 200 characters")
    .max(200, "expected at most 200 characters")
    .optional(),
  version: z
    .number()
    .int("expected a version number (1, 2, ...)")
    .min(1, "expected a version number (1, 2, ...)")
    .optional(),
});

export const runRoutes = new Hono<AppEnv>();

runRoutes.post("/suites/:name/runs", requirePermission("AIManager:RunEvals"), async (c) => {
  const name = documentName(c.req.param("name"));
  // The body is optional: none at all (or an empty one) runs the latest version as saved.
  const empty = c.req.raw.body === null || c.req.header("content-length") === "0";
  const body = empty ? {} : await readBodyWithHints(c, runRequest);
  const { tenantId, keyId } = c.var.principal;
  const db = c.var.db;

  const runnable = await runnableSuite(db, tenantId, name, {
    version: body.version,
    runs_per_scenario: body.runs_per_scenario,
    missing: () =>
      body.version === undefined
        ? notFound("suite")
        : new ApiError("not_found", `suite "${name}" has no version ${body.version}`, {
            problems: [{ path: "/version", message: `no version ${body.version}` }],
          }),
  });

  const started = await startRun(
    {
      tenantId,
      keyId,
      suite: { name, version: runnable.version, document: runnable.suite },
      policy: runnable.policy,
      runsPerScenario: body.runs_per_scenario,
      label: body.label,
      trigger: { kind: "api" },
      realToolsAllowed: c.var.principal.permissions.has(RUN_REAL_TOOLS),
    },
    { env: c.env, db, ids: c.var.ids, clock: systemClock },
  );
  const { start } = started;
  c.header("location", `/api/runs/${start.run_id}`);
  return c.json(
    {
      id: start.run_id,
      status: "queued",
      suite: name,
      suite_version: runnable.version,
      label: start.label,
      runs_per_scenario: start.runs_per_scenario,
      total_repetitions: start.repetitions.length,
      pinned: started.pinned,
      created_at: new Date(start.created_at).toISOString(),
      deadline_at: new Date(start.deadline_at).toISOString(),
    },
    202,
  );
});

runRoutes.get("/runs", requirePermission("AIManager:RunEvals"), async (c) => {
  const suite = queryParam(c, "suite");
  if (suite !== undefined && !RESOURCE_NAME.test(suite))
    throw invalidRequest([{ path: "/query/suite", message: "expected a suite name" }]);
  const limit = pageLimit(c);
  const after = pageCursor(c, CREATED_CURSOR);
  const page = await listRuns(c.var.db, c.var.principal.tenantId, { suite, limit, after });
  const items = await Promise.all(page.items.map(async (row) => listItem(runView(row, await progressOf(c.env, row)))));
  return c.json({ items, next_cursor: page.next ? encodeCursor([page.next.created_at, page.next.id]) : null });
});

runRoutes.get("/runs/:id", requirePermission("AIManager:RunEvals"), async (c) => {
  const row = await tenantRun(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  return c.json(runView(row, await progressOf(c.env, row)));
});

runRoutes.post("/runs/:id/cancel", requirePermission("AIManager:RunEvals"), async (c) => {
  const row = await tenantRun(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  const reply = await runStub(c.env, row.id).cancel();
  const progress = reply.kind === "missing" ? progressOfRow(row) : reply.progress;
  return c.json(runView(row, progress));
});

runRoutes.get("/runs/:id/repetitions", requirePermission("AIManager:RunEvals"), async (c) => {
  const row = await tenantRun(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  const limit = pageLimit(c);
  const after = pageCursor(c, POSITION_CURSOR) ?? 0;
  const items = await repetitionItems(c.env, c.var.db, row, after, limit + 1);
  const page = items.slice(0, limit);
  const last = page[page.length - 1];
  return c.json({
    items: page.map(repetitionSummary),
    next_cursor: items.length > limit && last ? encodeCursor([last.n]) : null,
  });
});

runRoutes.get("/runs/:id/repetitions/:n", requirePermission("AIManager:RunEvals"), async (c) => {
  const row = await tenantRun(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  const raw = c.req.param("n");
  if (!/^[1-9][0-9]{0,8}$/.test(raw))
    throw invalidRequest([{ path: "/params/n", message: "expected a repetition number (1, 2, ...)" }]);
  const n = Number(raw);
  const [item] = await repetitionItems(c.env, c.var.db, row, n - 1, 1);
  if (!item || item.n !== n) throw notFound("repetition");
  return c.json(repetitionDetail(item));
});

/** What the list shows of each run: the headline, not every figure. */
function listItem(view: ReturnType<typeof runView>) {
  const {
    id,
    suite,
    suite_version,
    label,
    status,
    verdict,
    hard_fail,
    pass_rate,
    total_repetitions,
    finished_repetitions,
    created_at,
    started_at,
    finished_at,
  } = view;
  return {
    id,
    suite,
    suite_version,
    label,
    status,
    verdict,
    hard_fail,
    pass_rate,
    total_repetitions,
    finished_repetitions,
    created_at,
    started_at,
    finished_at,
  };
}
