/**
 * Dataset versions in D1 (dataset_versions): one row per version naming its content by hash; the
 * JSON itself is in R2 (a D1 row holds at most about 2 MB). Append-only: triggers refuse UPDATE,
 * DELETE and a second row for a version, so a version once answered never changes meaning.
 *
 * As document-versions.ts does for policies and suites, the next version number is computed inside
 * the INSERT, so racing saves get consecutive numbers and never reuse one, and the same statement
 * adds nothing when the latest version already holds this content (two identical saves racing add
 * one version) or when the caller's base version is no longer the latest.
 */
import { sql } from "drizzle-orm";
import type { Database } from "./database.js";

/** One stored version, as the API answers it. */
export interface DatasetVersion {
  name: string;
  version: number;
  content_hash: string;
  bytes: number;
  description: string | null;
  created_by: string;
  created_at: string;
}

/** One dataset of a tenant, as a list shows it: its latest version and when version 1 was stored. */
export interface DatasetSummary {
  name: string;
  latest: DatasetVersion;
  created_at: string;
}

export type AppendDatasetResult =
  | { outcome: "appended"; version: DatasetVersion }
  /** The latest version already holds this content: nothing was added. */
  | { outcome: "unchanged"; version: DatasetVersion }
  /** `baseVersion` was given and the latest version is another (`version` is the latest, if any). */
  | { outcome: "stale"; version: DatasetVersion | undefined };

const COLUMNS = sql.raw("name, version, content_hash, bytes, description, created_by, created_at");

export async function appendDatasetVersion(
  db: Database,
  input: {
    tenantId: string;
    name: string;
    contentHash: string;
    bytes: number;
    description: string | null;
    createdBy: string;
    /** The version the caller last saw (0: none yet); undefined appends whatever the latest is. */
    baseVersion?: number | undefined;
  },
): Promise<AppendDatasetResult> {
  const { tenantId, name } = input;
  const base = input.baseVersion === undefined ? sql`` : sql`and next.version - 1 = ${input.baseVersion}`;
  const result = await db.run(sql`
    insert into dataset_versions (tenant_id, name, version, content_hash, bytes, description, created_by)
    select ${tenantId}, ${name}, next.version, ${input.contentHash}, ${input.bytes}, ${input.description}, ${input.createdBy}
    from (select coalesce(max(version), 0) + 1 as version from dataset_versions where tenant_id = ${tenantId} and name = ${name}) next
    where not exists (select 1 from dataset_versions latest where latest.tenant_id = ${tenantId} and latest.name = ${name}
      and latest.version = next.version - 1 and latest.content_hash = ${input.contentHash}) ${base}
    returning ${COLUMNS}`);
  const appended = versionOf(result.results[0]);
  if (appended) return { outcome: "appended", version: appended };
  const latest = await findDatasetVersion(db, tenantId, name);
  // Same content wins over a stale base: a retried save whose first try landed answers what it made.
  if (latest && latest.content_hash === input.contentHash) return { outcome: "unchanged", version: latest };
  if (input.baseVersion !== undefined) return { outcome: "stale", version: latest };
  throw new Error("dataset_versions insert returned no row");
}

/** The newest version, or a given one; undefined when the tenant has no such dataset (or version). */
export async function findDatasetVersion(
  db: Database,
  tenantId: string,
  name: string,
  version?: number,
): Promise<DatasetVersion | undefined> {
  const rows = await db.all<unknown>(sql`
    select ${COLUMNS} from dataset_versions
    where tenant_id = ${tenantId} and name = ${name} ${version === undefined ? sql`` : sql`and version = ${version}`}
    order by version desc limit 1`);
  return versionOf(rows[0]);
}

/** Newest first; `before` is the version number of the last item already seen. */
export async function listDatasetVersions(
  db: Database,
  tenantId: string,
  name: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ items: DatasetVersion[]; next?: number | undefined }> {
  const rows = await db.all<unknown>(sql`
    select ${COLUMNS} from dataset_versions
    where tenant_id = ${tenantId} and name = ${name} ${page.before === undefined ? sql`` : sql`and version < ${page.before}`}
    order by version desc limit ${page.limit + 1}`);
  const items = rows.slice(0, page.limit).flatMap((row) => versionOf(row) ?? []);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? last.version : undefined };
}

/**
 * The tenant's datasets by name, each with its latest version; `after` is the name of the last
 * item already seen. Names order the list, so a save while someone pages cannot move a dataset
 * past the cursor.
 */
export async function listDatasets(
  db: Database,
  tenantId: string,
  page: { limit: number; after?: string | undefined },
): Promise<{ items: DatasetSummary[]; next?: string | undefined }> {
  const rows = await db.all<unknown>(sql`
    select v.name, v.version, v.content_hash, v.bytes, v.description, v.created_by, v.created_at,
      (select min(created_at) from dataset_versions f where f.tenant_id = v.tenant_id and f.name = v.name) as first_created_at
    from dataset_versions v
    where v.tenant_id = ${tenantId} ${page.after === undefined ? sql`` : sql`and v.name > ${page.after}`}
      and v.version = (select max(version) from dataset_versions m where m.tenant_id = v.tenant_id and m.name = v.name)
    order by v.name limit ${page.limit + 1}`);
  const items = rows.slice(0, page.limit).flatMap((row): DatasetSummary[] => {
    const latest = versionOf(row);
    const first = typeof row === "object" && row !== null && "first_created_at" in row ? row.first_created_at : null;
    return latest && typeof first === "string" ? [{ name: latest.name, latest, created_at: first }] : [];
  });
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? last.name : undefined };
}

/** Narrowed rather than cast: the queries above name these columns. */
function versionOf(row: unknown): DatasetVersion | undefined {
  if (typeof row !== "object" || row === null) return undefined;
  const { name, version, content_hash, bytes, description, created_by, created_at } = row as Record<string, unknown>;
  if (
    typeof name !== "string" ||
    typeof version !== "number" ||
    typeof content_hash !== "string" ||
    typeof bytes !== "number" ||
    (description !== null && typeof description !== "string") ||
    typeof created_by !== "string" ||
    typeof created_at !== "string"
  )
    return undefined;
  return { name, version, content_hash, bytes, description, created_by, created_at };
}
