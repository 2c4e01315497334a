/**
 * What the eval commands read from the run routes (docs/evals.md, "Reading it"): a run, and its
 * repetitions. The types are the service's own (core/scoring); an answer is checked for the fields
 * the CLI cannot do without before it is trusted, so a wrong --url fails with a sentence, not a crash.
 */
import type { RunAttackFigures } from "../core/scoring/attacks.js";
import type { ScenarioFigures } from "../core/scoring/figures.js";
import type { Interval } from "../core/scoring/rates.js";
import type { RepetitionCall } from "../core/scoring/calls.js";
import type { RepetitionVerdict } from "../core/scoring/repetition-verdict.js";
import type { ErrorReason, HardFailReason, RunVerdictName } from "../core/scoring/run-verdict.js";
import { isRecord } from "../core/policy/fields.js";
import { request, ServiceError, type Service } from "./service.js";
import type { OutcomeDetail } from "./end-state-report.js";

export type RunStatus = "queued" | "running" | "finished" | "cancelled";

export interface RunView {
  id: string;
  suite: string;
  suite_version: number;
  label: string | null;
  status: RunStatus;
  verdict: RunVerdictName | null;
  hard_fail: boolean;
  hard_fail_reasons: HardFailReason[];
  reasons: string[];
  error_reasons: ErrorReason[];
  pass_rate: number | null;
  runs_per_scenario: number;
  total_repetitions: number;
  finished_repetitions: number;
  runs: number;
  passed: number;
  failed: number;
  errors: number;
  interval: Interval | null;
  forbidden_calls: number;
  scenarios: ScenarioFigures[];
  /** Attack success rate and utility per attack; null (or absent, from an older service) without attacks. */
  attacks?: RunAttackFigures | null;
  ending: {
    reason: "completed" | "cancelled" | "deadline";
    missing: Array<{ seq: number; scenario: string; repetition: number }>;
  } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** GET /api/runs/:id/repetitions/:n, the fields the JUnit report reads. */
export interface RepetitionDetail extends OutcomeDetail {
  n: number;
  scenario: string;
  repetition: number;
  attempt_id: string;
  status: "done" | "pending";
  calls: RepetitionCall[];
  final_answer: string | null;
  stop_reason: string | null;
  verdict: RepetitionVerdict | null;
  started_at: string | null;
  finished_at: string | null;
}

export function ended(run: RunView): boolean {
  return run.status === "finished" || run.status === "cancelled";
}

export async function fetchRun(service: Service, id: string): Promise<RunView> {
  const path = `/api/runs/${encodeURIComponent(id)}`;
  const body = await request(service, path);
  if (
    !isRecord(body) ||
    typeof body.id !== "string" ||
    typeof body.status !== "string" ||
    !Array.isArray(body.scenarios)
  ) {
    throw new ServiceError(`GET ${path}`, 200, `GET ${path} did not answer a run; is --url toolproof's address?`);
  }
  // SAFETY: the run route's documented shape (src/worker/runs/view.ts runView); the fields checked above are the ones every path reads first.
  return body as unknown as RunView;
}

/** Every repetition whole, in order: the list (paged), then each one's detail, a few at a time. */
export async function fetchRepetitions(service: Service, id: string): Promise<RepetitionDetail[]> {
  const base = `/api/runs/${encodeURIComponent(id)}/repetitions`;
  const numbers: number[] = [];
  let cursor: string | null = null;
  do {
    const page = await request(
      service,
      `${base}?limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    if (!isRecord(page) || !Array.isArray(page.items))
      throw new ServiceError(`GET ${base}`, 200, `GET ${base} did not answer a list of repetitions`);
    for (const item of page.items) if (isRecord(item) && typeof item.n === "number") numbers.push(item.n);
    cursor = typeof page.next_cursor === "string" ? page.next_cursor : null;
  } while (cursor !== null);

  const details: RepetitionDetail[] = new Array<RepetitionDetail>(numbers.length);
  let next = 0;
  const worker = async () => {
    while (next < numbers.length) {
      const index = next++;
      const body = await request(service, `${base}/${numbers[index]}`);
      if (!isRecord(body) || typeof body.n !== "number" || typeof body.scenario !== "string")
        throw new ServiceError(
          `GET ${base}/${numbers[index]}`,
          200,
          `GET ${base}/${numbers[index]} did not answer a repetition`,
        );
      // SAFETY: the repetition route's documented shape (src/worker/runs/view.ts repetitionDetail), checked above for its identity.
      details[index] = body as unknown as RepetitionDetail;
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, numbers.length) }, worker));
  return details;
}
