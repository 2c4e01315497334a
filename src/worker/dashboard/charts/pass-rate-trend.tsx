/** @jsxImportSource hono/jsx */
/**
 * A suite's pass rate over its last runs: one mark per run with its 95% interval as a whisker,
 * the gate as a dashed line labelled in the right margin (where no whisker reaches), the runs'
 * dates on the x axis, and each value in the mark's title and in the table beside the chart. The
 * mark's shape says what the run was (TrendLegend names them): a run that measured nothing (every
 * repetition errored) is a cross on the axis with no whisker, never a measured 0%.
 */
import type { TrendMark, TrendPoint } from "../runs/view-models.js";
import { intervalText, percent } from "../runs/view-models.js";
import { bandCenter, type Frame, plotWidth, yOfRate } from "./scale.js";

export const TREND_FRAME: Frame = { width: 960, height: 250, left: 56, right: 92, top: 16, bottom: 48 };

/** Dates under the axis: every run while they fit, else about this many, first and last included. */
const MAX_DATE_LABELS = 8;

export const MARK_WORDS: Record<TrendMark, string> = {
  pass: "passed the gate",
  fail: "did not pass (failed the gate, a hard fail, or errors)",
  uncalibrated: "measured, verdict withheld: the judge is not calibrated",
  pending: "no verdict: still running, or cancelled before one",
  unmeasured: "nothing measured: every repetition ended in an error",
};

/** The indexes whose date is written under the axis. */
export function dateLabelIndexes(n: number, max = MAX_DATE_LABELS): number[] {
  if (n <= 0) return [];
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const step = (n - 1) / (max - 1);
  return [...new Set(Array.from({ length: max }, (_, i) => Math.round(i * step)))];
}

/** "12-03 16:40" (UTC): short enough for eight under a laptop-wide chart. */
function shortDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "?" : date.toISOString().slice(5, 16).replace("T", " ");
}

export function PassRateTrend(props: { suite: string; points: readonly TrendPoint[] }) {
  const f = TREND_FRAME;
  const n = props.points.length;
  const id = `trend-${props.suite}`;
  const half = plotWidth(f) / Math.max(1, n) / 2;
  // The gate as steps across the whole plot: each run's own gate over its band (a suite version may change it).
  const gatePath = props.points
    .map((p, i) => {
      const y = yOfRate(f, p.gate);
      return `${i === 0 ? "M" : "L"}${round(bandCenter(f, i, n) - half)},${y} L${round(bandCenter(f, i, n) + half)},${y}`;
    })
    .join(" ");
  const last = props.points[n - 1];
  const summary = last
    ? `${n} runs, the latest ${last.mark === "unmeasured" ? "measured nothing (every repetition errored)" : `at ${percent(last.pass_rate)}`} against a gate of ${percent(last.gate)}.`
    : "No finished runs yet.";
  const dated = new Set(dateLabelIndexes(n));
  const floor = yOfRate(f, 0);
  return (
    <svg
      class="chart trend"
      viewBox={`0 0 ${f.width} ${f.height}`}
      role="img"
      aria-labelledby={`${id}-t ${id}-d`}
      preserveAspectRatio="xMidYMid meet"
    >
      <title id={`${id}-t`}>{`Pass rate of suite ${props.suite} over its last runs`}</title>
      <desc
        id={`${id}-d`}
      >{`${summary} Each mark is a run's pass rate with its 95% interval; the dashed line is the gate.`}</desc>
      {[0, 0.5, 0.9, 1].map((tick) => (
        <g class="grid">
          <line x1={f.left} x2={f.width - f.right} y1={yOfRate(f, tick)} y2={yOfRate(f, tick)} />
          <text x={f.left - 6} y={yOfRate(f, tick) + 4} text-anchor="end">
            {percent(tick)}
          </text>
        </g>
      ))}
      {n > 0 && <path class="gate" d={gatePath} />}
      {last && (
        <text
          class="gate-label"
          x={f.width - f.right + 6}
          y={yOfRate(f, last.gate) + 4}
          text-anchor="start"
        >{`gate ${percent(last.gate)}`}</text>
      )}
      {props.points.map((p, i) => {
        const x = bandCenter(f, i, n);
        // No links inside the image (its marks are not focusable): the table of the chart's numbers links each run.
        const words =
          p.mark === "unmeasured"
            ? `${p.name}: nothing measured (every repetition ended in an error), gate ${percent(p.gate)}, verdict ${p.verdict.word}`
            : `${p.name}: ${percent(p.pass_rate)} (95% interval ${intervalText(p.interval)}), gate ${percent(p.gate)}, verdict ${p.verdict.word}`;
        return (
          <g class={`point mark-${p.mark} tone-${p.verdict.tone}`} data-mark={p.mark}>
            <title>{words}</title>
            {p.mark !== "unmeasured" && p.interval && (
              <line class="whisker" x1={x} x2={x} y1={yOfRate(f, p.interval.high)} y2={yOfRate(f, p.interval.low)} />
            )}
            <Mark mark={p.mark} x={x} y={p.mark === "unmeasured" ? floor : yOfRate(f, p.pass_rate)} />
            {dated.has(i) && (
              <text class="date" x={x} y={floor + 18} text-anchor="middle">
                {shortDate(p.created_at)}
              </text>
            )}
          </g>
        );
      })}
      <text class="axis-label" x={f.left + plotWidth(f) / 2} y={f.height - 6} text-anchor="middle">
        run created (UTC, month-day time), oldest on the left
      </text>
    </svg>
  );
}

/** One run's mark: circle, square, diamond, ring or cross (the legend's shapes, drawn the same way). */
export function Mark(props: { mark: TrendMark; x: number; y: number }) {
  const { x, y } = props;
  switch (props.mark) {
    case "pass":
      return <circle cx={x} cy={y} r="5" />;
    case "fail":
      return <rect x={x - 5} y={y - 5} width="10" height="10" />;
    case "uncalibrated":
      return (
        <path
          class="diamond"
          d={`M${x},${round(y - 6)} L${round(x + 6)},${y} L${x},${round(y + 6)} L${round(x - 6)},${y} Z`}
        />
      );
    case "pending":
      return <circle class="ring" cx={x} cy={y} r="4.5" />;
    case "unmeasured":
      return (
        <path
          class="cross"
          d={`M${round(x - 5)},${round(y - 5)} L${round(x + 5)},${round(y + 5)} M${round(x - 5)},${round(y + 5)} L${round(x + 5)},${round(y - 5)}`}
        />
      );
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
