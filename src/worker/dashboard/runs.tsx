/**
 * Runs pages (AIManager:RunEvals, as GET /api/runs): the runs list with a pass-rate chart per
 * suite, one run (grid, charts, comparison, repetitions), and an attempt's evidence timeline.
 * Loaders are in runs/data.ts, pure views in runs/*-view.tsx.
 */
import { Hono } from "hono";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError } from "../http/errors.js";
import { pageCursor, CREATED_CURSOR } from "../http/pagination.js";
import { seg } from "./format.js";
import { notFoundPage, page, pathParam, positiveIntQuery } from "./page.js";
import { attemptNotStartedPage, attemptPage } from "./runs/attempt-view.js";
import {
  attemptPageData,
  EVIDENCE_SHOWN,
  pendingRepetition,
  REPETITIONS_SHOWN,
  runPageData,
  runsPageData,
} from "./runs/data.js";
import { runsListPage, suiteCharts } from "./runs/list-view.js";
import { runPage } from "./runs/run-view.js";

const runs = { section: "runs", permission: "AIManager:RunEvals" } as const;

export const runPages = new Hono<AppEnv>();

runPages.get(
  "/",
  page(runs, async (c, viewer) => {
    const after = pageCursor(c, CREATED_CURSOR);
    const data = await runsPageData(c.env, c.var.db, viewer.principal.tenantId, after);
    const next = data.next ? `/runs?cursor=${seg(encodeCursor([data.next.created_at, data.next.id]))}` : undefined;
    return runsListPage(data.runs, suiteCharts(data.suites), next);
  }),
);

runPages.get(
  "/:id",
  page(runs, async (c, viewer) => {
    const data = await runPageData(
      c.env,
      c.var.db,
      viewer.principal.tenantId,
      pathParam(c, "id"),
      c.req.query("baseline"),
    ).catch((error: unknown) => {
      // The API's not_found for the run itself reads like every other missing thing, with the way back.
      if (error instanceof ApiError && error.code === "not_found") return undefined;
      throw error;
    });
    if (!data) return notFoundPage("run", { href: "/runs", label: "Back to the runs" });
    return runPage(data, REPETITIONS_SHOWN, Date.now(), c.req.query("reload") !== "off");
  }),
);

export const attemptPages = new Hono<AppEnv>();

attemptPages.get(
  "/:id",
  page(runs, async (c, viewer) => {
    const run = c.req.query("run");
    const n = positiveIntQuery(c, "n");
    const from = run !== undefined && n !== undefined ? { run, n } : undefined;
    const data = await attemptPageData(c.env, c.var.db, viewer.principal.tenantId, pathParam(c, "id"), from);
    if (!data) {
      const pending = await pendingRepetition(c.env, c.var.db, viewer.principal.tenantId, pathParam(c, "id"), from);
      return pending
        ? attemptNotStartedPage(pathParam(c, "id"), pending)
        : notFoundPage("attempt", { href: "/runs", label: "Back to the runs" });
    }
    return attemptPage(data, EVIDENCE_SHOWN);
  }),
);
