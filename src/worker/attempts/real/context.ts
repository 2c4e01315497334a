/**
 * What planning needs for entries in real mode, read from D1 for one tenant: the tools'
 * upstreams, the tenant's host allowlist, whether loopback is allowed here, and the policy that
 * says which operations are writes. Also the permission rule: AIManager:RunRealTools is never
 * implied (not even by AIManager:Admin), so a key runs real tools only when it was granted that.
 */
import { findPolicyVersion } from "../../../adapters/d1/policies.js";
import { getUpstreams, listUpstreamHosts } from "../../../adapters/d1/upstreams.js";
import type { Problem } from "../../../core/json.js";
import type { RealToolContext } from "../../../core/simulation/real-tools.js";
import type { Database, Env, Principal } from "../../platform/env.js";
import { ApiError } from "../../http/errors.js";
import { storedPolicy } from "../../policies/stored-policy.js";
import { allowsLoopback } from "./send.js";

export const RUN_REAL_TOOLS = "AIManager:RunRealTools";

/** Refuses real mode to a key without AIManager:RunRealTools, naming every entry that asked for it. */
export function requireRealTools(principal: Principal, modePaths: readonly string[]): void {
  if (modePaths.length === 0 || principal.permissions.has(RUN_REAL_TOOLS)) return;
  const problems: Problem[] = modePaths.map((path) => ({
    path,
    message: `real mode needs the permission ${RUN_REAL_TOOLS}, which no key has unless an admin grants it`,
  }));
  throw new ApiError(
    "forbidden",
    `${modePaths[0]}: this API key lacks the permission ${RUN_REAL_TOOLS}, which real mode needs (it is never implied, not even by AIManager:Admin)`,
    {
      required_permission: RUN_REAL_TOOLS,
      problems,
    },
  );
}

/** The context for planning real operations; `policyName` names the policy whose write rules apply (else the defaults). */
export async function realToolContext(
  env: Env,
  db: Database,
  tenantId: string,
  policyName: string | undefined,
  policyPath = "/policy",
): Promise<RealToolContext> {
  let policy = null;
  if (policyName !== undefined) {
    const stored = await findPolicyVersion(db, tenantId, policyName);
    if (!stored)
      throw new ApiError("not_found", `${policyPath}: no policy "${policyName}"`, {
        problems: [{ path: policyPath, message: `no policy "${policyName}"` }],
      });
    policy = storedPolicy(stored);
  }
  return {
    upstreams: (toolIds) => getUpstreams(db, tenantId, toolIds),
    allowedHosts: await listUpstreamHosts(db, tenantId),
    allowLoopback: allowsLoopback(env),
    policy,
  };
}
