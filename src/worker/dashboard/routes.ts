/**
 * The dashboard: server-rendered pages at / (see README.md beside this file). Each page file is a
 * small Hono app mounted here under its path; no middleware runs for paths the dashboard does not
 * own, so /api, /health and the rest are untouched.
 */
import { Hono } from "hono";
import type { AppEnv } from "../platform/env.js";
import { FAVICON_PATH, faviconBytes } from "./favicon.js";
import { judgePages } from "./judges.js";
import { datasetPages } from "./datasets.js";
import { policyPages } from "./policies.js";
import { attemptPages, runPages } from "./runs.js";
import { signInPages } from "./sign-in.js";
import { STYLESHEET, STYLESHEET_PATH } from "./styles.js";
import { toolPages } from "./tools.js";

export const dashboardRoutes = new Hono<AppEnv>();

dashboardRoutes.get(STYLESHEET_PATH, (c) => {
  c.header("content-type", "text/css; charset=utf-8");
  c.header("cache-control", "public, max-age=300");
  return c.body(STYLESHEET);
});
dashboardRoutes.get(
  FAVICON_PATH,
  () =>
    new Response(faviconBytes(), {
      headers: { "content-type": "image/x-icon", "cache-control": "public, max-age=86400" },
    }),
);
dashboardRoutes.route("/", signInPages);
dashboardRoutes.route("/tools", toolPages);
dashboardRoutes.route("/policies", policyPages);
dashboardRoutes.route("/judges", judgePages);
dashboardRoutes.route("/runs", runPages);
dashboardRoutes.route("/attempts", attemptPages);
dashboardRoutes.route("/datasets", datasetPages);
// -- dashboard pages mount here --
