/** A tenant's stored suite read back as a Suite, the connections it names that are missing, and the planner's view of the tenant's policies: shared by the suite routes, runs, labels and the dashboard. */
import { findPolicyVersion } from "../../adapters/d1/policies.js";
import { existingConnections, type StoredSuiteVersion } from "../../adapters/d1/suites.js";
import type { Database } from "../../adapters/d1/database.js";
import { readStoredSuite } from "../../core/evals/suite-parse.js";
import type { PolicySource } from "../../core/evals/suite-resolve.js";
import type { Suite } from "../../core/evals/suite-types.js";
import type { Problem } from "../../core/json.js";
import { ApiError } from "../http/errors.js";
import { storedPolicy } from "../policies/stored-policy.js";

/**
 * A stored version as a typed Suite (for the run routes too). It passed every check when saved,
 * so a failure means the rules grew stricter since: PUT the suite again.
 */
export function storedSuite(stored: StoredSuiteVersion): Suite {
  const read = readStoredSuite(stored.document);
  if (read.ok) return read.suite;
  throw new ApiError(
    "stored_suite_invalid",
    `suite "${stored.name}" version ${stored.version} no longer passes validation; PUT a corrected version`,
    { problems: read.problems },
  );
}

/** The connections the agent and the judge name that the tenant has not stored (yet). */
export async function connectionWarnings(db: Database, tenantId: string, suite: Suite): Promise<Problem[]> {
  const named: Array<{ path: string; name: string }> =
    suite.agent.kind === "builtin" ? [{ path: "/agent/connection", name: suite.agent.connection }] : [];
  if (suite.judge) named.push({ path: "/judge/connection", name: suite.judge.connection });
  const existing = await existingConnections(db, tenantId, [...new Set(named.map((n) => n.name))]);
  return named
    .filter((n) => !existing.has(n.name))
    .map((n) => ({
      path: n.path,
      message: `no connection named "${n.name}" yet: the suite is saved, and runs refuse to start until PUT /api/connections/${n.name} stores it`,
    }));
}

/** The planning port's companion: the tenant's policies, latest version, parsed. */
export function policySource(db: Database, tenantId: string): PolicySource {
  return {
    async latest(name) {
      const stored = await findPolicyVersion(db, tenantId, name);
      return stored ? { version: stored.version, policy: storedPolicy(stored) } : undefined;
    },
  };
}
