/**
 * The shared, immutable bases every attempt on a dataset reads through: one parsed, frozen copy per
 * content hash in the isolate, however many attempts run on it. Bounded by bytes (the content's
 * size), the least recently used base leaves first; an attempt still holding a base it read keeps
 * it alive, so eviction only costs a later load, never a wrong read. Concurrent loads of one hash
 * share one load (a thousand attempts starting together fetch and parse it once).
 *
 * Pure: the loader is given, so the same cache serves the Worker (R2) and the benchmark (memory).
 */
import { isJsonObject, type JsonObject } from "../json.js";
import { deepFreeze } from "./records.js";

export interface LoadedBase {
  /** The dataset, frozen: no attempt can change what the others read. */
  value: JsonObject;
  /** The size it is counted by: its JSON text's length. */
  bytes: number;
}

export class BaseCache {
  /** Insertion order is recency: a hit moves its entry to the end, eviction takes from the front. */
  private readonly entries = new Map<string, LoadedBase>();
  private readonly loading = new Map<string, Promise<LoadedBase>>();
  private held = 0;

  constructor(private readonly maxBytes: number) {}

  /** The base with this content hash, loading its JSON text once when no one has it. */
  async get(contentHash: string, load: () => Promise<string>): Promise<LoadedBase> {
    const hit = this.entries.get(contentHash);
    if (hit) {
      this.entries.delete(contentHash);
      this.entries.set(contentHash, hit);
      return hit;
    }
    const pending = this.loading.get(contentHash);
    if (pending) return pending;
    const started = (async () => {
      const text = await load();
      const parsed: unknown = JSON.parse(text);
      if (!isJsonObject(parsed)) throw new Error(`dataset content ${contentHash} is not a JSON object`);
      const loaded: LoadedBase = { value: deepFreeze(parsed), bytes: text.length };
      this.keep(contentHash, loaded);
      return loaded;
    })();
    this.loading.set(contentHash, started);
    try {
      return await started;
    } finally {
      this.loading.delete(contentHash);
    }
  }

  /** What the cache holds now: hashes from least to most recently used, and their bytes. */
  stats(): { hashes: string[]; bytes: number } {
    return { hashes: [...this.entries.keys()], bytes: this.held };
  }

  private keep(contentHash: string, loaded: LoadedBase): void {
    // A base larger than the whole bound is still handed to its caller, just not kept.
    if (loaded.bytes > this.maxBytes) return;
    this.entries.set(contentHash, loaded);
    this.held += loaded.bytes;
    for (const [hash, entry] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(hash);
      this.held -= entry.bytes;
    }
  }
}
