/** The Worker's entry point: the HTTP app, the eval queue's consumer, the retention cron and the Durable Object classes wrangler binds. */
import { WorkerEntrypoint } from "cloudflare:workers";
import { createApp } from "./app.js";
import type { Env } from "./platform/env.js";
import { modelClientFor } from "./connections/model-clients.js";
import { evalQueueHandler } from "./runs/consumer/queue.js";
import { errorResponse } from "./http/errors.js";
import { sweepRetention } from "./runs/retention.js";
import { dispatchCall, dispatchTarget } from "./attempts/dispatch.js";
import { CALLBACK_QUEUE_NAME, callbackQueue } from "./runs/callbacks.js";

const app = createApp();
const queue = evalQueueHandler(modelClientFor);

const worker = {
  fetch: (request, env, ctx) => {
    // Tool calls skip the router and its middleware: they are most of the traffic and need none of it.
    const attemptId = dispatchTarget(request);
    if (attemptId !== undefined) return dispatchCall(request, env, attemptId).catch(errorResponse);
    return app.fetch(request, env, ctx);
  },
  // The eval queue and its dead-letter queue (the handler tells them apart by the batch's queue), and the callback queue.
  queue: (batch, env) => (batch.queue === CALLBACK_QUEUE_NAME ? callbackQueue(batch, env) : queue(batch, env)),
  // The Cron Trigger (wrangler.toml [triggers]): deletes ended runs older than TOOLPROOF_RETENTION_DAYS, if set.
  scheduled: async (controller, env) => {
    const sweep = await sweepRetention(env, controller.scheduledTime);
    if (sweep.deleted > 0)
      console.log(
        `retention: deleted ${sweep.deleted} ended run(s)${sweep.more ? "; more are due, the next tick continues" : ""}`,
      );
  },
} satisfies ExportedHandler<Env, unknown>;

export default worker;

/**
 * The same HTTP handler as a named entrypoint, for the local server's socket (scripts/local-server.ts).
 * Miniflare sends a Worker's default entrypoint through its static-asset router when wrangler.toml
 * has [assets]: three more isolates (a proxy, the router, the asset lookup) run before this code on
 * every request, which measured more CPU per call than toolproof's own dispatch. A named
 * entrypoint is served by this Worker directly; the only assets (/docs/assets/*) have their own
 * route here, through the ASSETS binding. Deployed, it changes nothing: Cloudflare routes public
 * requests to the default entrypoint, and nothing binds this one.
 */
export class DirectHttp extends WorkerEntrypoint<Env> {
  override fetch(request: Request<unknown, IncomingRequestCfProperties>): Response | Promise<Response> {
    return worker.fetch(request, this.env, this.ctx);
  }
}

export { AttemptObject } from "./attempts/object.js";
export { RunCoordinator } from "./runs/coordinator/run-coordinator.js";
