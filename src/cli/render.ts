/**
 * Human-readable output for CI logs: plain ASCII, one finding per block with the rule id and tool
 * first (so `grep approval.mismatch` finds them), and a last line that says PASS or FAIL.
 */
import type { CheckReport } from "../core/policy/types.js";
import type { ToolPermissionResult } from "../core/policy/permission-metric.js";
import type { UnusableInput } from "./io.js";

export function renderCheck(
  report: CheckReport,
  context: { policy: string; manifest: string; format: string },
): string {
  const lines = [
    `toolproof policy check: ${context.manifest} (${context.format} manifest) against ${context.policy}`,
    "",
  ];
  if (report.passed) {
    lines.push("PASS: the manifest matches the reviewed policy (no findings)");
    return `${lines.join("\n")}\n`;
  }
  for (const finding of report.findings) {
    const where =
      finding.server !== undefined && finding.server !== finding.tool
        ? `${finding.tool} @ ${finding.server}`
        : finding.tool;
    lines.push(`  ${finding.rule}  ${where}`, `    ${finding.message}`, "");
  }
  const count = report.findings.length;
  lines.push(`FAIL: ${count} finding${count === 1 ? "" : "s"}`);
  return `${lines.join("\n")}\n`;
}

export function renderPermission(result: ToolPermissionResult, context: { called: string; strict: boolean }): string {
  const lines = [`toolproof permission: ${context.called}`, ""];
  lines.push(
    `  score      ${formatScore(result.score)} (${result.authorized_calls} of ${result.total_calls} calls authorized)`,
  );
  lines.push(`  threshold  ${formatScore(result.threshold)}${context.strict ? " (strict mode)" : ""}`);
  for (const entry of result.unauthorized) {
    lines.push(
      `  unauthorized  ${entry.tool} x${entry.count} (${entry.cause === "denied" ? "in denied_tools" : "not in allowed_tools"})`,
    );
  }
  if (result.reason !== null) lines.push("", `  ${result.reason}`);
  if (result.steps) lines.push("", "  steps:", ...result.steps.map((step) => `    ${step}`));
  lines.push(
    "",
    result.success
      ? "PASS"
      : `FAIL: score ${formatScore(result.score)} is below the threshold ${formatScore(result.threshold)}`,
  );
  return `${lines.join("\n")}\n`;
}

export function renderUnusable(error: UnusableInput): string {
  const lines = [`toolproof: ${error.message}`];
  for (const problem of error.problems)
    lines.push(`  ${problem.path === "" ? "(document)" : problem.path}: ${problem.message}`);
  return `${lines.join("\n")}\n`;
}

/** Up to four decimals, without trailing zeros: 0.6667, 0.5, 1. */
function formatScore(value: number): string {
  return String(Number(value.toFixed(4)));
}
