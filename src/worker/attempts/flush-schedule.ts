/**
 * When an attempt's evidence goes to D1. Every change is copied when the attempt goes quiet (an
 * idle timer, in memory) or by the alarm within FLUSH_INTERVAL_MS while it stays busy (durable,
 * so an object unloaded before its timer fires still flushes). The object owns the alarm itself
 * (it does all timed work in one alarm); this decides when to set it for a flush.
 */
import type { Clock } from "../../core/ports.js";
import { FLUSH_INTERVAL_MS } from "./lifetimes.js";

interface FlushPorts {
  clock: Clock;
  idleFlushMs: number;
  /** Copies every unflushed call to D1. */
  flush(): Promise<void>;
  hasUnflushed(): boolean;
  setAlarm(at: number): void;
  /** The lease as the object holds it now; null once it holds no attempt. */
  lease(): { expiresAt: number; leaseEnded: boolean } | null;
  /** The next alarm when nothing waits for D1. */
  quietAlarmAt(): number;
}

export class FlushSchedule {
  /** An alarm is set that will flush what is written now. */
  alarmSet = false;
  private lastChangeAt = 0;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly ports: FlushPorts) {}

  /** Something was written: flush it when the attempt goes quiet, or by the alarm within FLUSH_INTERVAL_MS. */
  changed(): void {
    const now = this.ports.clock.now();
    this.lastChangeAt = now;
    this.armIdleTimer();
    const lease = this.ports.lease();
    if (this.alarmSet || !lease) return;
    this.alarmSet = true;
    this.ports.setAlarm(
      Math.min(now + FLUSH_INTERVAL_MS, lease.leaseEnded ? Number.POSITIVE_INFINITY : lease.expiresAt),
    );
  }

  /**
   * After a flush outside the alarm: once everything is in D1, a pending flush alarm would only
   * wake (and perhaps reload) the object for nothing, so it moves to the quiet alarm. Done right
   * after the flush rather than later by the idle timer in the middle of other work.
   */
  flushedOutsideAlarm(): void {
    if (!this.alarmSet || this.ports.hasUnflushed()) return;
    this.alarmSet = false;
    this.ports.setAlarm(this.ports.quietAlarmAt());
  }

  /** The object is leaving memory: its timer must not fire into a dropped instance. */
  stopIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /**
   * Armed once; while calls keep coming it re-arms itself for the rest of the idle period, so a
   * busy attempt costs no timer work per call.
   */
  private armIdleTimer(): void {
    if (this.idleTimer !== null) return;
    this.idleTimer = setTimeout(() => this.onIdleTimer(), this.ports.idleFlushMs);
  }

  private onIdleTimer(): void {
    this.idleTimer = null;
    if (!this.ports.lease()) return;
    const quietFor = this.ports.clock.now() - this.lastChangeAt;
    if (quietFor < this.ports.idleFlushMs) {
      this.idleTimer = setTimeout(() => this.onIdleTimer(), this.ports.idleFlushMs - quietFor);
      return;
    }
    this.ports
      .flush()
      .then(() => this.flushedOutsideAlarm())
      .catch((error: unknown) => console.error("idle evidence flush to D1 failed; the alarm will retry", error));
  }
}
