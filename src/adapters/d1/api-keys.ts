/** API keys and tenants in D1. A key is shown once when created; only its SHA-256 is stored. */
import { and, eq, isNull } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { newId, randomSecret, sha256Hex } from "../crypto.js";
import { apiKeys, tenants } from "./schema.js";
import type * as schema from "./schema.js";

type Db = DrizzleD1Database<typeof schema>;

export const KEY_PREFIX = "tpk_";
/** How much of a key is kept in clear so people can tell their keys apart. */
const VISIBLE_PREFIX_LENGTH = KEY_PREFIX.length + 8;

export interface StoredKey {
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  permissions: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export async function findTenantByName(db: Db, name: string): Promise<{ id: string; name: string } | undefined> {
  return db.select({ id: tenants.id, name: tenants.name }).from(tenants).where(eq(tenants.name, name)).get();
}

export async function createTenant(db: Db, name: string): Promise<{ id: string; name: string }> {
  const tenant = { id: newId("tnt"), name };
  await db.insert(tenants).values(tenant);
  return tenant;
}

/** Creates a key and returns it in clear, the only time it is ever available. */
export async function createApiKey(
  db: Db,
  input: { tenantId: string; name: string; permissions: readonly string[] },
): Promise<{ key: string; record: StoredKey }> {
  const key = `${KEY_PREFIX}${randomSecret(32)}`;
  const row = {
    id: newId("key"),
    tenant_id: input.tenantId,
    name: input.name,
    prefix: key.slice(0, VISIBLE_PREFIX_LENGTH),
    key_hash: sha256Hex(key),
    permissions: JSON.stringify([...input.permissions]),
  };
  await db.insert(apiKeys).values(row);
  const stored = await db.select().from(apiKeys).where(eq(apiKeys.id, row.id)).get();
  if (!stored) throw new Error("key vanished right after insert");
  return { key, record: toStoredKey(stored) };
}

export async function findActiveKeyByHash(db: Db, keyHash: string): Promise<(StoredKey & { key_hash: string }) | undefined> {
  const row = await db.select().from(apiKeys).where(and(eq(apiKeys.key_hash, keyHash), isNull(apiKeys.revoked_at))).get();
  return row ? { ...toStoredKey(row), key_hash: row.key_hash } : undefined;
}

export async function listKeys(db: Db, tenantId: string): Promise<StoredKey[]> {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.tenant_id, tenantId)).orderBy(apiKeys.created_at, apiKeys.id).all();
  return rows.map(toStoredKey);
}

/** Revokes a key of the tenant; answers false when there is no such active key. */
export async function revokeKey(db: Db, tenantId: string, keyId: string): Promise<boolean> {
  const result = await db
    .update(apiKeys)
    .set({ revoked_at: new Date().toISOString() })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.tenant_id, tenantId), isNull(apiKeys.revoked_at)))
    .run();
  return result.meta.changes > 0;
}

export async function touchKey(db: Db, keyId: string, at: string): Promise<void> {
  await db.update(apiKeys).set({ last_used_at: at }).where(eq(apiKeys.id, keyId)).run();
}

function toStoredKey(row: typeof apiKeys.$inferSelect): StoredKey {
  const permissions: unknown = JSON.parse(row.permissions);
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    prefix: row.prefix,
    permissions: Array.isArray(permissions) ? permissions.filter((p): p is string => typeof p === "string") : [],
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}
