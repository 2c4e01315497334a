/**
 * Where a dataset version's content lives: R2, one object per content hash (datasetObjectKey),
 * with its collection summary beside it; D1 (adapters/d1/datasets.ts) holds the versions that name
 * them. R2 rather than D1 or a Durable Object because both of those cap a row or a value at about
 * 2 MB and a dataset may be 25 MB and more (docs/datasets.md).
 *
 * The content is written before the row that names it, so a version never points at nothing; a
 * save that fails between the two leaves an object no version names, which is harmless (the same
 * content saved again finds it) and costs only its bytes.
 */
import { type AppendDatasetResult, appendDatasetVersion } from "../../adapters/d1/datasets.js";
import { datasetObjectKey, datasetSummaryKey } from "../../core/datasets/keys.js";
import { type DatasetCollection, datasetCollections } from "../../core/datasets/summary.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import type { Database } from "../platform/env.js";
import { ApiError } from "../http/errors.js";
import type { DatasetUpload } from "./body.js";

export async function saveDatasetVersion(
  bucket: R2Bucket,
  db: Database,
  input: {
    tenantId: string;
    name: string;
    upload: DatasetUpload;
    description: string | null;
    createdBy: string;
    baseVersion: number | undefined;
  },
): Promise<AppendDatasetResult> {
  const { tenantId, upload } = input;
  const key = datasetObjectKey(tenantId, upload.contentHash);
  // Content-addressed: an object already there holds these very bytes, so it is not written twice.
  if ((await bucket.head(key)) === null) {
    await bucket.put(key, upload.canonical, {
      httpMetadata: { contentType: "application/json" },
      // R2 checks the bytes it received against the hash and refuses the write when they differ.
      sha256: upload.contentHash,
    });
  }
  await bucket.put(datasetSummaryKey(tenantId, upload.contentHash), JSON.stringify(upload.collections), {
    httpMetadata: { contentType: "application/json" },
  });
  return appendDatasetVersion(db, {
    tenantId,
    name: input.name,
    contentHash: upload.contentHash,
    bytes: upload.canonical.byteLength,
    description: input.description,
    createdBy: input.createdBy,
    baseVersion: input.baseVersion,
  });
}

/** The stored content, as R2 streams it. A version's row always names stored content (see above). */
export async function datasetContent(bucket: R2Bucket, tenantId: string, contentHash: string): Promise<R2ObjectBody> {
  const object = await bucket.get(datasetObjectKey(tenantId, contentHash));
  if (object === null) throw missingContent(contentHash);
  return object;
}

/** The stored content parsed: for reading one record of it. */
export async function datasetDocument(bucket: R2Bucket, tenantId: string, contentHash: string): Promise<JsonObject> {
  const parsed: unknown = await (await datasetContent(bucket, tenantId, contentHash)).json();
  if (!isJsonObject(parsed)) throw missingContent(contentHash);
  return parsed;
}

/** The version's collections: the stored summary, or (for content stored without one) counted from the content. */
export async function datasetSummary(
  bucket: R2Bucket,
  tenantId: string,
  contentHash: string,
): Promise<DatasetCollection[]> {
  const stored = await bucket.get(datasetSummaryKey(tenantId, contentHash));
  if (stored !== null) {
    const collections: unknown = await stored.json();
    if (Array.isArray(collections) && collections.every(isCollection)) return collections;
  }
  const document = await datasetDocument(bucket, tenantId, contentHash);
  const collections = datasetCollections(document);
  await bucket.put(datasetSummaryKey(tenantId, contentHash), JSON.stringify(collections), {
    httpMetadata: { contentType: "application/json" },
  });
  return collections;
}

function isCollection(value: unknown): value is DatasetCollection {
  return (
    isJsonObject(value) &&
    typeof value.name === "string" &&
    (value.kind === "object" || value.kind === "array") &&
    typeof value.records === "number"
  );
}

/** Storage lost what a version names: not the client's doing, so a 500 that says so. */
function missingContent(contentHash: string): ApiError {
  return new ApiError("internal_error", `the content of this dataset version (${contentHash}) is missing from storage`);
}
