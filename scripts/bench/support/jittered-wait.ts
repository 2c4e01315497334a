/**
 * Model answer times that vary, repeatably: the conversation benchmarks' `--jitter f` makes each
 * answer wait its latency × a factor drawn evenly from [1 − f, 1 + f], from a fixed seed, so the
 * mean (and the ideal) is unchanged and every run draws the same sequence.
 */
import { sleep } from "../../../test/support/model-server/server.js";

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The model server's `wait` for a jitter of `fraction` (0 ≤ fraction < 1). */
export function jitteredWait(fraction: number): (ms: number, signal: AbortSignal) => Promise<void> {
  const random = seededRandom(20261206);
  return (ms, signal) => sleep(ms * (1 - fraction + 2 * fraction * random()), signal);
}
