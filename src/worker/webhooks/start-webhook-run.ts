/**
 * A run started by a webhook delivery: the webhook's suite at its latest version, checked as the
 * run route checks it (the suite still exists, the repetitions fit, its connections and policy
 * exist), then started by the run route's own startRun.
 *
 * The run id is chosen before the run starts, so the delivery can claim its id for that run
 * first: a replay racing the first delivery then answers the same run id without waiting for the
 * start (see webhook-receive.ts).
 */
import { findPolicyVersion } from "../../adapters/d1/policies.js";
import { getSuiteVersion } from "../../adapters/d1/suites.js";
import type { WebhookRow } from "../../adapters/d1/webhooks.js";
import { systemClock, type Ids } from "../../core/ports.js";
import type { Database, Env } from "../env.js";
import { ApiError, invalidRequest } from "../http-error.js";
import { storedPolicy } from "../routes/policies.js";
import { MAX_REPETITIONS } from "../routes/runs.js";
import { connectionWarnings, storedSuite } from "../routes/suites.js";
import { startRun, type StartedRun } from "../run/start-run.js";

export async function startWebhookRun(env: Env, db: Database, ids: Ids, webhook: WebhookRow, runId: string, trigger: Record<string, string>): Promise<StartedRun> {
  const tenantId = webhook.tenant_id;
  const stored = await getSuiteVersion(db, tenantId, webhook.suite_name);
  if (!stored) throw new ApiError("not_found", `the webhook's suite "${webhook.suite_name}" does not exist any more: PUT it again, or delete this webhook`);
  const suite = storedSuite(stored);
  const runsPerScenario = webhook.runs_per_scenario ?? suite.runs_per_scenario;
  const total = runsPerScenario * suite.scenarios.length;
  if (total > MAX_REPETITIONS) {
    throw invalidRequest([{ path: "/runs_per_scenario", message: `the webhook's ${runsPerScenario} runs × ${suite.scenarios.length} scenarios is ${total} repetitions; one run may have at most ${MAX_REPETITIONS}` }]);
  }
  const missing = await connectionWarnings(db, tenantId, suite);
  if (missing.length > 0) throw new ApiError("model_connection_required", missing.map((problem) => `${problem.path}: ${problem.message}`).join("; "), { problems: missing });
  let policy = null;
  if (suite.agent.policy !== undefined) {
    const found = await findPolicyVersion(db, tenantId, suite.agent.policy);
    if (!found) throw new ApiError("not_found", `/agent/policy: the suite's policy "${suite.agent.policy}" does not exist`, { problems: [{ path: "/agent/policy", message: `no policy "${suite.agent.policy}"` }] });
    policy = storedPolicy(found);
  }
  return startRun(
    {
      tenantId,
      keyId: webhook.id,
      suite: { name: webhook.suite_name, version: stored.version, document: suite },
      policy,
      runs_per_scenario: webhook.runs_per_scenario ?? undefined,
      label: webhook.label ?? undefined,
      trigger,
    },
    // startRun takes its run id from ids.id("run"): this one hands it the id already claimed.
    { env, db, ids: { secret: (bytes) => ids.secret(bytes), id: (prefix) => (prefix === "run" ? runId : ids.id(prefix)) }, clock: systemClock },
  );
}
