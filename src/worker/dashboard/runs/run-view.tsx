/** @jsxImportSource hono/jsx */
/**
 * A run: hard fails first and impossible to miss, the gate's reasons, the scenario grid, the
 * judge-score histogram, pass^k over k, detection power in words, the comparison with a baseline
 * run of the same suite (a GET form: works without script), and each repetition opening (a
 * <details>) to its calls, approval requests, final answer, judge score and reason.
 */
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import type { AttackRates, RunAttackFigures } from "../../../core/scoring/attacks.js";
import type { RepetitionItem } from "../../runs/view.js";
import { PassHatK } from "../charts/pass-hat-k.js";
import { ProgressBar } from "../charts/progress-bar.js";
import { RateBar } from "../charts/rate-bar.js";
import { ScoreHistogram } from "../charts/score-histogram.js";
import { Badge, Notice } from "../components.js";
import { callDetailText, callKindText, problemsText } from "./call-text.js";
import { ScrollRegion } from "./scroll-region.js";
import { EndStateSection } from "./end-state-view.js";
import { duration, seg, when } from "../format.js";
import type { PageResult } from "../page.js";
import type { RunPageData } from "./data.js";
import { runHref } from "./list-view.js";
import {
  compareScenarios,
  detectionSentence,
  intervalText,
  isLive,
  percent,
  perKPoints,
  type RunView,
  type ScenarioComparison,
  scenarioGrid,
  scoreCounts,
  verdictBadge,
} from "./view-models.js";

function attemptHref(attemptId: string, from?: { run: string; n: number }): string {
  return `/attempts/${seg(attemptId)}${from ? `?run=${seg(from.run)}&n=${from.n}` : ""}`;
}

function runName(run: Pick<RunView, "label" | "id">): string {
  return run.label ?? run.id;
}

/** Seconds between reloads of a live run's page (a <meta http-equiv="refresh">: no script needed). */
const LIVE_REFRESH_SECONDS = 5;

/**
 * `now` (ms) measures a live run's elapsed time; `reload` is false when the reader turned the
 * reloading off (?reload=off): a page that reloads itself must let people stop it (WCAG 2.2.1),
 * and a screen reader loses its place at every reload.
 */
export function runPage(data: RunPageData, shownLimit: number, now: number, reload = true): PageResult {
  const { run, gate, repetitions } = data;
  const badge = verdictBadge(run);
  const records = repetitions.map((r) => r.record);
  const live = isLive(run);
  const time = runTimes(run, now);
  return {
    title: `Run ${runName(run)}`,
    // Only while live: an ended run's page never changes, so it stops reloading itself.
    refreshSeconds: live && reload ? LIVE_REFRESH_SECONDS : undefined,
    body: (
      <div class="runs-page">
        <p class="breadcrumbs">
          <a href="/runs">Runs</a> › {`suite ${run.suite}`}
        </p>
        <h1>
          {`Run ${runName(run)} `}
          <Badge tone={badge.tone}>{badge.word}</Badge>
        </h1>
        <p class="lede">{lede(run)}</p>
        {live ? <ReloadControl run={run} reload={reload} /> : null}
        <RunProgress run={run} time={time} />
        {run.hard_fail ? <HardFails run={run} /> : null}
        <dl class="facts">
          <dt>Verdict</dt>
          <dd>{badge.word}</dd>
          <dt>Pass rate</dt>
          {/* Errors are in the denominator (core/scoring/figures.ts): say so, or 0% reads as an agent that failed. */}
          <dd>{`${live ? "so far " : ""}${percent(run.pass_rate)} (${run.passed} of ${run.runs}${run.errors > 0 ? `, the ${run.errors} ${run.errors === 1 ? "error" : "errors"} counted as not passed` : ""}), 95% interval ${intervalText(run.interval)}`}</dd>
          <dt>Gate</dt>
          <dd>{`${percent(gate)} of repetitions must pass`}</dd>
          <dt>Failed, errors</dt>
          <dd>{`${run.failed} failed, ${run.errors} ${run.errors === 1 ? "error" : "errors"}`}</dd>
          <dt>Forbidden calls</dt>
          <dd>{String(run.forbidden_calls)}</dd>
          <dt>Created</dt>
          <dd>{when(run.created_at)}</dd>
          {run.finished_at ? (
            <>
              <dt>Finished</dt>
              <dd>{when(run.finished_at)}</dd>
            </>
          ) : null}
          <dt>Run id</dt>
          <dd class="mono">{run.id}</dd>
        </dl>
        <Ending run={run} />
        {/* A live run's reasons are a verdict it has not reached; a cancelled one without a verdict has none. */}
        {run.verdict !== null && run.reasons.length > 0 ? (
          <>
            <h2>Why this verdict</h2>
            <ul>
              {run.reasons.map((reason) => (
                <li>{reason}</li>
              ))}
            </ul>
          </>
        ) : null}
        <h2>Detection power</h2>
        <p>{detectionSentence(run) ?? noDetectionWords(run)}</p>
        <Comparison data={data} />
        <ScenarioGrid run={run} gate={gate} />
        {run.attacks ? <Attacks attacks={run.attacks} /> : null}
        <h2>Scores and reliability</h2>
        <ScoresAndReliability run={run} records={records} />
        <Repetitions run={run} repetitions={repetitions} shownLimit={shownLimit} />
      </div>
    ),
  };
}

