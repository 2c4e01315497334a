/**
 * Where a dataset version's JSON lives in R2. The name is the content hash of its canonical JSON
 * text, so two versions (or two datasets of one tenant) with the same content share one object,
 * and an object once written never changes: a version's content can be cached anywhere by hash.
 */
export function datasetObjectKey(tenantId: string, contentHash: string): string {
  return `tenants/${tenantId}/datasets/${contentHash}.json`;
}

/**
 * Beside the content: its collections and their record counts (summary.ts), computed once when the
 * content is stored, so reading a version's metadata never reads (or parses) the whole dataset.
 */
export function datasetSummaryKey(tenantId: string, contentHash: string): string {
  return `tenants/${tenantId}/datasets/${contentHash}.summary.json`;
}
