/**
 * Where chart marks go, as pure arithmetic: every coordinate is clamped into the plot area, so a
 * rate outside [0, 1], a NaN or a huge count can never draw outside the SVG's viewBox.
 */

export interface Frame {
  width: number;
  height: number;
  /** Margins around the plot area, for axis labels. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export function plotWidth(frame: Frame): number {
  return Math.max(0, frame.width - frame.left - frame.right);
}

function plotHeight(frame: Frame): number {
  return Math.max(0, frame.height - frame.top - frame.bottom);
}

/** A value clamped to [0, 1]; NaN reads as 0. */
export function unit(value: number): number {
  if (!Number.isFinite(value)) return value === Infinity ? 1 : 0;
  return Math.min(1, Math.max(0, value));
}

/** The y of a rate 0..1 (1 at the top), inside the plot area. */
export function yOfRate(frame: Frame, rate: number): number {
  return round(frame.top + (1 - unit(rate)) * plotHeight(frame));
}

/** The y of a count against the largest count (0 at the bottom). */
export function yOfCount(frame: Frame, count: number, max: number): number {
  return yOfRate(frame, max > 0 ? count / max : 0);
}

/** The centre x of band `index` of `count` equal bands across the plot area. */
export function bandCenter(frame: Frame, index: number, count: number): number {
  const bands = bandsOf(count);
  const i = Math.min(bands - 1, Math.max(0, Number.isFinite(index) ? Math.floor(index) : 0));
  // Dividing first: (i + 0.5) * width overflows to Infinity for a huge count, (i + 0.5) / bands never passes 1.
  return round(frame.left + ((i + 0.5) / bands) * plotWidth(frame));
}

/** The width of one of `count` bands, less a gap, never negative. */
export function bandWidth(frame: Frame, count: number, gap = 0.3): number {
  const bands = bandsOf(count);
  return round(Math.max(0, (plotWidth(frame) / bands) * (1 - unit(gap))));
}

/** At least one band; a count that is not a finite number reads as one. */
function bandsOf(count: number): number {
  return Number.isFinite(count) ? Math.max(1, Math.floor(count)) : 1;
}

/** Coordinates rounded to 0.1 keep the markup short. */
function round(value: number): number {
  return Math.round(value * 10) / 10;
}
