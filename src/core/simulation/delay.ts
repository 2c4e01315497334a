/**
 * Simulated latency. A definition's delay_ms is real latency for the caller (an agent measuring
 * time sees it), but the wait happens in the Worker after the attempt object has answered, so it
 * never holds the object for other calls. The scale makes the wait injectable: 1 in production,
 * 0 in test suites (no real time spent), anything between to compress long fixtures.
 */
import type { Clock } from "../ports.js";

/** Reads a DELAY_SCALE setting: a finite number from 0 to 1; anything else means 1 (honour delays fully). */
export function parseDelayScale(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return 1;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : 1;
}

/** Waits delay_ms × scale on the given clock; returns the milliseconds actually waited. */
export async function waitSimulatedDelay(delayMs: number, scale: number, clock: Clock): Promise<number> {
  const ms = Math.round(Math.max(0, delayMs) * scale);
  if (ms > 0) await clock.sleep(ms);
  return ms;
}
