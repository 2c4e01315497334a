/** @jsxImportSource hono/jsx */
/** A small inline bar for one scenario's pass rate with its 95% interval; the numbers sit beside it as text. */
import type { Interval } from "../../../core/scoring/rates.js";
import { intervalText, percent } from "../runs/view-models.js";
import type { Frame } from "./scale.js";

const RATE_BAR_FRAME: Frame = { width: 120, height: 16, left: 2, right: 2, top: 3, bottom: 3 };

export function RateBar(props: { rate: number | null; interval: Interval | null; gate?: number }) {
  const f = RATE_BAR_FRAME;
  const span = f.width - f.left - f.right;
  const x = (value: number) =>
    Math.round((f.left + Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0)) * span) * 10) / 10;
  const mid = f.height / 2;
  const label = `pass rate ${percent(props.rate)}, 95% interval ${intervalText(props.interval)}`;
  return (
    <svg
      class="rate-bar"
      viewBox={`0 0 ${f.width} ${f.height}`}
      width={f.width}
      height={f.height}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      <rect class="track" x={f.left} y={f.top} width={span} height={f.height - f.top - f.bottom} />
      {props.rate !== null && (
        <rect class="fill" x={f.left} y={f.top} width={x(props.rate) - f.left} height={f.height - f.top - f.bottom} />
      )}
      {props.interval && (
        <line class="whisker" x1={x(props.interval.low)} x2={x(props.interval.high)} y1={mid} y2={mid} />
      )}
      {props.gate !== undefined && <line class="gate" x1={x(props.gate)} x2={x(props.gate)} y1={0} y2={f.height} />}
    </svg>
  );
}
