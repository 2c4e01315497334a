/**
 * How a run and its repetitions are shown (GET /api/runs/:id and its repetitions): one shape for a
 * live run (progress from its coordinator) and an ended one (its D1 row), since both carry the same
 * RunProgress (run/progress.ts).
 */
import {
  repetitionRecordOf,
  runPinnedOf,
  runSummaryOf,
  runTriggerOf,
  type RunRepetitionRow,
  type RunRow,
} from "../../adapters/d1/runs.js";
import type { RepetitionRecord } from "../../core/evals/agent-types.js";
import { isRunStatus, type RunProgress, type RunSummary } from "./coordinator/progress.js";
import type { RepetitionEntry } from "./coordinator/replies.js";

/** The progress a D1 row holds (what the coordinator last wrote there). */
export function progressOfRow(row: RunRow): RunProgress | null {
  // SAFETY: the summary column is written only by the coordinator, from JSON.stringify of a RunSummary.
  const summary = runSummaryOf(row) as unknown as RunSummary | null;
  if (summary === null) return null;
  return {
    status: isRunStatus(row.status) ? row.status : "running",
    // SAFETY: the verdict column is written only from RunVerdictName values (or null).
    verdict: row.verdict as RunProgress["verdict"],
    hard_fail: row.hard_fail,
    pass_rate: row.pass_rate,
    finished_repetitions: row.finished_repetitions,
    total_repetitions: row.total_repetitions,
    summary,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

export function runView(row: RunRow, progress: RunProgress | null) {
  const outcome = progress?.summary.outcome;
  const figures = outcome?.figures;
  return {
    id: row.id,
    suite: row.suite_name,
    suite_version: row.suite_version,
    label: row.label,
    status: progress?.status ?? row.status,
    verdict: progress?.verdict ?? null,
    hard_fail: progress?.hard_fail ?? false,
    hard_fail_reasons: (outcome?.hard_fail_reasons ?? []).map(
      ({ scenario, repetition, function: fn, arguments: args, call_id }) => ({
        scenario,
        repetition,
        function: fn,
        arguments: args,
        call_id,
      }),
    ),
    reasons: outcome?.reasons ?? [],
    error_reasons: outcome?.errors ?? [],
    pass_rate: progress?.pass_rate ?? null,
    runs_per_scenario: row.runs_per_scenario,
    total_repetitions: row.total_repetitions,
    finished_repetitions: progress?.finished_repetitions ?? 0,
    runs: figures?.runs ?? 0,
    passed: figures?.passed ?? 0,
    failed: figures?.failed ?? 0,
    errors: figures?.errors ?? 0,
    interval: figures?.interval ?? null,
    forbidden_calls: figures?.forbidden_calls ?? 0,
    scenarios: figures?.scenarios ?? [],
    pass_hat_k: figures?.pass_hat_k ?? {},
    pass_at_k: figures?.pass_at_k ?? {},
    misfire_rate: figures?.misfire_rate ?? null,
    detection_power: figures?.detection_power ?? null,
    runs_needed_95: figures?.runs_needed_95 ?? null,
    attacks: progress?.summary.attacks ?? null,
    ending: progress?.summary.ending ?? null,
    // Runs with conversation scenarios only: the agent's and the user model's calls and tokens, apart.
    ...(progress?.summary.conversation_usage ? { conversation_usage: progress.summary.conversation_usage } : {}),
    pinned: runPinnedOf(row),
    trigger: runTriggerOf(row),
    created_by: row.created_by,
    created_at: row.created_at,
    started_at: progress?.started_at ?? row.started_at,
    finished_at: progress?.finished_at ?? row.finished_at,
  };
}

/** A repetition as the list shows it: who it is, and how it came out. */
export interface RepetitionItem {
  n: number;
  scenario: string;
  repetition: number;
  attempt_id: string;
  record: RepetitionRecord | null;
}

export function itemOfEntry(entry: RepetitionEntry): RepetitionItem {
  return {
    n: entry.seq,
    scenario: entry.scenario_id,
    repetition: entry.repetition,
    attempt_id: entry.attempt_id,
    record: entry.record,
  };
}

export function itemOfRow(row: RunRepetitionRow): RepetitionItem {
  return {
    n: row.seq,
    scenario: row.scenario_id,
    repetition: row.repetition,
    attempt_id: row.attempt_id,
    record: repetitionRecordOf(row),
  };
}

/** Which repetition it is, and whether it has its record yet. */
function identity(item: RepetitionItem) {
  return {
    n: item.n,
    scenario: item.scenario,
    repetition: item.repetition,
    attempt_id: item.attempt_id,
    status: item.record ? "done" : "pending",
  };
}

export function repetitionSummary(item: RepetitionItem) {
  const record = item.record;
  return {
    ...identity(item),
    outcome: record?.verdict.outcome ?? null,
    cause: record?.verdict.cause ?? null,
    reason: record?.verdict.reason ?? null,
    score: record?.verdict.score ?? null,
    calls: record ? record.calls.length : 0,
    approval_requests: record ? record.approval_requests.length : 0,
    stop_reason: record?.stop_reason ?? null,
  };
}

/** One repetition whole: its record (calls with results, approval requests, answer, judge, verdict, transcript). */
export function repetitionDetail(item: RepetitionItem) {
  const record = item.record;
  return {
    ...identity(item),
    evidence_url: `/api/attempts/${item.attempt_id}/evidence`,
    calls: record?.calls ?? [],
    approval_requests: record?.approval_requests ?? [],
    final_answer: record?.final_answer ?? null,
    stop_reason: record?.stop_reason ?? null,
    selection: record?.selection ?? null,
    judge: record?.judge ?? null,
    verdict: record?.verdict ?? null,
    end_state: record?.end_state ?? null,
    outputs: record?.outputs ?? null,
    transcript: record?.transcript ?? null,
    // A conversation scenario's: how it ended, the user model's turns, each side's model calls.
    ...(record?.conversation ? { conversation: record.conversation } : {}),
    started_at: record?.started_at ?? null,
    finished_at: record?.finished_at ?? null,
  };
}
