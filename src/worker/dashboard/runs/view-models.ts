/**
 * What the Runs, Run and Attempt pages show, as pure functions of what the API's own readers return
 * (run/view.ts runView, repetition records, evidence calls). Every figure is one the scoring core
 * already computed (core/scoring: pass rate, Wilson interval, pass^k, detection power): these
 * functions only choose, order and word them, so the dashboard can never disagree with the API.
 */
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import type { ScenarioFigures } from "../../../core/scoring/figures.js";
import type { Interval } from "../../../core/scoring/rates.js";
import type { runView } from "../../runs/view.js";
import type { BadgeTone } from "../components.js";
import { percent as sharePercent } from "../format.js";

export type RunView = ReturnType<typeof runView>;

/** Tone picks a badge's colour; the word always says the same thing, so colour is never the only signal. */
interface Badge {
  word: string;
  tone: BadgeTone;
}

/** A run's verdict in words: the gate's verdict once it ended, else its status. */
export function verdictBadge(run: Pick<RunView, "status" | "verdict" | "hard_fail">): Badge {
  if (run.hard_fail)
    return { word: run.verdict === null ? "Hard fail (still running)" : "Fail: hard fail", tone: "fail" };
  switch (run.verdict) {
    case "pass":
      return { word: "Pass", tone: "pass" };
    case "fail":
      return { word: "Fail", tone: "fail" };
    case "error":
      return { word: "Error", tone: "warn" };
    case "uncalibrated":
      return { word: "Uncalibrated", tone: "warn" };
    case null:
      return { word: run.status === "cancelled" ? "Cancelled" : `No verdict yet (${run.status})`, tone: "neutral" };
  }
}

/** 0.8666 → "86.7%" (format.ts); no rate, or one that is not a number, → "—". */
export function percent(rate: number | null | undefined): string {
  return rate === undefined || (rate !== null && !Number.isFinite(rate)) ? "—" : sharePercent(rate);
}

/** "79.6%–100.0%", or "—" with no interval. */
export function intervalText(interval: Interval | null | undefined): string {
  return interval ? `${percent(interval.low)}–${percent(interval.high)}` : "—";
}

interface RunListRow {
  id: string;
  suite: string;
  suite_version: number;
  label: string | null;
  badge: Badge;
  status: string;
  pass_rate: string;
  hard_fail: boolean;
  /** "12 of 15" repetitions finished. */
  progress: string;
  created_at: string;
}

export function runListRow(run: RunView): RunListRow {
  return {
    id: run.id,
    suite: run.suite,
    suite_version: run.suite_version,
    label: run.label,
    badge: verdictBadge(run),
    status: run.status,
    pass_rate: percent(run.pass_rate),
    hard_fail: run.hard_fail,
    progress: `${run.finished_repetitions} of ${run.total_repetitions}`,
    created_at: run.created_at,
  };
}

/** How a run is marked on its suite's chart: the shape says it, the colour only repeats it. */
export type TrendMark = "pass" | "fail" | "uncalibrated" | "unmeasured" | "pending";

/** One run as a point of its suite's pass-rate chart. */
export interface TrendPoint {
  run_id: string;
  /** What the table names the run by: its label, else its start time. */
  name: string;
  /** When the run was created (ISO): the x axis's dates. */
  created_at: string;
  pass_rate: number;
  interval: Interval | null;
  /** The suite version's gate (pass_rate floor) the run was judged against. */
  gate: number;
  verdict: Badge;
  /**
   * unmeasured: every finished repetition ended in an error, so its 0% is no measurement of the
   * agent; uncalibrated: measured, but the verdict is withheld (the judge is not calibrated), so
   * it is not a run that failed the gate; pending: still running, no verdict yet.
   */
  mark: TrendMark;
}

export function trendMark(run: Pick<RunView, "verdict" | "hard_fail" | "runs" | "errors">): TrendMark {
  if (run.runs > 0 && run.errors >= run.runs) return "unmeasured";
  if (run.hard_fail || run.verdict === "fail" || run.verdict === "error") return "fail";
  if (run.verdict === "pass") return "pass";
  if (run.verdict === "uncalibrated") return "uncalibrated";
  return "pending";
}