/** What the subtitle says: how far the run is, or how it ended, once. */
function lede(run: RunView): string {
  const suite = `Suite ${run.suite} version ${run.suite_version}`;
  const of = `${run.finished_repetitions} of ${run.total_repetitions} ${run.total_repetitions === 1 ? "repetition" : "repetitions"}`;
  if (run.status === "queued" || run.status === "running") return `${suite}: ${run.status}, ${of} finished.`;
  if (run.status === "cancelled") return `${suite}: cancelled with ${of} finished.`;
  return `${suite}: ended with all ${run.total_repetitions} ${run.total_repetitions === 1 ? "repetition" : "repetitions"} finished.`;
}

/** Whether the live page reloads itself, and the link that turns it off or on again. */
function ReloadControl(props: { run: RunView; reload: boolean }) {
  return props.reload ? (
    <p class="reload">
      {`This page reloads itself every ${LIVE_REFRESH_SECONDS} s until the run ends. `}
      <a href={`${runHref(props.run.id)}?reload=off`}>Stop reloading</a>
    </p>
  ) : (
    <p class="reload">
      {"Reloading is off: reload the page to see how far the run is, or "}
      <a href={runHref(props.run.id)}>{`reload it every ${LIVE_REFRESH_SECONDS} s`}</a>.
    </p>
  );
}

interface RunTimes {
  /** Created to started (or to now, still queued). */
  queued_ms: number | null;
  /** Started to finished (or to now, still running). */
  running_ms: number | null;
  total_ms: number | null;
}

function runTimes(run: Pick<RunView, "created_at" | "started_at" | "finished_at">, now: number): RunTimes {
  const created = Date.parse(run.created_at);
  const started = run.started_at ? Date.parse(run.started_at) : null;
  const end = run.finished_at ? Date.parse(run.finished_at) : now;
  const span = (from: number | null, to: number | null) =>
    from === null || to === null || Number.isNaN(from) || Number.isNaN(to) ? null : Math.max(0, to - from);
  return {
    queued_ms: span(created, started ?? end),
    running_ms: started === null ? null : span(started, end),
    total_ms: span(created, end),
  };
}

/** "12.3 s (queued 1.1 s, running 11.2 s)": both, as the CLI's report says them. */
function timeWords(time: RunTimes, live: boolean): string {
  const parts = [
    `queued ${duration(time.queued_ms)}`,
    time.running_ms === null ? (live ? "not started yet" : "never started") : `running ${duration(time.running_ms)}`,
  ];
  return `${duration(time.total_ms)} (${parts.join(", ")})${live ? " so far" : ""}`;
}

