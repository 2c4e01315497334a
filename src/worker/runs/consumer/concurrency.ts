/**
 * Bounds on how much runs at once inside one isolate: the messages of a queue batch, and the calls
 * to one model connection (its `max_concurrency`). Local Miniflare hands the consumer one batch at
 * a time, so concurrency within a batch is where local throughput comes from; a connection's bound
 * keeps those concurrent repetitions from overrunning the endpoint. Both are per isolate: deployed
 * consumers running in several isolates each keep their own count.
 */
import type { ModelClient } from "../../../core/ports.js";

const DEFAULT_BATCH_CONCURRENCY = 32;

export function batchConcurrency(raw: string | undefined): number {
  const value = raw === undefined ? Number.NaN : Number(raw);
  return Number.isInteger(value) && value >= 1 ? value : DEFAULT_BATCH_CONCURRENCY;
}

/**
 * Runs `work` over every item, at most `limit` at a time; then, when `more` is given, keeps each
 * free slot busy with what it finds until it finds nothing. Resolves when all have settled.
 */
export async function forEachBounded<T, M>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
  more?: { next: () => Promise<M | null>; work: (found: M) => Promise<void> },
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      if (item !== undefined) await work(item);
    }
    if (!more) return;
    for (let found = await more.next(); found !== null; found = await more.next()) await more.work(found);
  };
  await Promise.all(Array.from({ length: more ? limit : Math.min(limit, items.length) }, worker));
}

/** A counting semaphore: `run` waits for a free slot. */
class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const wake = this.waiting.shift();
      // A woken waiter takes over this slot, so `active` stays the same.
      if (wake) wake();
      else this.active--;
    }
  }
}

const connectionSlots = new Map<string, Semaphore>();

/** The client with its calls held to the connection's max_concurrency (one count per tenant and connection in this isolate). */
export function limitedClient(
  client: ModelClient,
  tenantId: string,
  connection: string,
  maxConcurrency: number,
): ModelClient {
  const key = `${tenantId}\u0000${connection}`;
  let slots = connectionSlots.get(key);
  if (!slots || slots.limit !== maxConcurrency) {
    slots = new Semaphore(Math.max(1, maxConcurrency));
    connectionSlots.set(key, slots);
  }
  const bound = slots;
  return { chat: (request) => bound.run(() => client.chat(request)) };
}
