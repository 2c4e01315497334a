/**
 * Repeats of a call that is out at its real handler wait here for its answer: a repeat must never
 * reach the real system a second time, so it waits until recordReal brings the answer back (wake)
 * or the forward's deadline passes, then is answered as any repeat. Memory only: an object that
 * leaves memory has no waiters, and busy() keeps it from leaving while it has any.
 */
export class ForwardWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves when `callId` is woken or `deadline` (epoch ms) passes, whichever is first. */
  wait(callId: string, deadline: number, now: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(callId) ?? new Set<() => void>();
      this.waiting.set(callId, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiting.get(callId) === waiters) this.waiting.delete(callId);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - now) + 1);
      waiters.add(done);
    });
  }

  wake(callId: string): void {
    for (const done of [...(this.waiting.get(callId) ?? [])]) done();
  }

  /** Whether any repeat is waiting. */
  busy(): boolean {
    return this.waiting.size > 0;
  }
}
