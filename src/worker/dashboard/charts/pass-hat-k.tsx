/** @jsxImportSource hono/jsx */
/**
 * pass^k over k: the chance that k repetitions drawn from the run all pass (figures.ts, the mean
 * over scenarios). A falling line is an agent that passes sometimes but not reliably.
 */
import { percent } from "../runs/view-models.js";
import { bandCenter, type Frame, yOfRate } from "./scale.js";

export const PASS_HAT_K_FRAME: Frame = { width: 320, height: 180, left: 56, right: 12, top: 20, bottom: 36 };

export function PassHatK(props: { points: ReadonlyArray<{ k: number; value: number }> }) {
  const f = PASS_HAT_K_FRAME;
  const n = props.points.length;
  const path = props.points
    .map((p, i) => `${i === 0 ? "M" : "L"}${bandCenter(f, i, n)},${yOfRate(f, p.value)}`)
    .join(" ");
  const words = props.points.map((p) => `k=${p.k}: ${percent(p.value)}`).join(", ");
  // Labels on every point only while they fit; the title of each point and the desc carry them all.
  const labelled = n <= 10;
  return (
    <svg class="chart pass-hat-k" viewBox={`0 0 ${f.width} ${f.height}`} role="img" aria-labelledby="passk-t passk-d">
      <title id="passk-t">pass^k over k</title>
      <desc id="passk-d">{n === 0 ? "No repetitions yet." : `The chance that k repetitions all pass: ${words}.`}</desc>
      {[0, 0.5, 1].map((tick) => (
        <g class="grid">
          <line x1={f.left} x2={f.width - f.right} y1={yOfRate(f, tick)} y2={yOfRate(f, tick)} />
          <text x={f.left - 6} y={yOfRate(f, tick) + 4} text-anchor="end">
            {percent(tick)}
          </text>
        </g>
      ))}
      {n > 1 && <path class="line" d={path} />}
      {props.points.map((p, i) => {
        const x = bandCenter(f, i, n);
        const y = yOfRate(f, p.value);
        return (
          <g class="point" data-k={String(p.k)}>
            <title>{`pass^${p.k} = ${percent(p.value)}`}</title>
            <circle cx={x} cy={y} r="4" />
            {labelled && (
              <text class="bar-value" x={x} y={y - 8} text-anchor="middle">
                {percent(p.value)}
              </text>
            )}
            {(labelled || i === 0 || i === n - 1) && (
              <text x={x} y={f.height - f.bottom + 16} text-anchor="middle">
                {String(p.k)}
              </text>
            )}
          </g>
        );
      })}
      <text class="axis-label" x={f.left + (f.width - f.left - f.right) / 2} y={f.height - 4} text-anchor="middle">
        k
      </text>
    </svg>
  );
}
