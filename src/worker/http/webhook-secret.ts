/**
 * A webhook's signing secret, sealed at rest with the connections' secret box (secret-box.ts) and
 * bound to its tenant and webhook id: copied into another row, it does not open.
 */
import { open, seal, sealingKey } from "../../adapters/secret-box.js";
import { ApiError } from "./errors.js";

function webhookContext(tenantId: string, webhookId: string): string {
  // JSON keeps the parts apart whatever characters they hold.
  return JSON.stringify(["webhook", tenantId, webhookId]);
}

/** The sealing key, or the 503 that says how to configure it. */
export async function requireSealingKey(secret: string | undefined): Promise<CryptoKey> {
  const key = await sealingKey(secret);
  if (!key.ok) throw new ApiError("secret_not_configured", `webhooks need the deployment secret: ${key.message}`);
  return key.key;
}

export function sealWebhookSecret(
  key: CryptoKey,
  tenantId: string,
  webhookId: string,
  secret: string,
): Promise<string> {
  return seal(key, secret, webhookContext(tenantId, webhookId));
}

/** The secret, or undefined when it does not open (another deployment secret, another row, altered). */
export function openWebhookSecret(
  key: CryptoKey,
  row: { tenant_id: string; id: string; sealed_secret: string },
): Promise<string | undefined> {
  return open(key, row.sealed_secret, webhookContext(row.tenant_id, row.id));
}
