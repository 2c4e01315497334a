/** @jsxImportSource hono/jsx */
/** How many repetitions got each judge score 1–5, each bar labelled with its count. */
import type { ScoreCounts } from "../runs/view-models.js";
import { bandCenter, bandWidth, type Frame, yOfCount } from "./scale.js";

export const HISTOGRAM_FRAME: Frame = { width: 320, height: 180, left: 12, right: 12, top: 20, bottom: 36 };

export function ScoreHistogram(props: { scores: ScoreCounts }) {
  const f = HISTOGRAM_FRAME;
  const max = Math.max(0, ...props.scores.counts);
  const width = bandWidth(f, 5);
  const floor = yOfCount(f, 0, max);
  const words = props.scores.counts.map((count, i) => `score ${i + 1}: ${count}`).join(", ");
  return (
    <svg class="chart histogram" viewBox={`0 0 ${f.width} ${f.height}`} role="img" aria-labelledby="scores-t scores-d">
      <title id="scores-t">Judge scores</title>
      <desc id="scores-d">{`Repetitions per judge score: ${words}; ${props.scores.unscored} decided without a score.`}</desc>
      <line class="axis-line" x1={f.left} x2={f.width - f.right} y1={floor} y2={floor} />
      {props.scores.counts.map((count, i) => {
        const x = bandCenter(f, i, 5);
        const top = yOfCount(f, count, max);
        return (
          <g class="bar" data-score={String(i + 1)} data-count={String(count)}>
            <title>{`score ${i + 1}: ${count} ${count === 1 ? "repetition" : "repetitions"}`}</title>
            <rect x={x - width / 2} y={top} width={width} height={Math.max(0, floor - top)} />
            <text class="bar-value" x={x} y={top - 4} text-anchor="middle">
              {String(count)}
            </text>
            <text x={x} y={floor + 16} text-anchor="middle">
              {String(i + 1)}
            </text>
          </g>
        );
      })}
      <text class="axis-label" x={f.width / 2} y={f.height - 4} text-anchor="middle">
        judge score
      </text>
    </svg>
  );
}
