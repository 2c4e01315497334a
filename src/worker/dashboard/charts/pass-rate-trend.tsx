/** @jsxImportSource hono/jsx */
/**
 * A suite's pass rate over its last runs: one point per run with its 95% interval as a whisker,
 * the gate as a dashed line, and each value in the point's title and in the table beside the chart.
 */
import type { TrendPoint } from "../runs/view-models.js";
import { intervalText, percent } from "../runs/view-models.js";
import { bandCenter, type Frame, yOfRate } from "./scale.js";

export const TREND_FRAME: Frame = { width: 640, height: 220, left: 56, right: 12, top: 16, bottom: 28 };

export function PassRateTrend(props: { suite: string; points: readonly TrendPoint[] }) {
  const f = TREND_FRAME;
  const n = props.points.length;
  const id = `trend-${props.suite}`;
  // The gate as steps across the whole plot: each run's own gate over its band (a suite version may change it).
  const gatePath = props.points
    .map((p, i) => {
      const half = (f.width - f.left - f.right) / Math.max(1, n) / 2;
      const y = yOfRate(f, p.gate);
      return `${i === 0 ? "M" : "L"}${bandCenter(f, i, n) - half},${y} L${bandCenter(f, i, n) + half},${y}`;
    })
    .join(" ");
  const last = props.points[n - 1];
  const summary = last
    ? `${n} runs, the latest at ${percent(last.pass_rate)} against a gate of ${percent(last.gate)}.`
    : "No finished runs yet.";
  return (
    <svg class="chart" viewBox={`0 0 ${f.width} ${f.height}`} role="img" aria-labelledby={`${id}-t ${id}-d`} preserveAspectRatio="xMidYMid meet">
      <title id={`${id}-t`}>{`Pass rate of suite ${props.suite} over its last runs`}</title>
      <desc id={`${id}-d`}>{`${summary} Each point is a run's pass rate with its 95% interval; the dashed line is the gate.`}</desc>
      {[0, 0.5, 0.9, 1].map((tick) => (
        <g class="grid">
          <line x1={f.left} x2={f.width - f.right} y1={yOfRate(f, tick)} y2={yOfRate(f, tick)} />
          <text x={f.left - 6} y={yOfRate(f, tick) + 4} text-anchor="end">{percent(tick)}</text>
        </g>
      ))}
      {n > 0 && <path class="gate" d={gatePath} />}
      {last && (
        <text class="gate-label" x={f.width - f.right} y={yOfRate(f, last.gate) - 4} text-anchor="end">{`gate ${percent(last.gate)}`}</text>
      )}
      {props.points.map((p, i) => {
        const x = bandCenter(f, i, n);
        // No links inside the image (its marks are not focusable): the table of the chart's numbers links each run.
        return (
          <g class={`point tone-${p.verdict.tone}`}>
            <title>{`${p.name}: ${percent(p.pass_rate)} (95% interval ${intervalText(p.interval)}), gate ${percent(p.gate)}, verdict ${p.verdict.word}`}</title>
            {p.interval && <line class="whisker" x1={x} x2={x} y1={yOfRate(f, p.interval.high)} y2={yOfRate(f, p.interval.low)} />}
            {p.verdict.tone === "pass" ? <circle cx={x} cy={yOfRate(f, p.pass_rate)} r="5" /> : <rect x={x - 5} y={yOfRate(f, p.pass_rate) - 5} width="10" height="10" />}
          </g>
        );
      })}
      <text class="axis-label" x={f.left} y={f.height - 8}>oldest</text>
      <text class="axis-label" x={f.width - f.right} y={f.height - 8} text-anchor="end">newest</text>
    </svg>
  );
}
