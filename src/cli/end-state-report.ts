/**
 * A repetition graded by its outcome, as the CLI log and the JUnit report show it: each path where
 * the end state differs (expected, actual), the facts never stated, and the state's changes over
 * the starting state as a diff (`+` added, `-` removed, `~` changed), the agent's and the gold calls'.
 */
import type { JsonValue } from "../core/json.js";
import type { EndStateResult, StateChange } from "../core/scoring/end-state.js";
import type { OutputsResult } from "../core/scoring/outputs.js";

/** The outcome fields of GET /api/runs/:id/repetitions/:n (absent from a service before issue 22). */
export interface OutcomeDetail {
  end_state?: EndStateResult | null;
  outputs?: OutputsResult | null;
}

/** One line per mismatch and per missing fact: what a failed repetition's log line is followed by. */
export function mismatchLines(detail: OutcomeDetail): string[] {
  const lines: string[] = [];
  const grade = detail.end_state;
  if (grade && !grade.pass) {
    for (const m of grade.mismatches)
      lines.push(
        `${m.path || "/"}: expected ${valueText(m.expected, m.too_large?.expected)}, actual ${valueText(m.actual, m.too_large?.actual)}`,
      );
    const more = grade.mismatch_count - grade.mismatches.length;
    if (more > 0) lines.push(`… and ${more} more ${more === 1 ? "path" : "paths"}`);
  }
  for (const fact of detail.outputs?.missing ?? []) lines.push(`output never stated: ${JSON.stringify(fact)}`);
  return lines;
}

/** The state's changes over the starting state, the agent's then the gold calls', as diff lines. */
export function changeLines(detail: OutcomeDetail): string[] {
  const grade = detail.end_state;
  if (!grade) return [];
  const lines = [`state changes over the start (agent, ${grade.change_count}):`, ...diff(grade.changes)];
  if (grade.change_count > grade.changes.length)
    lines.push(`  … and ${grade.change_count - grade.changes.length} more`);
  if (grade.expected_changes !== null)
    lines.push(
      `state changes over the start (gold calls, attempt ${grade.gold_attempt_id ?? "?"}):`,
      ...diff(grade.expected_changes),
    );
  return lines;
}

function diff(changes: readonly StateChange[]): string[] {
  if (changes.length === 0) return ["  (none)"];
  return changes.map((c) => {
    const path = c.path || "/";
    const before = valueText(c.before, c.too_large?.before);
    const after = valueText(c.after, c.too_large?.after);
    if (c.before === undefined && c.too_large?.before === undefined) return `  + ${path}: ${after}`;
    if (c.after === undefined && c.too_large?.after === undefined) return `  - ${path}: ${before}`;
    return `  ~ ${path}: ${before} → ${after}`;
  });
}

function valueText(value: JsonValue | undefined, tooLarge?: number): string {
  if (tooLarge !== undefined) return `(${tooLarge} bytes of JSON, too large to keep)`;
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
