/** The Worker's entry point: the HTTP app and the Durable Object classes wrangler binds. */
import { createApp } from "./app.js";
import type { Env } from "./env.js";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;

export { AttemptObject } from "./attempt-object.js";
