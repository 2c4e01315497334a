/**
 * The first Admin key of a deployment (POST /api/bootstrap), minted only while the database holds
 * no API key at all, revoked ones included. "No key exists" is checked inside the same D1 batch
 * that writes the tenant and the key, and a D1 batch runs as one transaction on the one primary:
 * two bootstraps at once are applied one after the other, and the second finds the first's key
 * and writes nothing. No table of its own is needed, and once any key exists the door stays shut.
 */
import { newId } from "../crypto.js";
import { newKeyMaterial } from "./api-keys.js";
import type { Database } from "./database.js";

interface MintedAdminKey {
  key: string;
  tenant: { id: string; name: string };
  record: { id: string; name: string; prefix: string; permissions: string[]; created_at: string };
}

/** Mints the first key (Admin) for `tenantName`, creating the tenant when it does not exist; null when any key exists already. */
export async function mintFirstAdminKey(
  db: Database,
  input: { tenantName: string; keyName: string; permissions: readonly string[] },
): Promise<MintedAdminKey | null> {
  const d1 = db.$client;
  const { key, prefix, key_hash } = newKeyMaterial();
  const keyId = newId("key");
  const noKeys = "NOT EXISTS (SELECT 1 FROM api_keys)";
  const [, inserted] = await d1.batch([
    d1
      .prepare(
        `INSERT INTO tenants (id, name) SELECT ?1, ?2 WHERE ${noKeys} AND NOT EXISTS (SELECT 1 FROM tenants WHERE name = ?2)`,
      )
      .bind(newId("tnt"), input.tenantName),
    d1
      .prepare(
        `INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, permissions)
         SELECT ?1, tenants.id, ?2, ?3, ?4, ?5 FROM tenants WHERE tenants.name = ?6 AND ${noKeys}`,
      )
      .bind(keyId, input.keyName, prefix, key_hash, JSON.stringify([...input.permissions]), input.tenantName),
  ]);
  if (inserted?.meta.changes !== 1) return null;
  const row = await d1
    .prepare(
      `SELECT api_keys.created_at AS created_at, tenants.id AS tenant_id FROM api_keys JOIN tenants ON tenants.id = api_keys.tenant_id WHERE api_keys.id = ?`,
    )
    .bind(keyId)
    .first<{ created_at: string; tenant_id: string }>();
  if (!row) throw new Error("the bootstrap key vanished right after it was written");
  return {
    key,
    tenant: { id: row.tenant_id, name: input.tenantName },
    record: { id: keyId, name: input.keyName, prefix, permissions: [...input.permissions], created_at: row.created_at },
  };
}

/** Whether the database holds any API key, revoked ones included (bootstrap is shut once one does). */
export async function anyApiKeyExists(db: Database): Promise<boolean> {
  return (await db.$client.prepare("SELECT 1 AS found FROM api_keys LIMIT 1").first()) !== null;
}
