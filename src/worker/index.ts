/** The Worker's entry point: the HTTP app and the Durable Object classes wrangler binds. */
import { createApp } from "./app.js";
import type { Env } from "./env.js";
import { errorResponse } from "./http-error.js";
import { dispatchCall, dispatchTarget } from "./routes/dispatch.js";

const app = createApp();

export default {
  fetch: (request, env, ctx) => {
    // Tool calls skip the router and its middleware: they are most of the traffic and need none of it.
    const attemptId = dispatchTarget(request);
    if (attemptId !== undefined) return dispatchCall(request, env, attemptId).catch(errorResponse);
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;

export { AttemptObject } from "./attempt-object.js";
export { RunCoordinator } from "./run-coordinator.js";
