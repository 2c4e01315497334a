/**
 * Tools' real handlers (tool_upstreams) and each tenant's upstream host allowlist
 * (upstream_hosts), always read within a tenant. Credentials stay sealed here; only their header
 * names are in the clear.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { StoredUpstream } from "../../core/simulation/real-tools.js";
import type { UpstreamConfig } from "../../core/tools/upstream.js";
import type { Database } from "./database.js";
import { parseJsonColumn } from "./json-column.js";
import { toolUpstreams, upstreamHosts } from "./schema.js";

export interface UpstreamRow extends StoredUpstream {
  credential_names: string[];
  updated_by: string;
  updated_at: string;
}

export async function putUpstream(db: Database, tenantId: string, row: UpstreamRow): Promise<void> {
  const values = {
    tenant_id: tenantId,
    tool_id: row.tool_id,
    config: JSON.stringify(row.config),
    credential_names: JSON.stringify(row.credential_names),
    sealed: row.sealed,
    updated_by: row.updated_by,
    updated_at: row.updated_at,
  };
  const { tenant_id: _tenant, tool_id: _tool, ...replaced } = values;
  await db
    .insert(toolUpstreams)
    .values(values)
    .onConflictDoUpdate({ target: [toolUpstreams.tenant_id, toolUpstreams.tool_id], set: replaced })
    .run();
}

export async function getUpstreams(
  db: Database,
  tenantId: string,
  toolIds: readonly string[],
): Promise<Map<string, UpstreamRow>> {
  const found = new Map<string, UpstreamRow>();
  if (toolIds.length === 0) return found;
  const rows = await db
    .select()
    .from(toolUpstreams)
    .where(and(eq(toolUpstreams.tenant_id, tenantId), inArray(toolUpstreams.tool_id, [...toolIds])))
    .all();
  for (const row of rows) {
    // SAFETY: both columns are written only by putUpstream, from a checked UpstreamConfig and a list of names.
    const config = parseJsonColumn(row.config) as unknown as UpstreamConfig;
    const names = parseJsonColumn(row.credential_names) as unknown as string[];
    found.set(row.tool_id, {
      tool_id: row.tool_id,
      config,
      sealed: row.sealed,
      credential_names: names,
      updated_by: row.updated_by,
      updated_at: row.updated_at,
    });
  }
  return found;
}

export async function deleteUpstream(db: Database, tenantId: string, toolId: string): Promise<boolean> {
  const deleted = await db
    .delete(toolUpstreams)
    .where(and(eq(toolUpstreams.tenant_id, tenantId), eq(toolUpstreams.tool_id, toolId)))
    .returning({ tool_id: toolUpstreams.tool_id })
    .all();
  return deleted.length > 0;
}

export async function listUpstreamHosts(db: Database, tenantId: string): Promise<string[]> {
  const rows = await db
    .select({ host: upstreamHosts.host })
    .from(upstreamHosts)
    .where(eq(upstreamHosts.tenant_id, tenantId))
    .orderBy(upstreamHosts.host)
    .all();
  return rows.map((row) => row.host);
}

/** Replaces the tenant's whole allowlist in one batch. */
export async function replaceUpstreamHosts(
  db: Database,
  tenantId: string,
  hosts: readonly string[],
  by: string,
): Promise<void> {
  const remove = db.delete(upstreamHosts).where(eq(upstreamHosts.tenant_id, tenantId));
  if (hosts.length === 0) {
    await remove.run();
    return;
  }
  await db.batch([
    remove,
    db.insert(upstreamHosts).values(hosts.map((host) => ({ tenant_id: tenantId, host, created_by: by }))),
  ]);
}
