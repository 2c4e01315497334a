/** What an external agent's run needs before it starts: where agents reach us, and its signing secret. */
import type { Database } from "../../adapters/d1/database.js";
import { findAgentSecret } from "../../adapters/d1/external-agents.js";
import type { ExternalAgent } from "../../core/evals/suite-types.js";
import type { Env } from "../env.js";
import { ApiError } from "../http-error.js";

export async function requireExternalAgentReady(env: Env, db: Database, tenantId: string, agent: ExternalAgent): Promise<void> {
  if ((env.TOOLPROOF_PUBLIC_URL ?? "").trim() === "") {
    throw new ApiError(
      "public_url_not_configured",
      "an external agent's jobs carry the attempt's dispatch_url and mcp_url, so the deployment must know its public URL: set TOOLPROOF_PUBLIC_URL (wrangler.toml [vars], or `npm start` sets it to its own address)",
    );
  }
  if (!(await findAgentSecret(db, tenantId, agent.secret))) {
    throw new ApiError("not_found", `/agent/secret: no agent secret named "${agent.secret}"`, {
      problems: [{ path: "/agent/secret", message: `no agent secret "${agent.secret}" (PUT /api/agent-secrets/${agent.secret} first)` }],
    });
  }
}
