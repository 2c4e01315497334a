/**
 * Repetitions that share one replay of their gold calls (end-state-grade.ts). The state the gold
 * calls reach is a function of what the fresh attempt is set up with and of the calls, nothing
 * else (the engine reads no clock, no random source, no attempt id), so every repetition of a
 * scenario in a run expects the same state, and replaying it once is enough: one fresh attempt per
 * scenario instead of one per repetition.
 *
 * What is held is the promise of the replay, so repetitions that reach grading at the same time
 * wait on one replay rather than each starting its own. A replay that failed (a gold call that did
 * not come back as a result, or an attempt that could not be reached) is forgotten as soon as it
 * settles, so the next repetition replays again and a failure is never read as an expectation;
 * the repetitions already waiting on it share its failure, as they would have met it themselves.
 * At most `limit` replays are held, the least recently used dropped first: a dropped one is
 * replayed again by the next repetition that needs it, which costs time and changes no grade.
 */
import type { JsonObject } from "../json.js";

/** The gold calls' state and the attempt it was read from, or why it could not be built. */
export type Replayed = { ok: true; state: JsonObject; attempt_id: string } | { ok: false; message: string };

export class GoldReplays {
  readonly #held = new Map<string, Promise<Replayed>>();

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError("limit must be a whole number from 1");
  }

  /**
   * The replay held under `key`, or `replay()` started and held under it. The caller's key must
   * name everything the result depends on: equal keys are taken to be the same replay.
   */
  shared(key: string, replay: () => Promise<Replayed>): Promise<Replayed> {
    const held = this.#held.get(key);
    if (held !== undefined) {
      // Used again: to the back of the line for eviction.
      this.#held.delete(key);
      this.#held.set(key, held);
      return held;
    }
    const started = replay();
    this.#held.set(key, started);
    for (const oldest of this.#held.keys()) {
      if (this.#held.size <= this.limit) break;
      this.#held.delete(oldest);
    }
    const forget = () => {
      // Only this replay: a later one held under the same key after an eviction stays.
      if (this.#held.get(key) === started) this.#held.delete(key);
    };
    started.then((replayed) => {
      if (!replayed.ok) forget();
    }, forget);
    return started;
  }

  /** How many replays are held now. */
  get size(): number {
    return this.#held.size;
  }
}
