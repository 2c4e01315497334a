/**
 * A map that holds at most `limit` entries and, when full, drops the one used longest ago: for the
 * per-isolate caches (parsed setups, shared operations) whose entries are worth keeping while they
 * are in use and cost nothing but time to rebuild once dropped.
 */
export class RecentlyUsed<K, V> {
  // A Map iterates in insertion order, so re-inserting on use keeps its first key the least recently used.
  readonly #entries = new Map<K, V>();

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError("limit must be a whole number from 1");
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value under `key`, which counts as a use. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    // SAFETY: has() just said the key is there.
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Holds `value` under `key` as the most recently used entry, dropping the least recently used ones past the limit. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    while (this.#entries.size >= this.limit) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
  }
}
