/** Pure formatting shared by dashboard pages. */

/** An ISO time as people read it, in UTC so every reader sees the same text. */
export function when(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A share 0..1 as a percentage with one decimal, or a dash when there is none. */
export function percent(share: number | null): string {
  return share === null ? "—" : `${(Math.round(share * 1000) / 10).toFixed(1)}%`;
}

/** A figure to two decimals, or a dash. */
export function fixed2(value: number | null): string {
  return value === null ? "—" : value.toFixed(2);
}

/** A path segment, safely encoded for a link. */
export function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}
