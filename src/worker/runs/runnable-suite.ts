/**
 * What must hold before a run of a suite may start, checked the same way whoever starts it (the
 * run route, a webhook delivery): the suite version exists, its repetitions fit in one run, the
 * model connections it names are stored, and the policy its agent names exists. Each refusal is
 * the ApiError the client gets.
 */
import { findPolicyVersion } from "../../adapters/d1/policies.js";
import { getSuiteVersion } from "../../adapters/d1/suites.js";
import type { Suite } from "../../core/evals/suite-types.js";
import { repetitionLimitProblem } from "../../core/evals/run-limits.js";
import { runScenarioCount } from "../../core/evals/suite-attacks.js";
import type { Policy } from "../../core/policy/types.js";
import type { Database } from "../platform/env.js";
import { ApiError, invalidRequest } from "../http/errors.js";
import { storedPolicy } from "../policies/stored-policy.js";
import { connectionWarnings, storedSuite } from "../suites/stored-suite.js";

interface RunnableSuite {
  name: string;
  version: number;
  suite: Suite;
  /** The agent's policy at its latest version, or null when the agent names none. */
  policy: Policy | null;
}

interface RunnableOptions {
  /** A version to run; the latest when absent. */
  version?: number | undefined;
  /** The run's override of the suite's runs_per_scenario. */
  runs_per_scenario?: number | undefined;
  /** The refusal when the suite (or the asked version) does not exist: the caller knows how to say it. */
  missing: () => ApiError;
}

export async function runnableSuite(
  db: Database,
  tenantId: string,
  name: string,
  options: RunnableOptions,
): Promise<RunnableSuite> {
  const stored = await getSuiteVersion(db, tenantId, name, options.version);
  if (!stored) throw options.missing();
  const suite = storedSuite(stored);
  const runsPerScenario = options.runs_per_scenario ?? suite.runs_per_scenario;
  const tooMany = repetitionLimitProblem(runScenarioCount(suite), suite.scenarios.length, runsPerScenario);
  if (tooMany) throw invalidRequest([tooMany]);

  // The same check that warned when the suite was saved; a run cannot start without them.
  const missing = await connectionWarnings(db, tenantId, suite);
  if (missing.length > 0) {
    throw new ApiError(
      "model_connection_required",
      missing.map((problem) => `${problem.path}: ${problem.message}`).join("; "),
      { problems: missing },
    );
  }

  let policy: Policy | null = null;
  if (suite.agent.policy !== undefined) {
    const found = await findPolicyVersion(db, tenantId, suite.agent.policy);
    if (!found) {
      throw new ApiError("not_found", `/agent/policy: the suite's policy "${suite.agent.policy}" does not exist`, {
        problems: [{ path: "/agent/policy", message: `no policy "${suite.agent.policy}"` }],
      });
    }
    policy = storedPolicy(found);
  }
  return { name, version: stored.version, suite, policy };
}
