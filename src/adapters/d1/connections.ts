/**
 * Model connections in D1, one row per (tenant, name), always read within a tenant. The API key
 * and the header values live only in `sealed` (secret-box.ts); the header names are kept in the
 * clear so a connection can be shown without opening anything.
 */
import { and, eq, gt } from "drizzle-orm";
import type { Database } from "./database.js";
import { parseJsonColumn } from "./json-column.js";
import { connections } from "./schema.js";

export type StoredConnection = typeof connections.$inferSelect;

/** The names of the connection's extra headers (the header_names column; their values are sealed). */
export function headerNamesOf(row: Pick<StoredConnection, "header_names">): string[] {
  const parsed = parseJsonColumn(row.header_names);
  return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === "string") : [];
}

/** A connection row as written: created_at is the database's on insert and kept on replace. */
type ConnectionWrite = Omit<StoredConnection, "created_at">;

export async function findConnection(
  db: Database,
  tenantId: string,
  name: string,
): Promise<StoredConnection | undefined> {
  return db
    .select()
    .from(connections)
    .where(and(eq(connections.tenant_id, tenantId), eq(connections.name, name)))
    .get();
}

/**
 * Inserts or replaces the whole row (created_at and created_by stay the first writer's). A new
 * row's created_at is its updated_at, so the two never disagree by the clock of another process.
 */
export async function putConnection(db: Database, row: ConnectionWrite): Promise<StoredConnection> {
  const { tenant_id: _tenant, name: _name, created_by: _createdBy, ...replaced } = row;
  const stored = await db
    .insert(connections)
    .values({ ...row, created_at: row.updated_at })
    .onConflictDoUpdate({ target: [connections.tenant_id, connections.name], set: replaced })
    .returning()
    .get();
  return stored;
}

export async function deleteConnection(db: Database, tenantId: string, name: string): Promise<boolean> {
  const deleted = await db
    .delete(connections)
    .where(and(eq(connections.tenant_id, tenantId), eq(connections.name, name)))
    .returning({ name: connections.name })
    .all();
  return deleted.length > 0;
}

/** By name; `after` is the name of the last item already seen. */
export async function listConnections(
  db: Database,
  tenantId: string,
  page: { limit: number; after?: string | undefined },
): Promise<{ items: StoredConnection[]; next?: string | undefined }> {
  const rows = await db
    .select()
    .from(connections)
    .where(
      and(eq(connections.tenant_id, tenantId), page.after === undefined ? undefined : gt(connections.name, page.after)),
    )
    .orderBy(connections.name)
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? last.name : undefined };
}
