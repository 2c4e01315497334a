/** @jsxImportSource hono/jsx */
/**
 * A run's progress as one bar: passed, failed and errored repetitions side by side, then those not
 * reported yet, as the CLI's progress bar shows them. Each segment is also said in the text beside
 * it and in the SVG's title, so neither colour nor width carries a number alone.
 */
import type { Frame } from "./scale.js";
import { plotWidth, unit } from "./scale.js";

export const PROGRESS_FRAME: Frame = { width: 600, height: 20, left: 0, right: 0, top: 2, bottom: 2 };

interface ProgressCounts {
  passed: number;
  failed: number;
  errors: number;
  total: number;
}

type Segment = { kind: "passed" | "failed" | "errors" | "pending"; count: number };

/** The segments in order, pending last, each never below zero and never past the total. */
export function progressSegments(counts: ProgressCounts): Segment[] {
  const total = Math.max(0, counts.total);
  let left = total;
  const take = (count: number) => {
    const n = Math.min(left, Math.max(0, Number.isFinite(count) ? Math.floor(count) : 0));
    left -= n;
    return n;
  };
  const passed = take(counts.passed);
  const failed = take(counts.failed);
  const errors = take(counts.errors);
  return [
    { kind: "passed", count: passed },
    { kind: "failed", count: failed },
    { kind: "errors", count: errors },
    { kind: "pending", count: left },
  ];
}

export function ProgressBar(props: { counts: ProgressCounts; label: string }) {
  const f = PROGRESS_FRAME;
  const segments = progressSegments(props.counts);
  const total = segments.reduce((sum, s) => sum + s.count, 0);
  let x = f.left;
  return (
    <svg
      class="progress-bar"
      viewBox={`0 0 ${f.width} ${f.height}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={props.label}
    >
      <title>{props.label}</title>
      <rect class="track" x={f.left} y={f.top} width={plotWidth(f)} height={f.height - f.top - f.bottom} />
      {segments.map((s) => {
        const width = total === 0 ? 0 : Math.round(unit(s.count / total) * plotWidth(f) * 10) / 10;
        const at = x;
        x = Math.min(f.width - f.right, Math.round((x + width) * 10) / 10);
        return s.count === 0 || s.kind === "pending" ? null : (
          <rect
            class={`segment segment-${s.kind}`}
            x={at}
            y={f.top}
            width={width}
            height={f.height - f.top - f.bottom}
          />
        );
      })}
    </svg>
  );
}
