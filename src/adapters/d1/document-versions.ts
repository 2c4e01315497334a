/**
 * Named documents kept as append-only version histories (policy_versions, suite_versions: the same
 * columns, and triggers that refuse UPDATE, DELETE and REPLACE), always read within a tenant.
 *
 * The version number is computed inside the INSERT itself, so PUTs that race get consecutive
 * numbers with no gaps and no reuse (D1 runs each statement atomically, one at a time, and the
 * primary key (tenant_id, name, version) would refuse a reuse anyway). With `unlessSameAsLatest`,
 * the same statement adds nothing when the latest version's text is identical, so two identical
 * PUTs racing still add one version, not two.
 */
import { sql, type SQL } from "drizzle-orm";
import type { JsonValue } from "../../core/json.js";
import type { Database } from "./database.js";
import { parseJsonColumn } from "./json-column.js";

/** Only these: the name is written into the SQL text, so it is never a caller's string. */
type VersionTable = "policy_versions" | "suite_versions";

export interface VersionSummary {
  version: number;
  created_by: string;
  created_at: string;
}

export interface StoredVersion extends VersionSummary {
  name: string;
  document: JsonValue;
}

/** One document of a tenant, as a list shows it. */
export interface DocumentSummary {
  name: string;
  latest_version: number;
  /** When version 1 was stored. */
  created_at: string;
  /** When the latest version was stored. */
  updated_at: string;
}

export type AppendResult = VersionSummary & {
  /** False when the latest version already held this exact text (nothing was added). */
  appended: boolean;
};

export async function appendVersion(
  db: Database,
  table: VersionTable,
  input: { tenantId: string; name: string; text: string; createdBy: string; unlessSameAsLatest: boolean },
): Promise<AppendResult> {
  const t = sql.raw(table);
  const unchanged = input.unlessSameAsLatest
    ? sql`and not exists (select 1 from ${t} latest where latest.tenant_id = ${input.tenantId} and latest.name = ${input.name} and latest.version = next.version - 1 and latest.document = ${input.text})`
    : sql``;
  const result = await db.run(sql`
    insert into ${t} (tenant_id, name, version, document, created_by)
    select ${input.tenantId}, ${input.name}, next.version, ${input.text}, ${input.createdBy}
    from (select coalesce(max(version), 0) + 1 as version from ${t} where tenant_id = ${input.tenantId} and name = ${input.name}) next
    where 1 = 1 ${unchanged}
    returning version, created_by, created_at`);
  const row = summaryOf(result.results[0]);
  if (row) return { ...row, appended: true };
  const latest = input.unlessSameAsLatest ? await findVersion(db, table, input.tenantId, input.name) : undefined;
  if (latest)
    return { version: latest.version, created_by: latest.created_by, created_at: latest.created_at, appended: false };
  throw new Error(`${table} insert returned no row`);
}

/** The newest version, or a given one; undefined when the tenant has no such document (or version). */
export async function findVersion(
  db: Database,
  table: VersionTable,
  tenantId: string,
  name: string,
  version?: number,
): Promise<StoredVersion | undefined> {
  const t = sql.raw(table);
  const rows = await db.all<unknown>(sql`
    select name, version, document, created_by, created_at from ${t}
    where tenant_id = ${tenantId} and name = ${name} ${version === undefined ? sql`` : sql`and version = ${version}`}
    order by version desc limit 1`);
  return storedOf(rows[0]);
}

/** Newest first, documents included; `before` is the version number of the last item already seen. */
export async function listVersions(
  db: Database,
  table: VersionTable,
  tenantId: string,
  name: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ items: StoredVersion[]; next?: number | undefined }> {
  const rows = await versionRows(db, table, tenantId, name, page, sql`name, version, document, created_by, created_at`);
  return pageOf(
    rows.flatMap((row) => storedOf(row) ?? []),
    page.limit,
  );
}

/** As listVersions without the documents, which may be large (a suite's inline tools). */
export async function listVersionSummaries(
  db: Database,
  table: VersionTable,
  tenantId: string,
  name: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ items: VersionSummary[]; next?: number | undefined }> {
  const rows = await versionRows(db, table, tenantId, name, page, sql`version, created_by, created_at`);
  return pageOf(
    rows.flatMap((row) => summaryOf(row) ?? []),
    page.limit,
  );
}

function versionRows(
  db: Database,
  table: VersionTable,
  tenantId: string,
  name: string,
  page: { limit: number; before?: number | undefined },
  columns: SQL,
): Promise<unknown[]> {
  return db.all<unknown>(sql`
    select ${columns} from ${sql.raw(table)}
    where tenant_id = ${tenantId} and name = ${name} ${page.before === undefined ? sql`` : sql`and version < ${page.before}`}
    order by version desc limit ${page.limit + 1}`);
}

/** One more row than the page was read, so whether there is a next page is known without counting. */
function pageOf<T extends VersionSummary>(rows: T[], limit: number): { items: T[]; next?: number | undefined } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? last.version : undefined };
}

/**
 * The tenant's documents by name; `after` is the name of the last item already seen. Names, not
 * times, order the list, so a PUT while someone pages cannot move a document past the cursor.
 */
export async function listDocuments(
  db: Database,
  table: VersionTable,
  tenantId: string,
  page: { limit: number; after?: string | undefined },
): Promise<{ items: DocumentSummary[]; next?: string | undefined }> {
  const t = sql.raw(table);
  // Versions are appended in order, so the newest time is the latest version's.
  const rows = await db.all<DocumentSummary>(sql`
    select name, max(version) as latest_version, min(created_at) as created_at, max(created_at) as updated_at from ${t}
    where tenant_id = ${tenantId} ${page.after === undefined ? sql`` : sql`and name > ${page.after}`}
    group by name order by name limit ${page.limit + 1}`);
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? last.name : undefined };
}

/** Narrowed rather than cast: the queries above name these columns. */
function summaryOf(row: unknown): VersionSummary | undefined {
  if (
    typeof row !== "object" ||
    row === null ||
    !("version" in row) ||
    !("created_by" in row) ||
    !("created_at" in row)
  )
    return undefined;
  const { version, created_by, created_at } = row;
  return typeof version === "number" && typeof created_by === "string" && typeof created_at === "string"
    ? { version, created_by, created_at }
    : undefined;
}

function storedOf(row: unknown): StoredVersion | undefined {
  const summary = summaryOf(row);
  if (!summary || typeof row !== "object" || row === null || !("name" in row) || !("document" in row)) return undefined;
  const { name, document } = row;
  return typeof name === "string" && typeof document === "string"
    ? { name, ...summary, document: parseJsonColumn(document) }
    : undefined;
}
