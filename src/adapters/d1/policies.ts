/**
 * Policy versions in D1: append-only (triggers refuse UPDATE, DELETE and REPLACE), one row per PUT, always
 * read within a tenant. The version number is computed inside the INSERT itself, so PUTs that race
 * get consecutive numbers with no gaps and no reuse (D1 runs each statement atomically, one at a time,
 * and the primary key (tenant_id, name, version) would refuse a reuse anyway).
 */
import { and, desc, eq, gt, lt, sql } from "drizzle-orm";
import type { JsonValue } from "../../core/json.js";
import type { Database } from "./database.js";
import { parseJsonColumn } from "./json-column.js";
import { policyVersions } from "./schema.js";

export interface PolicyVersionSummary {
  version: number;
  created_by: string;
  created_at: string;
}

/** One policy of a tenant, as a list shows it. */
export interface PolicySummary {
  name: string;
  latest_version: number;
  /** When version 1 was stored. */
  created_at: string;
  /** When the latest version was stored. */
  updated_at: string;
}

export interface StoredPolicyVersion extends PolicyVersionSummary {
  name: string;
  document: JsonValue;
}

export async function appendPolicyVersion(
  db: Database,
  input: { tenantId: string; name: string; document: JsonValue; createdBy: string },
): Promise<PolicyVersionSummary> {
  const result = await db.run(sql`
    insert into policy_versions (tenant_id, name, version, document, created_by)
    select ${input.tenantId}, ${input.name}, coalesce(max(version), 0) + 1, ${JSON.stringify(input.document)}, ${input.createdBy}
    from policy_versions
    where tenant_id = ${input.tenantId} and name = ${input.name}
    returning version, created_by, created_at`);
  const row: unknown = result.results[0];
  // Narrowed rather than cast: the RETURNING clause above names these columns.
  if (typeof row === "object" && row !== null && "version" in row && "created_by" in row && "created_at" in row) {
    const { version, created_by, created_at } = row;
    if (typeof version === "number" && typeof created_by === "string" && typeof created_at === "string") return { version, created_by, created_at };
  }
  throw new Error("policy_versions insert returned no row");
}

/** The newest version, or a given one; undefined when the tenant has no such policy (or version). */
export async function findPolicyVersion(db: Database, tenantId: string, name: string, version?: number): Promise<StoredPolicyVersion | undefined> {
  const row = await db
    .select()
    .from(policyVersions)
    .where(and(eq(policyVersions.tenant_id, tenantId), eq(policyVersions.name, name), version === undefined ? undefined : eq(policyVersions.version, version)))
    .orderBy(desc(policyVersions.version))
    .limit(1)
    .get();
  return row ? toStored(row) : undefined;
}

/** Newest first; `before` is the version number of the last item already seen. */
export async function listPolicyVersions(
  db: Database,
  tenantId: string,
  name: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ items: StoredPolicyVersion[]; next?: number | undefined }> {
  const rows = await db
    .select()
    .from(policyVersions)
    .where(and(eq(policyVersions.tenant_id, tenantId), eq(policyVersions.name, name), page.before === undefined ? undefined : lt(policyVersions.version, page.before)))
    .orderBy(desc(policyVersions.version))
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit).map(toStored);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? last.version : undefined };
}

/**
 * The tenant's policies by name; `after` is the name of the last item already seen. Names, not
 * times, order the list, so a PUT while someone pages cannot move a policy past the cursor.
 */
export async function listPolicies(
  db: Database,
  tenantId: string,
  page: { limit: number; after?: string | undefined },
): Promise<{ items: PolicySummary[]; next?: string | undefined }> {
  const rows = await db
    .select({
      name: policyVersions.name,
      latest_version: sql<number>`max(${policyVersions.version})`,
      // Versions are appended in order, so the newest time is the latest version's.
      created_at: sql<string>`min(${policyVersions.created_at})`,
      updated_at: sql<string>`max(${policyVersions.created_at})`,
    })
    .from(policyVersions)
    .where(and(eq(policyVersions.tenant_id, tenantId), page.after === undefined ? undefined : gt(policyVersions.name, page.after)))
    .groupBy(policyVersions.name)
    .orderBy(policyVersions.name)
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? last.name : undefined };
}

function toStored(row: typeof policyVersions.$inferSelect): StoredPolicyVersion {
  return { name: row.name, version: row.version, document: parseJsonColumn(row.document), created_by: row.created_by, created_at: row.created_at };
}
