/**
 * Policy versions in D1: append-only, one row per PUT (even an unchanged one: each PUT is a
 * reviewed act with its author and time), always read within a tenant. The history itself is
 * document-versions.ts, shared with suites.
 */
import type { JsonValue } from "../../core/json.js";
import type { Database } from "./database.js";
import {
  appendVersion,
  findVersion,
  listDocuments,
  listVersions,
  type DocumentSummary,
  type StoredVersion,
  type VersionSummary,
} from "./document-versions.js";

type PolicyVersionSummary = VersionSummary;
/** One policy of a tenant, as a list shows it. */
export type PolicySummary = DocumentSummary;
export type StoredPolicyVersion = StoredVersion;

export async function appendPolicyVersion(
  db: Database,
  input: { tenantId: string; name: string; document: JsonValue; createdBy: string },
): Promise<PolicyVersionSummary> {
  const { version, created_by, created_at } = await appendVersion(db, "policy_versions", {
    tenantId: input.tenantId,
    name: input.name,
    text: JSON.stringify(input.document),
    createdBy: input.createdBy,
    unlessSameAsLatest: false,
  });
  return { version, created_by, created_at };
}

/** The newest version, or a given one; undefined when the tenant has no such policy (or version). */
export function findPolicyVersion(
  db: Database,
  tenantId: string,
  name: string,
  version?: number,
): Promise<StoredPolicyVersion | undefined> {
  return findVersion(db, "policy_versions", tenantId, name, version);
}

/** Newest first; `before` is the version number of the last item already seen. */
export function listPolicyVersions(
  db: Database,
  tenantId: string,
  name: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ items: StoredPolicyVersion[]; next?: number | undefined }> {
  return listVersions(db, "policy_versions", tenantId, name, page);
}

/** The tenant's policies by name; `after` is the name of the last item already seen. */
export function listPolicies(
  db: Database,
  tenantId: string,
  page: { limit: number; after?: string | undefined },
): Promise<{ items: PolicySummary[]; next?: string | undefined }> {
  return listDocuments(db, "policy_versions", tenantId, page);
}
