import type { Interval } from "../core/scoring/rates.js";

/** 0.9333 → "93.3%"; no runs → "-". */
export function percent(rate: number | null): string {
  return rate === null ? "-" : `${(Math.round(rate * 1000) / 10).toFixed(1)}%`;
}

export function interval(value: Interval | null): string {
  return value === null ? "-" : `${percent(value.low)} to ${percent(value.high)}`;
}
