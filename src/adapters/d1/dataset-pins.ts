/**
 * Dataset pins resolved against D1: which stored version (tenant, name, version) names, with its
 * content hash and size. Versions are append-only (migrations/0009_datasets.sql), so a pin that
 * resolves once resolves to the same content for good: attempts may keep the hash and never ask again.
 */
import { and, eq, or } from "drizzle-orm";
import { pinKey, type DatasetCatalog, type DatasetPin, type ResolvedDatasetPin } from "../../core/datasets/pin.js";
import type { Database } from "./database.js";
import { datasetVersions } from "./schema.js";

export async function resolveDatasetPins(
  db: Database,
  tenantId: string,
  pins: readonly DatasetPin[],
): Promise<Map<string, ResolvedDatasetPin>> {
  const found = new Map<string, ResolvedDatasetPin>();
  const unique = [...new Map(pins.map((pin) => [pinKey(pin), pin])).values()];
  if (unique.length === 0) return found;
  const rows = await db
    .select({
      name: datasetVersions.name,
      version: datasetVersions.version,
      content_hash: datasetVersions.content_hash,
      bytes: datasetVersions.bytes,
    })
    .from(datasetVersions)
    .where(
      and(
        eq(datasetVersions.tenant_id, tenantId),
        or(...unique.map((pin) => and(eq(datasetVersions.name, pin.name), eq(datasetVersions.version, pin.version)))),
      ),
    );
  for (const row of rows) found.set(pinKey(row), row);
  return found;
}

/** The catalog planning reads, for one tenant. */
export function datasetCatalog(db: Database, tenantId: string): DatasetCatalog {
  return { resolve: (pins) => resolveDatasetPins(db, tenantId, pins) };
}
