/**
 * A run as Markdown for a CI job's summary page ($GITHUB_STEP_SUMMARY): a heading with the
 * verdict, the per-scenario table and the verdict's details. The CLI appends it to the file, as
 * GitHub expects, so several steps (or several suites) share one page.
 */
import { ATTACK_HEADER, attackRows } from "./attack-report.js";
import {
  headline,
  TABLE_HEADER,
  tableRows,
  verdictDetails,
  type Conclusion,
  type ReportContext,
} from "./run-report.js";
import type { RepetitionDetail, RunView } from "./run-view.js";

export function stepSummary(
  run: RunView,
  repetitions: readonly RepetitionDetail[],
  conclusion: Conclusion,
  context: ReportContext = {},
): string {
  const label = run.label === null ? "" : `, label \`${code(run.label)}\``;
  const rows = tableRows(run).map((row, index, all) =>
    index === all.length - 1
      ? row.map((cell) => `**${cell}**`)
      : row.map((cell, column) => (column === 0 ? `\`${code(cell)}\`` : cell)),
  );
  const lines = [
    `### toolproof eval: ${cell(run.suite)} v${run.suite_version}: ${conclusion.toUpperCase()}`,
    "",
    `Run \`${code(run.id)}\`${label}: ${run.finished_repetitions} of ${run.total_repetitions} repetitions done.`,
    "",
    `| ${TABLE_HEADER.join(" | ")} |`,
    `| --- | ${TABLE_HEADER.slice(1)
      .map(() => "---:")
      .join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
    "",
    ...attackTable(run),
    cell(headline(run, conclusion, context)),
    ...verdictDetails(run, repetitions).map((line) => `- ${cell(line)}`),
    "",
  ];
  return `${lines.join("\n")}\n`;
}

/** The attacks' table, when the run had any: attack success rate beside utility. */
function attackTable(run: RunView): string[] {
  const rows = attackRows(run);
  if (rows.length === 0) return [];
  return [
    "Injection attacks (attack success rate: lower is better):",
    "",
    `| ${ATTACK_HEADER.join(" | ")} |`,
    `| --- | ${ATTACK_HEADER.slice(1)
      .map(() => "---:")
      .join(" | ")} |`,
    ...rows.map(
      (row, index) =>
        `| ${row.map((value) => (index === rows.length - 1 ? `**${cell(value)}**` : cell(value))).join(" | ")} |`,
    ),
    "",
  ];
}

/** A table cell or line: pipes escaped, line breaks flattened (Markdown tables are one line a row). */
function cell(value: string): string {
  return value.replaceAll("|", "\\|").replace(/\r?\n/g, " ");
}

/** Inside a code span a backtick would end it early. */
function code(value: string): string {
  return value.replaceAll("`", "'");
}
