/** POST /api/bootstrap through the Worker's own fetch handler, with the Worker secret TOOLPROOF_BOOTSTRAP_TOKEN set to `secret`. */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/worker/index.js";
import type { Env } from "../../src/worker/platform/env.js";

export async function bootstrapWithSecret(
  secret: string | undefined,
  options: { authorization?: string; body?: unknown } = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const request = new Request("http://toolproof.test/api/bootstrap", {
    method: "POST",
    headers,
    body: JSON.stringify(options.body ?? { tenant: "acme" }),
  });
  // SAFETY: a test request has no incoming cf properties; the handler reads none.
  const response = await worker.fetch(
    request as Request<unknown, IncomingRequestCfProperties>,
    { ...env, TOOLPROOF_BOOTSTRAP_TOKEN: secret } as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}
