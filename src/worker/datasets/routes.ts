/**
 * Datasets: JSON documents a tenant stores to start tools from (docs/datasets.md). Versioned and
 * append-only like policies: a save adds a version, never changes one. Every route needs
 * AIManager:ManageTools (a dataset is a tool's starting state, and tools and policies are written
 * with that permission); another tenant's dataset answers 404 like a missing one.
 *
 * - POST /api/datasets/:name/versions                    save the body as the next version (201), or
 *                                                        answer the latest when its content is the same (200)
 * - GET  /api/datasets                                   the tenant's datasets, each with its latest version
 * - GET  /api/datasets/:name/versions                    the versions, newest first
 * - GET  /api/datasets/:name/versions/:version           one version and its collections
 * - GET  /api/datasets/:name/versions/:version/content   the JSON, streamed from R2 (ETag: the content hash)
 * - GET  /api/datasets/:name/versions/:version/record    one record by JSON Pointer (?pointer=)
 */
import { type Context, Hono } from "hono";
import type { DatasetVersion } from "../../adapters/d1/datasets.js";
import { findDatasetVersion, listDatasets, listDatasetVersions } from "../../adapters/d1/datasets.js";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { lookupPointer, parsePointer } from "../../core/datasets/pointer.js";
import { requirePermission } from "../http/auth.js";
import { documentName, versionParam } from "../http/document-body.js";
import { ApiError, invalidRequest, notFound } from "../http/errors.js";
import { queryParam } from "../http/query.js";
import { pageCursor, pageLimit, NAME_CURSOR, VERSION_CURSOR } from "../http/pagination.js";
import type { AppEnv } from "../platform/env.js";
import { baseVersionQuery, descriptionQuery, readDatasetUpload } from "./body.js";
import { datasetContent, datasetDocument, datasetSummary, saveDatasetVersion } from "./store.js";

export const datasetRoutes = new Hono<AppEnv>();

datasetRoutes.use("*", requirePermission("AIManager:ManageTools"));

datasetRoutes.get("/", async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, NAME_CURSOR);
  const page = await listDatasets(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({ items: page.items, next_cursor: page.next === undefined ? null : encodeCursor([page.next]) });
});

datasetRoutes.post("/:name/versions", async (c) => {
  const name = documentName(c.req.param("name"));
  // The query first: a wrong parameter is refused before a 25 MB body is read.
  const description = descriptionQuery(c);
  const baseVersion = baseVersionQuery(c);
  const upload = await readDatasetUpload(c);
  const { tenantId, keyId } = c.var.principal;
  const saved = await saveDatasetVersion(c.env.DATASETS, c.var.db, {
    tenantId,
    name,
    upload,
    description,
    createdBy: keyId,
    baseVersion,
  });
  if (saved.outcome === "stale") {
    const latest = saved.version?.version ?? 0;
    throw new ApiError(
      "stale_dataset_version",
      `base_version ${baseVersion} is not the latest version of dataset "${name}" (the latest is ${latest}): read version ${latest} and send your change with base_version=${latest}`,
      { base_version: baseVersion, latest_version: latest },
    );
  }
  c.header("location", versionPath(saved.version));
  return c.json({ ...saved.version, collections: upload.collections }, saved.outcome === "appended" ? 201 : 200);
});

datasetRoutes.get("/:name/versions", async (c) => {
  const name = documentName(c.req.param("name"));
  const limit = pageLimit(c);
  const before = pageCursor(c, VERSION_CURSOR);
  const page = await listDatasetVersions(c.var.db, c.var.principal.tenantId, name, { limit, before });
  // An empty first page means no such dataset; a later empty page is just the end of the history.
  if (page.items.length === 0 && before === undefined) throw notFound("dataset");
  return c.json({ name, items: page.items, next_cursor: page.next === undefined ? null : encodeCursor([page.next]) });
});

datasetRoutes.get("/:name/versions/:version", async (c) => {
  const stored = await storedVersion(c);
  const collections = await datasetSummary(c.env.DATASETS, c.var.principal.tenantId, stored.content_hash);
  return c.json({ ...stored, collections });
});

datasetRoutes.get("/:name/versions/:version/content", async (c) => {
  const stored = await storedVersion(c);
  const etag = `"${stored.content_hash}"`;
  // A version never changes, so its content may be kept by the client for good and revalidated for free.
  const headers = { etag, "cache-control": "private, max-age=31536000, immutable" };
  if (matchesEtag(c.req.header("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  const object = await datasetContent(c.env.DATASETS, c.var.principal.tenantId, stored.content_hash);
  return new Response(object.body, {
    headers: { ...headers, "content-type": "application/json", "content-length": String(object.size) },
  });
});

datasetRoutes.get("/:name/versions/:version/record", async (c) => {
  const raw = queryParam(c, "pointer");
  if (raw === undefined)
    throw invalidRequest([
      { path: "/query/pointer", message: "required: a JSON Pointer to the record, e.g. ?pointer=/orders/%23W2611340" },
    ]);
  const parsed = parsePointer(raw);
  if (!parsed.ok) throw invalidRequest([{ path: "/query/pointer", message: parsed.message }]);
  const stored = await storedVersion(c);
  const document = await datasetDocument(c.env.DATASETS, c.var.principal.tenantId, stored.content_hash);
  const found = lookupPointer(document, parsed.tokens);
  if (!found.found)
    throw new ApiError(
      "not_found",
      `no record at ${raw} in dataset "${stored.name}" version ${stored.version}: ${found.parent === "" ? "the top level" : found.parent} has no "${found.missing}"`,
      { pointer: raw, missing_at: found.parent },
    );
  return c.json({ name: stored.name, version: stored.version, pointer: raw, value: found.value });
});

/** The version the path names, in the caller's tenant, or 404. */
async function storedVersion(c: Context<AppEnv>): Promise<DatasetVersion> {
  const name = documentName(c.req.param("name") ?? "");
  const version = versionParam(c.req.param("version") ?? "");
  const stored = await findDatasetVersion(c.var.db, c.var.principal.tenantId, name, version);
  if (!stored) throw notFound("dataset version");
  return stored;
}

function versionPath(version: DatasetVersion): string {
  return `/api/datasets/${encodeURIComponent(version.name)}/versions/${version.version}`;
}

/** If-None-Match: a list of entity tags, or "*" (RFC 9110 §13.1.2; weak comparison). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => {
    const trimmed = tag.trim();
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag;
  });
}
