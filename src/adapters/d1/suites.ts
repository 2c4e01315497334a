/**
 * Suite versions in D1 (suite_versions, append-only like policies: document-versions.ts). The
 * document is the normalized suite as canonical JSON, so "the same suite" is the same text however
 * it was written (JSON or YAML, any key order), and a PUT identical to the latest version adds
 * nothing: restarting a seeder or re-sending an unchanged file from CI keeps the history readable.
 */
import { sql } from "drizzle-orm";
import type { Suite } from "../../core/evals/suite-types.js";
import { canonicalJson } from "../../core/json.js";
import type { Database } from "./database.js";
import {
  appendVersion,
  findVersion,
  listDocuments,
  listVersionSummaries,
  type AppendResult,
  type DocumentSummary,
  type StoredVersion,
  type VersionSummary,
} from "./document-versions.js";
import { requireFitsRow } from "./row-limit.js";

/** A version as stored: `document` is the normalized suite; core's readStoredSuite gives it its type back. */
export type StoredSuiteVersion = StoredVersion;
type SuiteSummary = DocumentSummary;

export async function appendSuiteVersion(
  db: Database,
  input: { tenantId: string; name: string; suite: Suite; createdBy: string },
): Promise<AppendResult> {
  const text = canonicalJson(input.suite);
  requireFitsRow(text, "the suite", "split its scenarios into suites of their own");
  return appendVersion(db, "suite_versions", {
    tenantId: input.tenantId,
    name: input.name,
    text,
    createdBy: input.createdBy,
    unlessSameAsLatest: true,
  });
}

/** The latest version, or a given one; undefined when the tenant has no such suite (or version). */
export function getSuiteVersion(
  db: Database,
  tenantId: string,
  name: string,
  version?: number,
): Promise<StoredSuiteVersion | undefined> {
  return findVersion(db, "suite_versions", tenantId, name, version);
}

/** Newest first; `before` is the version number of the last item already seen. */
export function listSuiteVersions(
  db: Database,
  tenantId: string,
  name: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ items: VersionSummary[]; next?: number | undefined }> {
  return listVersionSummaries(db, "suite_versions", tenantId, name, page);
}

/** The tenant's suites by name, each with its latest version number. */
export function listSuites(
  db: Database,
  tenantId: string,
  page: { limit: number; after?: string | undefined },
): Promise<{ items: SuiteSummary[]; next?: string | undefined }> {
  return listDocuments(db, "suite_versions", tenantId, page);
}

/**
 * Which of these connection names the tenant has stored. Read here, not through the connections
 * adapter, because a suite only needs to know they exist (a suite may be saved before its
 * connection; runs refuse to start without it).
 */
export async function existingConnections(
  db: Database,
  tenantId: string,
  names: readonly string[],
): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db.all<{ name: string }>(
    sql`select name from connections where tenant_id = ${tenantId} and name in ${[...names]}`,
  );
  return new Set(rows.map((row) => row.name));
}