/** Runs of one suite with a pass rate, oldest first, the last `limit` of them. */
export function suiteTrend(
  runsNewestFirst: readonly RunView[],
  gateOf: (run: RunView) => number,
  limit = 20,
): TrendPoint[] {
  return runsNewestFirst
    .filter((run) => run.pass_rate !== null)
    .slice(0, limit)
    .reverse()
    .map((run) => ({
      run_id: run.id,
      name: run.label ?? run.created_at.slice(0, 16).replace("T", " "),
      created_at: run.created_at,
      pass_rate: run.pass_rate ?? 0,
      interval: run.interval,
      gate: gateOf(run),
      verdict: verdictBadge(run),
      mark: trendMark(run),
    }));
}

interface ScenarioRow {
  id: string;
  /** "k/n": repetitions passed of those run. */
  k_of_n: string;
  passed: number;
  runs: number;
  errors: number;
  pass_rate: number | null;
  interval: Interval | null;
  forbidden_calls: number;
  /** A forbidden call was made in this scenario: the run fails on it whatever the rate. */
  hard_fail: boolean;
}

/** The scenario grid, hard fails first (then scenarios with errors), otherwise in the suite's order. */
export function scenarioGrid(scenarios: readonly ScenarioFigures[]): ScenarioRow[] {
  const rank = (s: ScenarioFigures) => (s.forbidden_calls > 0 ? 0 : s.errors > 0 ? 1 : 2);
  return scenarios
    .map((s, index) => ({ s, index }))
    .sort((a, b) => rank(a.s) - rank(b.s) || a.index - b.index)
    .map(({ s }) => ({
      id: s.id,
      k_of_n: `${s.passed}/${s.runs}`,
      passed: s.passed,
      runs: s.runs,
      errors: s.errors,
      pass_rate: s.pass_rate,
      interval: s.interval,
      forbidden_calls: s.forbidden_calls,
      hard_fail: s.forbidden_calls > 0,
    }));
}

/** How many repetitions got each judge score 1–5, and how many were decided without a score. */
export interface ScoreCounts {
  /** Index 0 is score 1. */
  counts: [number, number, number, number, number];
  unscored: number;
  /** Repetitions that have not reported yet (no record). */
  pending: number;
}

export function scoreCounts(records: ReadonlyArray<RepetitionRecord | null>): ScoreCounts {
  const counts: ScoreCounts["counts"] = [0, 0, 0, 0, 0];
  let unscored = 0;
  let pending = 0;
  for (const record of records) {
    // A repetition that has not reported is neither scored nor decided without a score.
    if (record === null) {
      pending++;
      continue;
    }
    const score = record.verdict.score;
    if (score !== undefined && Number.isInteger(score) && score >= 1 && score <= 5)
      counts[score - 1] = (counts[score - 1] ?? 0) + 1;
    else unscored++;
  }
  return { counts, unscored, pending };
}

/** pass^k as points ordered by k (the figures key it by k as a string). */
export function perKPoints(values: Readonly<Record<string, number>>): Array<{ k: number; value: number }> {
  return Object.entries(values)
    .map(([k, value]) => ({ k: Number(k), value }))
    .filter((p) => Number.isInteger(p.k) && p.k >= 1 && Number.isFinite(p.value))
    .sort((a, b) => a.k - b.k);
}

/** "a 1-in-10 misfire" when 1/p is a whole number, else "a misfire rate of 3%". */
export function misfireWords(rate: number): string {
  const inverse = 1 / rate;
  if (rate > 0 && Math.abs(inverse - Math.round(inverse)) < 1e-9) return `a 1-in-${Math.round(inverse)} misfire`;
  return `a misfire rate of ${percent(rate)}`;
}

/**
 * Detection power in words, from the run's figures (figures.ts: 1 − (1 − p)^n with n the fewest
 * repetitions any scenario had, and the runs that would reach 95%).
 */
