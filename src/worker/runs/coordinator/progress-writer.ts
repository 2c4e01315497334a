/**
 * The run's progress written to D1 in the background, coalesced and throttled: while a write is in
 * flight or was made less than `interval` ago, later changes only mark the progress dirty, and one
 * write follows with whatever is current then. So a burst of results costs a few D1 writes, not
 * one each. Progress is advisory: the final row an ended run writes never waits on this.
 */
import type { Clock } from "../../../core/ports.js";

export class ProgressWriter {
  private inFlight: Promise<void> | null = null;
  private dirty = false;

  /** `write` answers false when there is nothing to write any more (the run ended). */
  constructor(
    private readonly write: () => Promise<boolean>,
    private readonly clock: Clock,
    private readonly intervalMs: number,
  ) {}

  soon(): void {
    this.dirty = true;
    if (this.inFlight) return;
    this.inFlight = (async () => {
      try {
        while (this.dirty) {
          this.dirty = false;
          if (!(await this.write())) return;
          if (this.dirty) await this.clock.sleep(this.intervalMs);
        }
      } catch (error) {
        // The next change tries again, and the final write at the end is retried until it lands.
        console.error("writing run progress to D1 failed", error);
      } finally {
        this.inFlight = null;
      }
    })();
  }
}