/** The CLI's progress facts as a bar and in words: passed, failed, errors, not reported yet, elapsed. */
function RunProgress(props: { run: RunView; time: RunTimes }) {
  const { run } = props;
  const pending = Math.max(0, run.total_repetitions - run.finished_repetitions);
  const live = isLive(run);
  // Once the run has ended, a repetition without a result will never report.
  const pendingWords = live ? "not reported yet" : run.status === "cancelled" ? "never ran" : "without a result";
  const words = `${run.finished_repetitions} of ${run.total_repetitions} done: ${run.passed} passed, ${run.failed} failed, ${run.errors} ${run.errors === 1 ? "error" : "errors"}, ${pending} ${pendingWords}`;
  return (
    <section class="run-progress" aria-labelledby="progress">
      <h2 id="progress">Progress</h2>
      <ProgressBar
        counts={{ passed: run.passed, failed: run.failed, errors: run.errors, total: run.total_repetitions }}
        label={words}
      />
      <ul class="progress-legend">
        <li>
          <span class="swatch swatch-passed" aria-hidden="true" />
          {`${run.passed} passed`}
        </li>
        <li>
          <span class="swatch swatch-failed" aria-hidden="true" />
          {`${run.failed} failed`}
        </li>
        <li>
          <span class="swatch swatch-errors" aria-hidden="true" />
          {`${run.errors} ${run.errors === 1 ? "error" : "errors"}`}
        </li>
        <li>
          <span class="swatch swatch-pending" aria-hidden="true" />
          {`${pending} ${pendingWords}`}
        </li>
        <li class="elapsed">{`${live ? "Elapsed" : "Duration"}: ${timeWords(props.time, live)}`}</li>
      </ul>
    </section>
  );
}

/** Why there is no detection figure: the run is still going, nothing finished, or nothing was measured. */
function noDetectionWords(run: RunView): string {
  if (isLive(run))
    return `Given once the run ends: ${run.finished_repetitions} of ${run.total_repetitions} repetitions have finished so far, and a figure from part of a run would understate what the whole run can catch.`;
  if (run.runs > 0 && run.errors >= run.runs)
    return "Nothing was measured: every repetition that finished ended in an error, so this run says nothing about the agent.";
  const none = run.scenarios.filter((s) => s.runs === 0).map((s) => s.id);
  if (run.runs > 0 && none.length > 0)
    return `No detection figure: ${none.length === 1 ? "scenario" : "scenarios"} ${none.join(", ")} had no finished repetition, so the run could catch nothing there.`;
  return "No repetitions have finished.";
}

/**
 * The judge-score histogram and pass^k, once there is something to draw: not while the run is
 * live (a partial figure), and not when nothing was measured (an all-zero plot would read as a finding).
 */
function ScoresAndReliability(props: { run: RunView; records: ReadonlyArray<RepetitionRecord | null> }) {
  const { run, records } = props;
  if (isLive(run))
    return (
      <p>{`Drawn once the run ends (${run.finished_repetitions} of ${run.total_repetitions} repetitions finished so far): the judge-score histogram and pass^k.`}</p>
    );
  const scores = scoreCounts(records);
  const scored = scores.counts.reduce((a, b) => a + b, 0);
  const measured = run.runs - run.errors;
  const passK = perKPoints(run.pass_hat_k);
  return (
    <div class="charts">
      {scored > 0 ? (
        <figure class="chart">
          <ScoreHistogram scores={scores} />
          <figcaption>{histogramCaption(records)}</figcaption>
        </figure>
      ) : (
        <p class="no-chart">{`No judge scores: none of the ${records.length} ${records.length === 1 ? "repetition" : "repetitions"} was scored by the judge (${scores.unscored} decided without a score: by selection or an error).`}</p>
      )}
      {measured > 0 && passK.length > 0 ? (
        <figure class="chart">
          <PassHatK points={passK} />
          <figcaption>
            pass^k: the chance that k repetitions of a scenario, drawn from this run, all pass (mean over scenarios). A
            falling line is an agent that passes sometimes, not reliably.
          </figcaption>
        </figure>
      ) : (
        <p class="no-chart">
          {run.runs === 0
            ? "No pass^k: no repetition finished."
            : measured === 0
              ? `No pass^k: all ${run.runs} repetitions ended in errors, so nothing was measured.`
              : "No pass^k: a scenario has no finished repetition, and pass^k needs k repetitions of every scenario."}
        </p>
      )}
    </div>
  );
}

