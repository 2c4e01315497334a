/**
 * Seeds a dataset version the way the datasets API stores one (the D1 row and the R2 object named by
 * the content hash), through the test env bindings: the pins and copy-on-write tests need a stored
 * version, and do not depend on the API that creates them.
 */
import { env } from "cloudflare:test";
import { sha256Hex } from "../../../src/adapters/crypto.js";
import { datasetObjectKey } from "../../../src/core/datasets/keys.js";
import type { ResolvedDatasetPin } from "../../../src/core/datasets/pin.js";
import type { JsonObject } from "../../../src/core/json.js";
import type { TestTenant } from "../helpers.js";

export async function seedDataset(tenant: TestTenant, name: string, content: JsonObject): Promise<ResolvedDatasetPin> {
  // Canonical text: JSON.stringify of the parsed value, keys in the document's order.
  const text = JSON.stringify(content);
  const contentHash = sha256Hex(text);
  const bytes = new TextEncoder().encode(text).length;
  await env.DATASETS.put(datasetObjectKey(tenant.id, contentHash), text);
  const latest = await env.DB.prepare(
    "select coalesce(max(version), 0) as version from dataset_versions where tenant_id = ? and name = ?",
  )
    .bind(tenant.id, name)
    .first<{ version: number }>();
  const version = (latest?.version ?? 0) + 1;
  await env.DB.prepare(
    "insert into dataset_versions (tenant_id, name, version, content_hash, bytes, created_by) values (?, ?, ?, ?, ?, ?)",
  )
    .bind(tenant.id, name, version, contentHash, bytes, tenant.keyId)
    .run();
  return { name, version, content_hash: contentHash, bytes };
}
