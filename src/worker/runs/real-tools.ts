/**
 * Real tools in a suite run: a run of a suite whose agent lists tools in real mode needs a
 * starter holding AIManager:RunRealTools (a run started by a webhook has no key, so never does),
 * and plans them against the tenant's upstreams and allowlist at the moment it starts.
 */
import { realModePaths } from "../../core/evals/suite-tools.js";
import type { RealToolContext } from "../../core/simulation/real-tools.js";
import type { Database, Env } from "../platform/env.js";
import { ApiError } from "../http/errors.js";
import type { StartRunRequest } from "./start-run-request.js";
import { realToolContext, RUN_REAL_TOOLS } from "../attempts/real/context.js";

export async function runRealTools(
  env: Env,
  db: Database,
  request: StartRunRequest,
): Promise<RealToolContext | undefined> {
  const paths = realModePaths(request.suite.document.agent.tools);
  if (paths.length === 0) return undefined;
  if (request.realToolsAllowed !== true) {
    const message = `this suite runs real tools, which needs a key holding ${RUN_REAL_TOOLS} to start it (a webhook never has one)`;
    throw new ApiError("forbidden", `${paths[0]}: ${message}`, {
      required_permission: RUN_REAL_TOOLS,
      problems: paths.map((path) => ({ path, message })),
    });
  }
  return realToolContext(env, db, request.tenantId, request.suite.document.agent.policy, "/agent/policy");
}