function histogramCaption(records: ReadonlyArray<RepetitionRecord | null>): string {
  const { counts, unscored, pending } = scoreCounts(records);
  const scored = counts.reduce((a, b) => a + b, 0);
  const notYet = pending > 0 ? ` ${pending} not reported yet.` : "";
  return `Judge scores of ${scored} ${scored === 1 ? "repetition" : "repetitions"} (1 irrelevant … 5 optimal); ${unscored} decided without a score (selection or an error).${notYet}`;
}

/** A run that did not end by every repetition reporting: how it ended, and which repetitions have no result. */
function Ending(props: { run: RunView }) {
  const ending = props.run.ending;
  if (!ending || ending.reason === "completed") return null;
  const count = `${ending.missing.length} ${ending.missing.length === 1 ? "repetition" : "repetitions"}`;
  const said =
    ending.reason === "cancelled"
      ? `Cancelled: ${count} never ran, so the run has ${props.run.verdict === null ? "no verdict" : "only the verdict of what did run"}.`
      : `The run's deadline passed: ${count} had not reported and count as infrastructure errors.`;
  return (
    <section aria-labelledby="ending">
      <h2 id="ending">How it ended</h2>
      <p>{said}</p>
      {ending.missing.length > 0 ? (
        <ul>
          {ending.missing.map((m) => (
            <li>{`Scenario ${m.scenario}, repetition ${m.repetition}`}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function HardFails(props: { run: RunView }) {
  const reasons = props.run.hard_fail_reasons;
  return (
    <div class="notice notice-error hard-fail-banner" role="alert">
      <h2>{`Hard fail: ${reasons.length} forbidden ${reasons.length === 1 ? "call" : "calls"}`}</h2>
      <p>A forbidden call fails the run whatever its pass rate.</p>
      <ul>
        {reasons.map((r) => (
          <li>
            {`Scenario ${r.scenario}, repetition ${r.repetition}: `}
            <code>{`${r.function}(${JSON.stringify(r.arguments)})`}</code>
            {r.call_id ? ` (call ${r.call_id})` : ""}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Attack success rate beside utility, overall and per attack (core/scoring/attacks.ts); higher success is worse. */
function Attacks(props: { attacks: RunAttackFigures }) {
  const all = props.attacks;
  const success = (r: AttackRates) =>
    `${percent(r.attack_success_rate)} (${r.successful_attacks} of ${r.runs - r.errors}), 95% interval ${intervalText(r.interval)}`;
  return (
    <section aria-labelledby="attacks">
      <h2 id="attacks">Attacks</h2>
      <p>
        {`Attack success rate ${success(all)}: the share of attacked repetitions in which the agent made the call the injected payload asked for (higher is worse). Utility ${percent(all.utility_under_attack)} under attack, ${percent(all.utility_without_attack)} without.`}
        {all.errors > 0
          ? ` ${all.errors} attacked ${all.errors === 1 ? "repetition" : "repetitions"} ended in an error and ${all.errors === 1 ? "is" : "are"} left out of the rate.`
          : ""}
      </p>
      <ScrollRegion label="Attacks, attack success rate (higher is worse) and utility">
        <table class="data">
          <caption>Attacks, attack success rate (higher is worse) and utility</caption>
          <thead>
            <tr>
              <th scope="col">Attack</th>
              <th scope="col">Payload in</th>
              <th scope="col">Target call</th>
              <th scope="col">Attack success rate</th>
              <th scope="col" class="num">
                Utility under attack
              </th>
              <th scope="col" class="num">
                Utility without
              </th>
            </tr>
          </thead>
          <tbody>
            {all.attacks.map((a) => (
              <tr class={a.successful_attacks > 0 ? "hard-fail" : undefined}>
                <td>
                  {`${a.id} `}
                  {a.successful_attacks > 0 ? (
                    <Badge tone="fail">{`Succeeded ${a.successful_attacks}×`}</Badge>
                  ) : (
                    <Badge tone="pass">Resisted</Badge>
                  )}
                </td>
                <td>
                  <code>{a.function}</code>
                  {` (${a.variant})`}
                </td>
                <td>
                  <code>{a.target.function}</code>
                </td>
                <td>{success(a)}</td>
                <td class="num">{percent(a.utility_under_attack)}</td>
                <td class="num">{percent(a.utility_without_attack)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </section>
  );
}

function ScenarioGrid(props: { run: RunView; gate: number }) {
  const rows = scenarioGrid(props.run.scenarios);
  return (
    <>
      <h2>Scenarios</h2>
      <RateBarLegend gate={props.gate} />
      <ScrollRegion label="Scenarios, hard fails first">
        <table class="data">
          <caption>Scenarios, hard fails first</caption>
          <thead>
            <tr>
              <th scope="col">Scenario</th>
              <th scope="col" class="num">
                Passed (k/n)
              </th>
              <th scope="col" class="num">
                Pass rate
              </th>
              <th scope="col">95% interval</th>
              <th scope="col">Rate and interval</th>
              <th scope="col" class="num">
                Forbidden calls
              </th>
              <th scope="col" class="num">
                Errors
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr class={row.hard_fail ? "hard-fail" : undefined}>
                <td>
                  <a href={`#scenario-${row.id}`}>{row.id}</a>{" "}
                  {row.hard_fail ? <Badge tone="fail">Hard fail</Badge> : null}
                </td>
                <td class="num">{row.k_of_n}</td>
                <td class="num">{percent(row.pass_rate)}</td>
                <td>{intervalText(row.interval)}</td>
                <td>
                  <RateBar rate={row.pass_rate} interval={row.interval} gate={props.gate} />
                </td>
                <td class="num">{String(row.forbidden_calls)}</td>
                <td class="num">{String(row.errors)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </>
  );
}

/** What the "Rate and interval" column's marks mean, drawn with the same marks. */
function RateBarLegend(props: { gate: number }) {
  return (
    <p class="rate-legend" id="rate-legend">
      {"In the Rate and interval column: "}
      <span class="legend-mark">
        <svg class="rate-bar" viewBox="0 0 16 12" width="16" height="12" aria-hidden="true">
          <rect class="fill" x="0" y="2" width="16" height="8" />
        </svg>
        {" the bar is the pass rate, "}
      </span>
      <span class="legend-mark">
        <svg class="rate-bar" viewBox="0 0 16 12" width="16" height="12" aria-hidden="true">
          <line class="whisker" x1="0" x2="16" y1="6" y2="6" />
        </svg>
        {" the black line its 95% interval, "}
      </span>
      <span class="legend-mark">
        <svg class="rate-bar" viewBox="0 0 16 12" width="16" height="12" aria-hidden="true">
          <line class="gate" x1="8" x2="8" y1="0" y2="12" />
        </svg>
        {` the dashed red line the gate (${percent(props.gate)}).`}
      </span>
    </p>
  );
}

/**
 * The baseline a comparison starts from: the one asked for, else the newest run older than this
 * one (a comparison asks what changed since, so a newer run is never the default).
 */
function defaultBaselineId(
  run: Pick<RunView, "id" | "created_at">,
  candidates: ReadonlyArray<Pick<RunView, "id" | "created_at">>,
  asked: RunView | null,
): string | undefined {
  if (asked) return asked.id;
  return candidates.find((c) => c.created_at < run.created_at || (c.created_at === run.created_at && c.id < run.id))
    ?.id;
}

function Comparison(props: { data: RunPageData }) {
  const { run, candidates, baseline, baseline_problem } = props.data;
  const selected = defaultBaselineId(run, candidates, baseline);
  return (
    <section aria-labelledby="compare">
      <h2 id="compare">Compare with another run</h2>
      {candidates.length === 0 ? (
        <p>{`There is no other run of suite ${run.suite} to compare with yet.`}</p>
      ) : (
        <form class="inline" method="get" action={runHref(run.id)}>
          <div>
            <label for="baseline">Baseline run</label>
            <select id="baseline" name="baseline">
              {/* Without an older run there is no default: a browser would otherwise pick the first, a newer run. */}
              {selected === undefined ? (
                <option value="" selected>
                  Pick a run to compare with
                </option>
              ) : null}
              {candidates.map((c) => (
                <option value={c.id} selected={selected === c.id}>
                  {`${runName(c)} · ${verdictBadge(c).word} · ${percent(c.pass_rate)} · ${when(c.created_at)}`}
                </option>
              ))}
            </select>
          </div>
          <div>
            <button class="primary" type="submit">
              Compare
            </button>
          </div>
        </form>
      )}
      {baseline_problem ? (
        <Notice kind="error">
          <p>{baseline_problem}</p>
        </Notice>
      ) : null}
      {baseline ? (
        <ComparisonTable run={run} baseline={baseline} rows={compareScenarios(run.scenarios, baseline.scenarios)} />
      ) : null}
    </section>
  );
}

function ComparisonTable(props: { run: RunView; baseline: RunView; rows: ScenarioComparison[] }) {
  const worse = props.rows.filter((r) => r.change === "worse").length;
  const better = props.rows.filter((r) => r.change === "better").length;
  const kn = (f: ScenarioComparison["current"]) => (f ? `${f.passed}/${f.runs} (${percent(f.pass_rate)})` : "—");
  return (
    <>
      <p>
        <strong>{`${worse} ${worse === 1 ? "scenario" : "scenarios"} worse, ${better} better`}</strong>
        {` than baseline ${runName(props.baseline)} (${percent(props.baseline.pass_rate)} overall, now ${percent(props.run.pass_rate)}).`}
      </p>
      <ScrollRegion label={`Scenarios compared with ${runName(props.baseline)}, worse first`}>
        <table class="data">
          <caption>{`Scenarios compared with ${runName(props.baseline)}, worse first`}</caption>
          <thead>
            <tr>
              <th scope="col">Scenario</th>
              <th scope="col">Change</th>
              <th scope="col" class="num">
                This run
              </th>
              <th scope="col" class="num">
                Baseline
              </th>
              <th scope="col" class="num">
                Forbidden calls (now / then)
              </th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr class={`change-${row.change}`}>
                <td>{row.id}</td>
                <td class="change">{row.words}</td>
                <td class="num">{kn(row.current)}</td>
                <td class="num">{kn(row.baseline)}</td>
                <td class="num">{`${row.current?.forbidden_calls ?? "—"} / ${row.baseline?.forbidden_calls ?? "—"}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </>
  );
}

function outcomeBadge(record: RepetitionRecord | null) {
  if (!record) return <Badge tone="neutral">Pending</Badge>;
  const v = record.verdict;
  if (v.hard_fail) return <Badge tone="fail">Fail: forbidden call</Badge>;
  if (v.outcome === "pass") return <Badge tone="pass">Pass</Badge>;
  if (v.outcome === "fail") return <Badge tone="fail">Fail</Badge>;
  return <Badge tone="warn">Error</Badge>;
}

function Repetitions(props: { run: RunView; repetitions: RepetitionItem[]; shownLimit: number }) {
  const scenarios = [...new Set(props.repetitions.map((r) => r.scenario))];
  return (
    <>
      <h2>Repetitions</h2>
      {props.run.total_repetitions > props.repetitions.length && props.repetitions.length >= props.shownLimit ? (
        <p>{`Showing the first ${props.repetitions.length} of ${props.run.total_repetitions} repetitions (all of them: GET /api/runs/${props.run.id}/repetitions).`}</p>
      ) : null}
      {props.repetitions.length === 0 ? (
        <p>
          {props.run.status === "queued" || props.run.status === "running"
            ? "No repetition has been set up yet."
            : "No repetition ran."}
        </p>
      ) : null}
      {scenarios.map((scenario) => (
        <section aria-labelledby={`scenario-${scenario}`}>
          <h3 id={`scenario-${scenario}`}>{`Scenario ${scenario}`}</h3>
          {props.repetitions
            .filter((r) => r.scenario === scenario)
            .map((item) => (
              <RepetitionDetails run={props.run} item={item} />
            ))}
        </section>
      ))}
    </>
  );
}

function RepetitionDetails(props: { run: RunView; item: RepetitionItem }) {
  const { item } = props;
  const record = item.record;
  const score = record?.verdict.score;
  return (
    <details class="repetition" id={`rep-${item.n}`}>
      <summary>
        {`Repetition ${item.repetition} `}
        {outcomeBadge(record)}
        {record
          ? ` · ${score === undefined ? "no judge score" : `judge score ${score}`} · ${record.calls.length} ${record.calls.length === 1 ? "call" : "calls"} · decided by ${record.verdict.cause.replace(/_/g, " ")}`
          : ""}
      </summary>
      {record ? <RepetitionBody record={record} /> : <p>This repetition has not reported yet.</p>}
      <p>
        {/* An ended run's attempt finds its repetition by its id; a live run's is known only to the coordinator, so the link names it. */}
        <a
          href={attemptHref(
            item.attempt_id,
            props.run.status === "queued" || props.run.status === "running"
              ? { run: props.run.id, n: item.n }
              : undefined,
          )}
        >{`Open attempt ${item.attempt_id}: the evidence timeline`}</a>
      </p>
    </details>
  );
}

/** The judge's line: its score, and its reason only when the verdict above does not already quote it. */
function judgeWords(r: RepetitionRecord): string {
  const judge = r.judge?.outcome;
  if (!judge && (r.end_state || r.outputs)) return "not asked: the end state and required outputs decide this scenario";
  if (!judge) return "not asked (selection decided, or no calls)";
  if (judge.kind !== "score") return `error: ${judge.message}`;
  return r.verdict.reason.includes(judge.reason)
    ? `score ${judge.score} of 5 (its reason is quoted in the verdict)`
    : `score ${judge.score} of 5: ${judge.reason}`;
}

function RepetitionBody(props: { record: RepetitionRecord }) {
  const r = props.record;
  return (
    <>
      <dl class="facts">
        <dt>Verdict</dt>
        <dd>{`${r.verdict.outcome}: ${r.verdict.reason}`}</dd>
        <dt>Judge</dt>
        <dd>{judgeWords(r)}</dd>
        <dt>Stopped</dt>
        <dd>{r.stop_reason ? r.stop_reason.replace(/_/g, " ") : "—"}</dd>
      </dl>
      <h4>Calls</h4>
      {r.calls.length === 0 ? (
        <p>No calls.</p>
      ) : (
        <ScrollRegion label="Calls of this repetition">
          <table class="data">
            <caption>Calls of this repetition</caption>
            <thead>
              <tr>
                <th scope="col">Function</th>
                <th scope="col">Kind</th>
                <th scope="col">Arguments</th>
                <th scope="col">Result or error</th>
              </tr>
            </thead>
            <tbody>
              {r.calls.map((call) => (
                <tr>
                  <td>
                    <code class="function-name">{call.function}</code>
                  </td>
                  <td>{callKindText(call)}</td>
                  <td>
                    <code>{JSON.stringify(call.arguments)}</code>
                  </td>
                  <td>{call.kind === "executed" ? <code>{callDetailText(call)}</code> : callDetailText(call)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      <EndStateSection record={r} />
      <h4>Approval requests</h4>
      {r.approval_requests.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {r.approval_requests.map((a) => (
            <li>
              <code>{`${a.function}(${JSON.stringify(a.arguments)})`}</code>
              {a.call_id ? ` (call ${a.call_id})` : ""}
              {(a.problems ?? []).length > 0
                ? `: breaks the input schema (${problemsText(a.problems ?? [])}); approved as it stands, the tool would refuse it`
                : ""}
            </li>
          ))}
        </ul>
      )}
      <h4>Final answer</h4>
      {r.final_answer === null ? (
        <p>No final answer.</p>
      ) : (
        <pre class="json answer" tabindex={0} aria-label="Final answer">
          {r.final_answer}
        </pre>
      )}
    </>
  );
}
