/**
 * The isolate's shared dataset bases (core/datasets/base-cache.ts) over the DATASETS bucket: every
 * attempt object of this isolate on one dataset version reads the same frozen copy, fetched from R2
 * and parsed once. The content is checked against its hash on load, so an object in R2 that is not
 * what the version row says is a loud failure, never a silently different starting state.
 */
import { sha256Hex } from "../../adapters/crypto.js";
import { BaseCache, type LoadedBase } from "../../core/datasets/base-cache.js";
import { datasetObjectKey } from "../../core/datasets/keys.js";
import type { ResolvedDatasetPin } from "../../core/datasets/pin.js";
import type { Env } from "../platform/env.js";

/**
 * Bytes of dataset JSON text the isolate keeps (parsed, that is a few times more in memory): ten
 * copies of τ-bench's retail data, far under the 128 MB an isolate may use.
 */
const BASE_CACHE_BYTES = 24 * 1024 * 1024;

const cache = new BaseCache(BASE_CACHE_BYTES);

export function datasetBase(
  env: Pick<Env, "DATASETS">,
  tenantId: string,
  pin: ResolvedDatasetPin,
): Promise<LoadedBase> {
  return cache.get(pin.content_hash, async () => {
    const object = await env.DATASETS.get(datasetObjectKey(tenantId, pin.content_hash));
    if (!object) throw new Error(`the content of dataset "${pin.name}" version ${pin.version} is missing from storage`);
    const text = await object.text();
    const hash = sha256Hex(JSON.stringify(JSON.parse(text)));
    if (hash !== pin.content_hash)
      throw new Error(`the content of dataset "${pin.name}" version ${pin.version} does not match its hash`);
    return text;
  });
}
