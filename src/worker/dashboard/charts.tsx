/** @jsxImportSource hono/jsx */
/**
 * Charts as inline SVG drawn on the server: no script, readable without JavaScript. Every chart
 * has a title and a description for screen readers, and each bar's value is written on it, so
 * nothing depends on reading a height or a colour.
 */

interface Bar {
  label: string;
  /** 0..max; null draws no bar and writes `text` (e.g. "no labels"). */
  value: number | null;
  /** What is written above the bar. */
  text: string;
}

interface BarChartProps {
  title: string;
  /** One sentence saying what the chart shows, for the figcaption and the SVG's description. */
  description: string;
  bars: Bar[];
  max: number;
  /** A dashed horizontal line (a gate), with its label. */
  line?: { value: number; label: string };
  /** The id stem for title/desc elements, unique on the page. */
  id: string;
  /** The y axis: what it measures, and how a tick's value is written (values 0, max/2 and max are ticked). */
  yAxis: { label: string; format: (value: number) => string };
}

const WIDTH = 480;
const HEIGHT = 220;
/** The left margin holds the y axis's tick labels and its title. */
const PAD = { top: 24, right: 12, bottom: 36, left: 64 };

/** The geometry of a bar chart (pure, so tests can check where a bar ends without parsing SVG). */
export function barGeometry(
  bars: readonly Bar[],
  max: number,
): Array<{ x: number; y: number; width: number; height: number }> {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(bars.length, 1);
  return bars.map((bar, i) => {
    const share = bar.value === null || max <= 0 ? 0 : Math.min(Math.max(bar.value / max, 0), 1);
    const height = Math.round(share * plotH * 10) / 10;
    return {
      x: Math.round((PAD.left + i * slot + slot * 0.15) * 10) / 10,
      y: Math.round((PAD.top + plotH - height) * 10) / 10,
      width: Math.round(slot * 0.7 * 10) / 10,
      height,
    };
  });
}

export function BarChart(props: BarChartProps) {
  const geometry = barGeometry(props.bars, props.max);
  const baseline = HEIGHT - PAD.bottom;
  const lineY = props.line
    ? PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - Math.min(Math.max(props.line.value / props.max, 0), 1))
    : undefined;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${props.id}-title ${props.id}-desc`}>
        <title id={`${props.id}-title`}>{props.title}</title>
        <desc
          id={`${props.id}-desc`}
        >{`${props.description} ${props.bars.map((b) => `${b.label}: ${b.text}`).join("; ")}.`}</desc>
        <line class="axis" x1={PAD.left} x2={WIDTH - PAD.right} y1={baseline} y2={baseline} />
        <line class="axis" x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={baseline} />
        {[0, 0.5, 1].map((share) => {
          const y = Math.round((baseline - share * (HEIGHT - PAD.top - PAD.bottom)) * 10) / 10;
          return (
            <g class="y-tick">
              <line class="axis" x1={PAD.left - 4} x2={PAD.left} y1={y} y2={y} />
              <text x={PAD.left - 6} y={y + 4} text-anchor="end">
                {props.yAxis.format(share * props.max)}
              </text>
            </g>
          );
        })}
        <text
          class="axis-label"
          x={14}
          y={PAD.top + (HEIGHT - PAD.top - PAD.bottom) / 2}
          text-anchor="middle"
          transform={`rotate(-90 14 ${PAD.top + (HEIGHT - PAD.top - PAD.bottom) / 2})`}
        >
          {props.yAxis.label}
        </text>
        {props.bars.map((bar, i) => {
          const g = geometry[i];
          if (!g) return null;
          const cx = g.x + g.width / 2;
          return (
            <g>
              {g.height > 0 ? <rect class="bar" x={g.x} y={g.y} width={g.width} height={g.height} /> : null}
              <text x={cx} y={g.y - 6} text-anchor="middle">
                {bar.text}
              </text>
              <text x={cx} y={baseline + 18} text-anchor="middle">
                {bar.label}
              </text>
            </g>
          );
        })}
        {props.line && lineY !== undefined ? (
          <g>
            <line class="gate" x1={PAD.left} x2={WIDTH - PAD.right} y1={lineY} y2={lineY} />
            <text x={WIDTH - PAD.right} y={lineY - 4} text-anchor="end">
              {props.line.label}
            </text>
          </g>
        ) : null}
      </svg>
      <figcaption>{props.description}</figcaption>
    </figure>
  );
}
