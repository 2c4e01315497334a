/**
 * A run as a CI log shows it: the per-scenario table (runs, passed, pass rate with its 95%
 * interval, forbidden calls), then the verdict in words with what decided it, and the exit code
 * the pipeline reads (docs/ci.md): 0 pass, 1 the gate failed, 2 anything that is not a verdict.
 */
import { ATTACK_HEADER, attackRows } from "./attack-report.js";
import { EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE } from "./io.js";
import type { RepetitionDetail, RunView } from "./run-view.js";
import { interval, percent } from "./percent.js";
import { mismatchLines } from "./end-state-report.js";

export { percent };

/** What the CLI concludes; `timeout` is its own: the run goes on, the CLI stopped waiting. */
export type Conclusion = "pass" | "fail" | "error" | "uncalibrated" | "cancelled" | "timeout" | "running";

export function conclusionOf(run: RunView, timedOut: boolean): Conclusion {
  if (run.verdict !== null) return run.verdict;
  if (run.status === "cancelled") return "cancelled";
  return timedOut ? "timeout" : "running";
}

export function exitCodeOf(conclusion: Conclusion): number {
  if (conclusion === "pass") return EXIT_OK;
  if (conclusion === "fail") return EXIT_FAILED;
  return EXIT_UNUSABLE;
}

export interface ReportContext {
  /** How long the CLI waited, for the timeout sentence ("30m"). */
  timeout?: string;
}

export function renderRun(
  run: RunView,
  repetitions: readonly RepetitionDetail[],
  conclusion: Conclusion,
  context: ReportContext = {},
): string {
  const label = run.label === null ? "" : ` (label ${JSON.stringify(run.label)})`;
  const lines = [
    `toolproof eval: run ${run.id} of suite ${run.suite} v${run.suite_version}${label}, ${run.status}${elapsed(run)}`,
    "",
  ];
  lines.push(...table(run).map((row) => `  ${row}`), "");
  const attacks = attackRows(run);
  if (attacks.length > 0)
    lines.push(
      "Injection attacks (attack success rate: lower is better):",
      ...align(ATTACK_HEADER, attacks).map((row) => `  ${row}`),
      "",
    );
  lines.push(...verdictLines(run, repetitions, conclusion, context));
  return `${lines.join("\n")}\n`;
}

/** The verdict's first line in one word and a sentence, as the summary and the log both start it. */
export function headline(run: RunView, conclusion: Conclusion, context: ReportContext = {}): string {
  switch (conclusion) {
    case "pass":
      return `PASS: ${run.reasons[0] ?? `${run.passed} of ${run.runs} repetitions passed.`}`;
    case "fail":
      return run.hard_fail
        ? `FAIL: ${count(run.hard_fail_reasons.length, "forbidden call")} made; a forbidden call fails the run whatever the rate.`
        : `FAIL: ${run.reasons.join(" ")}`;
    case "error":
      return `ERROR: ${run.reasons[0] ?? "the run ended in an error."}`;
    case "uncalibrated":
      return `UNCALIBRATED: ${run.reasons.join(" ")}`;
    case "cancelled":
      return `CANCELLED: the run was cancelled after ${run.finished_repetitions} of ${run.total_repetitions} repetitions; a cancelled run has no verdict.`;
    case "timeout":
      return `TIMEOUT: the run had not finished after ${context.timeout ?? "the timeout"} (${run.finished_repetitions} of ${run.total_repetitions} repetitions done); it goes on: toolproof eval show ${run.id}`;
    case "running":
      return `RUNNING: ${run.finished_repetitions} of ${run.total_repetitions} repetitions done; the run has no verdict yet.`;
  }
}

/** The detail under the headline: each forbidden call, each error with its cause, each failed repetition. */
export function verdictDetails(run: RunView, repetitions: readonly RepetitionDetail[]): string[] {
  const details = run.hard_fail_reasons.map(
    (reason) =>
      `forbidden call in scenario ${reason.scenario}, repetition ${reason.repetition}: ${reason.function}(${JSON.stringify(reason.arguments)})${reason.call_id === null ? "" : ` (call ${reason.call_id})`}`,
  );
  details.push(
    ...run.error_reasons.map(
      (reason) =>
        `error in scenario ${reason.scenario}, repetition ${reason.repetition} (${reason.cause}): ${reason.reason}`,
    ),
  );
  for (const repetition of repetitions) {
    const verdict = repetition.verdict;
    if (verdict?.outcome !== "fail" || verdict.cause === "forbidden_call") continue;
    details.push(`failed: scenario ${repetition.scenario}, repetition ${repetition.repetition}: ${verdict.reason}`);
    details.push(...mismatchLines(repetition).map((line) => `  ${line}`));
  }
  return details;
}

function verdictLines(
  run: RunView,
  repetitions: readonly RepetitionDetail[],
  conclusion: Conclusion,
  context: ReportContext,
): string[] {
  return [headline(run, conclusion, context), ...verdictDetails(run, repetitions).map((line) => `  ${line}`)];
}

/** Rows of the table, aligned; the last one is the suite's. */
function table(run: RunView): string[] {
  return align(TABLE_HEADER, tableRows(run));
}

function align(header: readonly string[], rows: readonly string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export const TABLE_HEADER = ["scenario", "runs", "passed", "pass rate", "95% interval", "forbidden calls"];

/** One row per scenario, then the suite's ("all"): the table the log and the step summary show. */
export function tableRows(run: RunView): string[][] {
  return [
    ...run.scenarios.map((s) => [
      s.id,
      String(s.runs),
      String(s.passed),
      percent(s.pass_rate),
      interval(s.interval),
      String(s.forbidden_calls),
    ]),
    [
      "all",
      String(run.runs),
      String(run.passed),
      percent(run.pass_rate),
      interval(run.interval),
      String(run.forbidden_calls),
    ],
  ];
}

/**
 * " in 1.2 s (queued 1.1 s, running 0.1 s)": from the run's creation, as the progress line counts,
 * with the wait for the queue and the running time apart, so the two never seem to disagree.
 */
function elapsed(run: RunView): string {
  const created = Date.parse(run.created_at);
  const end = run.finished_at === null ? Date.now() : Date.parse(run.finished_at);
  if (run.started_at === null) return Number.isNaN(created) ? "" : ` (queued ${seconds(end - created)}, not started)`;
  const started = Date.parse(run.started_at);
  if (Number.isNaN(created)) return ` in ${seconds(end - started)}`;
  return ` in ${seconds(end - created)} (queued ${seconds(started - created)}, running ${seconds(end - started)})`;
}

/** 12345 ms → "12.3 s". */
export function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}
