/**
 * An agent secret, sealed at rest with the connections' secret box (secret-box.ts) and bound to
 * its tenant and name: copied into another row, it does not open.
 */
import { open, seal } from "../../adapters/secret-box.js";

function agentSecretContext(tenantId: string, name: string): string {
  // JSON keeps the parts apart whatever characters they hold.
  return JSON.stringify(["agent-secret", tenantId, name]);
}

export function sealAgentSecret(key: CryptoKey, tenantId: string, name: string, secret: string): Promise<string> {
  return seal(key, secret, agentSecretContext(tenantId, name));
}

/** The secret, or undefined when it does not open (another deployment secret, another row, altered). */
export function openAgentSecret(
  key: CryptoKey,
  row: { tenant_id: string; name: string; sealed_secret: string },
): Promise<string | undefined> {
  return open(key, row.sealed_secret, agentSecretContext(row.tenant_id, row.name));
}
