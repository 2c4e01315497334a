/**
 * A run started by a webhook delivery: the webhook's suite at its latest version, checked as the
 * run route checks it (runnable-suite.ts), then started by the run route's own startRun.
 *
 * The run id is chosen before the run starts, so the delivery can claim its id for that run
 * first: a replay racing the first delivery then answers the same run id without waiting for the
 * start (see webhook-receive.ts).
 */
import type { WebhookRow } from "../../adapters/d1/webhooks.js";
import { systemClock, type Ids } from "../../core/ports.js";
import type { Database, Env } from "../platform/env.js";
import { ApiError } from "../http/errors.js";
import { runnableSuite } from "../runs/runnable-suite.js";
import { startRun, type StartedRun } from "../runs/start-run.js";

export async function startWebhookRun(
  env: Env,
  db: Database,
  ids: Ids,
  webhook: WebhookRow,
  runId: string,
  trigger: Record<string, string>,
): Promise<StartedRun> {
  const runnable = await runnableSuite(db, webhook.tenant_id, webhook.suite_name, {
    runs_per_scenario: webhook.runs_per_scenario ?? undefined,
    missing: () =>
      new ApiError(
        "not_found",
        `the webhook's suite "${webhook.suite_name}" does not exist any more: PUT it again, or delete this webhook`,
      ),
  });
  return startRun(
    {
      tenantId: webhook.tenant_id,
      keyId: webhook.id,
      suite: { name: runnable.name, version: runnable.version, document: runnable.suite },
      policy: runnable.policy,
      runsPerScenario: webhook.runs_per_scenario ?? undefined,
      label: webhook.label ?? undefined,
      trigger,
    },
    // startRun takes its run id from ids.id("run"): this one hands it the id already claimed.
    {
      env,
      db,
      ids: { secret: (bytes) => ids.secret(bytes), id: (prefix) => (prefix === "run" ? runId : ids.id(prefix)) },
      clock: systemClock,
    },
  );
}
