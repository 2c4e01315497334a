/** API keys and tenants in D1. A key is shown once when created; only its SHA-256 is stored. */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { newId, randomSecret, sha256Hex } from "../crypto.js";
import { apiKeys, tenants } from "./schema.js";
import type * as schema from "./schema.js";

type Db = DrizzleD1Database<typeof schema>;

export const KEY_PREFIX = "tpk_";
/** How much of a key is kept in clear so people can tell their keys apart. */
const VISIBLE_PREFIX_LENGTH = KEY_PREFIX.length + 8;
/** The one permission that manages keys; the last unrevoked key holding it cannot be revoked. */
const ADMIN = "AIManager:Admin";

/** A fresh key: the secret (shown once), the part kept in clear, and the hash that is stored. The one place keys are made. */
export function newKeyMaterial(): { key: string; prefix: string; key_hash: string } {
  const key = `${KEY_PREFIX}${randomSecret(32)}`;
  return { key, prefix: key.slice(0, VISIBLE_PREFIX_LENGTH), key_hash: sha256Hex(key) };
}

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

/** A tenant's name (what people call it; its id is for machines). */
export async function findTenantName(db: Db, id: string): Promise<string | undefined> {
  return (await db.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, id)).get())?.name;
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
  const { key, prefix, key_hash } = newKeyMaterial();
  const row = {
    id: newId("key"),
    tenant_id: input.tenantId,
    name: input.name,
    prefix,
    key_hash,
    permissions: JSON.stringify([...input.permissions]),
  };
  await db.insert(apiKeys).values(row);
  const stored = await db.select().from(apiKeys).where(eq(apiKeys.id, row.id)).get();
  if (!stored) throw new Error("key vanished right after insert");
  return { key, record: toStoredKey(stored) };
}

export async function findActiveKeyByHash(
  db: Db,
  keyHash: string,
): Promise<(StoredKey & { key_hash: string }) | undefined> {
  const row = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.key_hash, keyHash), isNull(apiKeys.revoked_at)))
    .get();
  return row ? { ...toStoredKey(row), key_hash: row.key_hash } : undefined;
}

export async function listKeys(db: Db, tenantId: string): Promise<StoredKey[]> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.tenant_id, tenantId))
    .orderBy(apiKeys.created_at, apiKeys.id)
    .all();
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

/** Oldest first; the cursor is the (created_at, id) of the last item of the previous page. */
export async function listKeysPage(
  db: Db,
  tenantId: string,
  page: { limit: number; after?: { created_at: string; id: string } | undefined },
): Promise<{ items: StoredKey[]; next?: { created_at: string; id: string } | undefined }> {
  const after = page.after;
  const rows = await db
    .select()
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.tenant_id, tenantId),
        after
          ? sql`(${apiKeys.created_at} > ${after.created_at} or (${apiKeys.created_at} = ${after.created_at} and ${apiKeys.id} > ${after.id}))`
          : undefined,
      ),
    )
    .orderBy(apiKeys.created_at, apiKeys.id)
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit).map(toStoredKey);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? { created_at: last.created_at, id: last.id } : undefined };
}

export async function getKey(db: Db, tenantId: string, keyId: string): Promise<StoredKey | undefined> {
  const row = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.tenant_id, tenantId)))
    .get();
  return row ? toStoredKey(row) : undefined;
}

type KeyRevocation =
  | { kind: "revoked"; key: StoredKey }
  | { kind: "already_revoked"; key: StoredKey }
  | { kind: "last_admin"; key: StoredKey }
  | { kind: "missing" };

/**
 * Revokes a key of the tenant unless it is the tenant's last unrevoked Admin key (which would leave
 * nobody able to manage keys). The check and the write are one statement, so two revocations at
 * once cannot each see the other's key still standing and both succeed.
 */
export async function revokeKeyKeepingAnAdmin(db: Db, tenantId: string, keyId: string): Promise<KeyRevocation> {
  const holdsAdmin = (table: string) =>
    sql.raw(`EXISTS (SELECT 1 FROM json_each(${table}.permissions) WHERE json_each.value = '${ADMIN}')`);
  const result = await db
    .update(apiKeys)
    .set({ revoked_at: new Date().toISOString() })
    .where(
      and(
        eq(apiKeys.id, keyId),
        eq(apiKeys.tenant_id, tenantId),
        isNull(apiKeys.revoked_at),
        sql`(NOT ${holdsAdmin("api_keys")} OR EXISTS (SELECT 1 FROM api_keys AS other WHERE other.tenant_id = ${tenantId} AND other.id <> ${keyId} AND other.revoked_at IS NULL AND ${holdsAdmin("other")}))`,
      ),
    )
    .run();
  const key = await getKey(db, tenantId, keyId);
  if (!key) return { kind: "missing" };
  if (result.meta.changes > 0) return { kind: "revoked", key };
  return key.revoked_at !== null ? { kind: "already_revoked", key } : { kind: "last_admin", key };
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
