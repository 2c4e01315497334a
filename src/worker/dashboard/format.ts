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

/** A length of time as people say it: "850 ms", "12.3 s", "4 min 5 s", "2 h 7 min"; a dash for none. */
export function duration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