export function detectionSentence(
  run: Pick<
    RunView,
    "status" | "detection_power" | "misfire_rate" | "runs_needed_95" | "scenarios" | "runs" | "errors"
  >,
): string | null {
  // A live run's scenarios have uneven counts so far, and nothing finished (or only errors) measures nothing:
  // "a 0.0% chance" would read as a finding about the agent.
  if (
    isLive(run) ||
    run.detection_power === null ||
    run.misfire_rate === null ||
    run.runs === 0 ||
    run.errors >= run.runs
  )
    return null;
  const perScenario = run.scenarios.length === 0 ? 0 : Math.min(...run.scenarios.map((s) => s.runs));
  // A scenario with no finished repetition (a cancelled run) caught nothing: "0 repetitions, a 0.0% chance" says nothing.
  if (perScenario === 0) return null;
  const had = `With ${perScenario} ${perScenario === 1 ? "repetition" : "repetitions"} per scenario, this run had a ${percent(run.detection_power)} chance to catch ${misfireWords(run.misfire_rate)}`;
  if (run.runs_needed_95 === null) return `${had}.`;
  if (perScenario >= run.runs_needed_95)
    return `${had}; that is at least the 95% that ${run.runs_needed_95} runs per scenario give.`;
  return `${had}; ${run.runs_needed_95} runs per scenario would give 95%.`;
}

/** Queued or running: its figures are of the repetitions finished so far, not the run's. */
export function isLive(run: Pick<RunView, "status">): boolean {
  return run.status === "queued" || run.status === "running";
}

type Change = "worse" | "better" | "same" | "new" | "gone";

export interface ScenarioComparison {
  id: string;
  change: Change;
  /** Words and an arrow, so the change reads without colour. */
  words: string;
  current: ScenarioFigures | null;
  baseline: ScenarioFigures | null;
  /** Rate change in percentage points, when both runs have the scenario. */
  delta_points: number | null;
  /** The two 95% intervals overlap: the change may be noise. */
  overlapping: boolean;
}

/**
 * Each scenario of the current run against the baseline. A new forbidden call is worse whatever
 * the rate; otherwise the pass rate decides. Whether the two intervals overlap is said too, since
 * a few repetitions cannot tell a small change from noise.
 */
export function compareScenarios(
  current: readonly ScenarioFigures[],
  baseline: readonly ScenarioFigures[],
): ScenarioComparison[] {
  const base = new Map(baseline.map((s) => [s.id, s]));
  const rows: ScenarioComparison[] = current.map((s) => compareOne(s.id, s, base.get(s.id) ?? null));
  const seen = new Set(current.map((s) => s.id));
  for (const s of baseline) if (!seen.has(s.id)) rows.push(compareOne(s.id, null, s));
  const order: Record<Change, number> = { worse: 0, better: 1, new: 2, gone: 3, same: 4 };
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => order[a.row.change] - order[b.row.change] || a.index - b.index)
    .map(({ row }) => row);
}

function compareOne(id: string, current: ScenarioFigures | null, baseline: ScenarioFigures | null): ScenarioComparison {
  if (!current)
    return {
      id,
      change: "gone",
      words: "– not in this run",
      current,
      baseline,
      delta_points: null,
      overlapping: false,
    };
  if (!baseline)
    return { id, change: "new", words: "+ new in this run", current, baseline, delta_points: null, overlapping: false };
  const now = current.pass_rate ?? 0;
  const then = baseline.pass_rate ?? 0;
  const delta = Math.round((now - then) * 1000) / 10;
  const overlapping = overlaps(current.interval, baseline.interval);
  const noise = overlapping ? " (intervals overlap: may be noise)" : "";
  const moreForbidden = current.forbidden_calls > baseline.forbidden_calls;
  const fewerForbidden = current.forbidden_calls < baseline.forbidden_calls;
  if (moreForbidden || (!fewerForbidden && now < then)) {
    const why = moreForbidden
      ? `forbidden calls ${baseline.forbidden_calls} → ${current.forbidden_calls}`
      : `${percent(then)} → ${percent(now)}, ${delta} points${noise}`;
    return { id, change: "worse", words: `▼ worse: ${why}`, current, baseline, delta_points: delta, overlapping };
  }
  if (fewerForbidden || now > then) {
    const why = fewerForbidden
      ? `forbidden calls ${baseline.forbidden_calls} → ${current.forbidden_calls}`
      : `${percent(then)} → ${percent(now)}, +${delta} points${noise}`;
    return { id, change: "better", words: `▲ better: ${why}`, current, baseline, delta_points: delta, overlapping };
  }
  return { id, change: "same", words: `= same: ${percent(now)}`, current, baseline, delta_points: delta, overlapping };
}

function overlaps(a: Interval | null, b: Interval | null): boolean {
  if (!a || !b) return true;
  return a.low <= b.high && b.low <= a.high;
}
