/** @jsxImportSource hono/jsx */
/**
 * The Runs page: every run of the tenant newest first (verdict in words, pass rate, hard fails),
 * and per suite its pass rate over its last runs, drawn against the gate with each run's interval.
 */
import { MARK_WORDS, Mark, PassRateTrend } from "../charts/pass-rate-trend.js";
import { Badge } from "../components.js";
import { ScrollRegion } from "./scroll-region.js";
import { seg, when } from "../format.js";
import type { PageResult } from "../page.js";
import {
  intervalText,
  percent,
  runListRow,
  suiteTrend,
  type RunView,
  type TrendMark,
  type TrendPoint,
} from "./view-models.js";

export function runHref(id: string): string {
  return `/runs/${seg(id)}`;
}

interface SuiteChart {
  suite: string;
  points: TrendPoint[];
}

export function runsListPage(
  runs: readonly RunView[],
  charts: readonly SuiteChart[],
  next: string | undefined,
): PageResult {
  return {
    title: "Runs",
    body: (
      <div class="runs-page">
        <h1>Runs</h1>
        <p class="lede">
          Every eval run of this tenant, newest first. A forbidden call fails a run whatever its pass rate: those runs
          say “hard fail”.
        </p>
        {runs.length === 0 ? (
          <p>
            No runs yet. Start one with <code>POST /api/suites/:name/runs</code> (README: “A first eval run”).
          </p>
        ) : (
          <RunsTable runs={runs} />
        )}
        {next ? (
          <p>
            <a href={next}>Older runs</a>
          </p>
        ) : null}
        {charts.length > 0 ? <h2>Pass rate per suite</h2> : null}
        {charts.map((chart) => (
          <SuiteTrend chart={chart} />
        ))}
      </div>
    ),
  };
}

function RunsTable(props: { runs: readonly RunView[] }) {
  return (
    <ScrollRegion label="Runs, newest first">
      <table class="data">
        <caption>Runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Suite</th>
            <th scope="col">Verdict</th>
            <th scope="col" class="num">
              Pass rate
            </th>
            <th scope="col">Hard fails</th>
            <th scope="col" class="num">
              Repetitions
            </th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {props.runs.map((run) => {
            const row = runListRow(run);
            return (
              <tr class={row.hard_fail ? "hard-fail" : undefined}>
                <td>
                  <a href={runHref(row.id)}>{row.label ?? row.id}</a>
                  {row.label ? <div class="hint mono">{row.id}</div> : null}
                </td>
                <td>{`${row.suite} v${row.suite_version}`}</td>
                <td>
                  <Badge tone={row.badge.tone}>{row.badge.word}</Badge>
                </td>
                <td class="num">{row.pass_rate}</td>
                <td>
                  {row.hard_fail ? (
                    <strong>{`Hard fail: ${run.forbidden_calls} forbidden ${run.forbidden_calls === 1 ? "call" : "calls"}`}</strong>
                  ) : (
                    "None"
                  )}
                </td>
                <td class="num">{row.progress}</td>
                <td>{when(row.created_at)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function SuiteTrend(props: { chart: SuiteChart }) {
  const { suite, points } = props.chart;
  return (
    <section aria-labelledby={`suite-${suite}`}>
      <h3 id={`suite-${suite}`}>{`Suite ${suite}`}</h3>
      {points.length === 0 ? (
        <p>{`No run of suite ${suite} has a pass rate to chart yet: none has finished a repetition.`}</p>
      ) : (
        <SuiteTrendFigure chart={props.chart} />
      )}
    </section>
  );
}

function SuiteTrendFigure(props: { chart: SuiteChart }) {
  const { suite, points } = props.chart;
  return (
    <>
      {/* Focusable: on a phone the chart keeps a readable size and scrolls sideways in its own box. */}
      <figure class="chart wide" tabindex={0}>
        <PassRateTrend suite={suite} points={points} />
        <figcaption>{`Pass rate of its last ${points.length} ${points.length === 1 ? "run" : "runs"}, oldest on the left, each under the date it was created.`}</figcaption>
      </figure>
      <TrendLegend marks={points.map((p) => p.mark)} />
      <details>
        <summary>The chart's numbers</summary>
        <ScrollRegion label={`Last runs of suite ${suite}, oldest first`}>
          <table class="data">
            <caption>{`Last runs of suite ${suite}, oldest first`}</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col" class="num">
                  Pass rate
                </th>
                <th scope="col">95% interval</th>
                <th scope="col" class="num">
                  Gate
                </th>
                <th scope="col">Verdict</th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr>
                  <td>
                    <a href={runHref(p.run_id)}>{p.name}</a>
                  </td>
                  <td class="num">{p.mark === "unmeasured" ? "— (all errors)" : percent(p.pass_rate)}</td>
                  <td>{p.mark === "unmeasured" ? "—" : intervalText(p.interval)}</td>
                  <td class="num">{percent(p.gate)}</td>
                  <td>{p.verdict.word}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </details>
    </>
  );
}

/** What the chart's marks and lines mean, drawn with the same marks: every shape the chart uses, and the two lines. */
function TrendLegend(props: { marks: readonly TrendMark[] }) {
  const shown = (Object.keys(MARK_WORDS) as TrendMark[]).filter(
    (mark) => mark === "pass" || mark === "fail" || props.marks.includes(mark),
  );
  return (
    <ul class="chart-legend" aria-label="Legend of the chart">
      {shown.map((mark) => (
        <li>
          <svg class={`chart legend-mark`} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
            <g class={`point mark-${mark} tone-${mark === "pass" ? "pass" : mark === "fail" ? "fail" : "warn"}`}>
              <Mark mark={mark} x={8} y={8} />
            </g>
          </svg>
          {` ${MARK_WORDS[mark]}`}
        </li>
      ))}
      <li>
        <svg class="chart legend-mark" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
          <line class="whisker" x1="8" x2="8" y1="1" y2="15" />
        </svg>
        {" the run's 95% interval"}
      </li>
      <li>
        <svg class="chart legend-mark" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
          <path class="gate" d="M0,8 L16,8" />
        </svg>
        {" the gate: the pass rate a run must reach"}
      </li>
    </ul>
  );
}

/** The charts for the list page's suites, from each suite's last runs and their gates. */
export function suiteCharts(
  suites: ReadonlyArray<{ suite: string; runs: RunView[]; gates: Map<string, number> }>,
): SuiteChart[] {
  return suites.map(({ suite, runs, gates }) => ({ suite, points: suiteTrend(runs, (run) => gates.get(run.id) ?? 0) }));
}
