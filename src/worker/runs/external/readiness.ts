/** What an external agent's run needs before it starts: where agents reach us, and its signing secret. */
import type { Database } from "../../../adapters/d1/database.js";
import { findAgentSecret } from "../../../adapters/d1/external-agents.js";
import { sealingKey } from "../../../adapters/secret-box.js";
import type { ExternalAgent } from "../../../core/evals/suite-types.js";
import type { Env } from "../../platform/env.js";
import { ApiError } from "../../http/errors.js";

/** Answers the deployment secret, from which the run's attempt tokens are derived (attempt-token.ts). */
export async function requireExternalAgentReady(
  env: Env,
  db: Database,
  tenantId: string,
  agent: ExternalAgent,
): Promise<string> {
  const key = await sealingKey(env.TOOLPROOF_SECRET);
  if (!key.ok)
    throw new ApiError(
      "secret_not_configured",
      `an external agent's jobs are signed and its attempt tokens derived with the deployment secret: ${key.message}`,
    );
  if ((env.TOOLPROOF_PUBLIC_URL ?? "").trim() === "") {
    throw new ApiError(
      "public_url_not_configured",
      "an external agent's jobs carry the attempt's dispatch_url and mcp_url, so the deployment must know its public URL: set TOOLPROOF_PUBLIC_URL (wrangler.toml [vars], or `npm start` sets it to its own address)",
    );
  }
  if (!(await findAgentSecret(db, tenantId, agent.secret))) {
    throw new ApiError("not_found", `/agent/secret: no agent secret named "${agent.secret}"`, {
      problems: [
        {
          path: "/agent/secret",
          message: `no agent secret "${agent.secret}" (PUT /api/agent-secrets/${agent.secret} first)`,
        },
      ],
    });
  }
  return env.TOOLPROOF_SECRET ?? "";
}
