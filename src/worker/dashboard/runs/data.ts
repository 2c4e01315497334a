/**
 * What the Runs, Run and Attempt pages read, through the same repositories and readers as the API
 * routes (GET /api/runs, /api/runs/:id, /api/runs/:id/repetitions, /api/attempts/:id/evidence): a
 * live run from its coordinator, an ended one from D1, and every read scoped to the signed-in
 * tenant, so another tenant's run or attempt is "not found" exactly as the API answers.
 */
import {
  attemptStateOf,
  findAttempt,
  getSimulation,
  listEvidence,
  type AttemptRow,
} from "../../../adapters/d1/simulations.js";
import { findRunRepetitionOfAttempt, getRun, listRuns, type RunRow } from "../../../adapters/d1/runs.js";
import { getSuiteVersion } from "../../../adapters/d1/suites.js";
import { DEFAULT_PASS_RATE } from "../../../core/scoring/run-verdict.js";
import { isJsonObject, type JsonObject } from "../../../core/json.js";
import { toEvidenceCall, type EvidenceCall } from "../../../core/simulation/evidence.js";
import { statusWithoutObject } from "../../../core/simulation/status.js";
import { systemClock } from "../../../core/ports.js";
import { RETENTION_MS } from "../../attempts/lifetimes.js";
import { attemptStub, isAttemptId } from "../../attempts/access.js";
import type { AppEnv } from "../../platform/env.js";
import { progressOf, repetitionItems, tenantRun } from "../../runs/run-queries.js";
import { itemOfRow, runView, type RepetitionItem } from "../../runs/view.js";
import type { RunView } from "./view-models.js";

type Bindings = AppEnv["Bindings"];
type Db = AppEnv["Variables"]["db"];

/** Runs the list shows per page, and runs per suite chart. */
const RUNS_PAGE_SIZE = 50;
const TREND_RUNS = 20;
/** Suites charted on the list page (those of the page's runs, newest first). */
const CHARTED_SUITES = 8;
/** Repetitions a run page shows; a larger run says how many it left out. */
export const REPETITIONS_SHOWN = 500;
/** Candidates in the baseline picker. */
const BASELINE_CHOICES = 50;
/** Evidence calls an attempt page shows (the API's largest page). */
export const EVIDENCE_SHOWN = 1000;

async function viewsOf(env: Bindings, rows: readonly RunRow[]): Promise<RunView[]> {
  return Promise.all(rows.map(async (row) => runView(row, await progressOf(env, row))));
}

/** Each suite version's gate (its pass_rate), read once per version. */
function gates(db: Db, tenantId: string): (run: Pick<RunView, "suite" | "suite_version">) => Promise<number> {
  const cache = new Map<string, Promise<number>>();
  return (run) => {
    const key = `${run.suite}@${run.suite_version}`;
    let gate = cache.get(key);
    if (!gate) {
      gate = getSuiteVersion(db, tenantId, run.suite, run.suite_version).then((stored) => {
        const rate = stored && isJsonObject(stored.document) ? stored.document.pass_rate : undefined;
        return typeof rate === "number" ? rate : DEFAULT_PASS_RATE;
      });
      cache.set(key, gate);
    }
    return gate;
  };
}

interface RunsPageData {
  runs: RunView[];
  next: { created_at: string; id: string } | undefined;
  /** Per charted suite: its last runs (newest first) and each run's gate by id. */
  suites: Array<{ suite: string; runs: RunView[]; gates: Map<string, number> }>;
}

export async function runsPageData(
  env: Bindings,
  db: Db,
  tenantId: string,
  after: { created_at: string; id: string } | undefined,
): Promise<RunsPageData> {
  const page = await listRuns(db, tenantId, { limit: RUNS_PAGE_SIZE, after });
  const runs = await viewsOf(env, page.items);
  const gateOf = gates(db, tenantId);
  const names = [...new Set(runs.map((run) => run.suite))].slice(0, CHARTED_SUITES);
  const suites = await Promise.all(
    names.map(async (suite) => {
      const suiteRuns = await viewsOf(env, (await listRuns(db, tenantId, { suite, limit: TREND_RUNS })).items);
      const gateList = await Promise.all(suiteRuns.map(async (run) => [run.id, await gateOf(run)] as const));
      return { suite, runs: suiteRuns, gates: new Map(gateList) };
    }),
  );
  return { runs, next: page.next, suites };
}

export interface RunPageData {
  run: RunView;
  gate: number;
  repetitions: RepetitionItem[];
  /** Other runs of the same suite, newest first, for the baseline picker. */
  candidates: RunView[];
  baseline: RunView | null;
  /** Why the asked-for baseline is not shown (another suite, not found). */
  baseline_problem: string | null;
}

/** A run of the tenant (or the same not_found the API throws), its repetitions and its baseline. */
export async function runPageData(
  env: Bindings,
  db: Db,
  tenantId: string,
  runId: string,
  baselineId: string | undefined,
): Promise<RunPageData> {
  const row = await tenantRun(db, tenantId, runId);
  const run = runView(row, await progressOf(env, row));
  const [gate, repetitions, sameSuite] = await Promise.all([
    gates(db, tenantId)(run),
    repetitionItems(env, db, row, 0, REPETITIONS_SHOWN),
    listRuns(db, tenantId, { suite: row.suite_name, limit: BASELINE_CHOICES + 1 }),
  ]);
  const candidates = await viewsOf(
    env,
    sameSuite.items.filter((other) => other.id !== row.id).slice(0, BASELINE_CHOICES),
  );
  let baseline: RunView | null = null;
  let baseline_problem: string | null = null;
  if (baselineId !== undefined && baselineId !== "") {
    const found = baselineId === row.id ? undefined : candidates.find((c) => c.id === baselineId);
    if (found) baseline = found;
    else {
      // Older than the picker's choices, or not comparable: read it like any run of the tenant.
      const other = await tenantRun(db, tenantId, baselineId).catch(() => undefined);
      if (!other || other.id === row.id)
        baseline_problem = `No other run ${baselineId} of this tenant to compare with.`;
      else if (other.suite_name !== row.suite_name)
        baseline_problem = `Run ${baselineId} is of suite ${other.suite_name}, not ${row.suite_name}: only runs of the same suite compare.`;
      else baseline = runView(other, await progressOf(env, other));
    }
  }
  return { run, gate, repetitions, candidates, baseline, baseline_problem };
}

export interface AttemptPageData {
  attempt: AttemptRow;
  calls: EvidenceCall[];
  /** The evidence could not be copied from the attempt's object just now: what D1 has may lack calls. */
  incomplete: boolean;
  /** State per tool: the object's now while it lives, else as of its last flush to D1. */
  state: JsonObject;
  /** Per function name of the attempt's pinned operations, the tool whose state it reads and writes. */
  tool_of: Map<string, string>;
  /** The run repetition this attempt ran, when it is one. */
  repetition: { run_id: string; run_label: string | null; run_status: string; item: RepetitionItem } | null;
  /** The link's ?run=&n= named a repetition that is not this attempt's: said, and not shown. */
  link_problem: string | null;
}

/**
 * An attempt of the tenant, or undefined (the page answers 404, as the API does for another
 * tenant's attempt). Its run repetition is found by the attempt id (run_repetitions_attempt) once
 * the run has ended; while the run is live only its coordinator knows, so the run page's links
 * carry `from` (?run=&n=), used only when that repetition really is this attempt's.
 */
export async function attemptPageData(
  env: Bindings,
  db: Db,
  tenantId: string,
  attemptId: string,
  from: { run: string; n: number } | undefined,
): Promise<AttemptPageData | undefined> {
  const attempt = isAttemptId(attemptId) ? await findAttempt(db, attemptId) : undefined;
  if (!attempt || attempt.tenant_id !== tenantId) return undefined;
  const stub = attemptStub(env, attempt.id);
  // Status and state as GET /api/attempts/:id reads them: the object's own while it lives (D1 has
  // no state before the first flush), D1's after. Read before the evidence, so every change the
  // state already holds is among the calls read (state-seen.ts relies on that).
  const snapshot = await stub.snapshot();
  // As GET /api/attempts/:id/evidence does: copy what the object has not flushed yet, then read D1.
  const flushed = await stub.flush();
  const [rows, fresh, simulation, own] = await Promise.all([
    listEvidence(db, attempt.id, 0, EVIDENCE_SHOWN),
    findAttempt(db, attempt.id),
    getSimulation(db, tenantId, attempt.simulation_id),
    findRunRepetitionOfAttempt(db, tenantId, attempt.id),
  ]);
  const stored = fresh ?? attempt;
  const status =
    snapshot.kind === "ok"
      ? snapshot.snapshot.status
      : statusWithoutObject(stored.status, Date.parse(stored.expires_at), RETENTION_MS, systemClock.now());
  const tool_of = new Map((simulation?.simulation.pinned ?? []).map((p) => [p.function_name, p.tool_name] as const));
  let repetition: AttemptPageData["repetition"] = null;
  let link_problem: string | null = null;
  const withRun = async (row: RunRow | undefined, item: RepetitionItem) =>
    row ? { run_id: row.id, run_label: row.label, run_status: row.status, item } : null;
  if (own) {
    repetition = await withRun(await getRun(db, tenantId, own.run_id), itemOfRow(own));
    if (from && (from.run !== own.run_id || from.n !== own.seq))
      link_problem = `The link named run ${from.run} repetition ${from.n}, which is not this attempt's: shown instead is the repetition this attempt ran.`;
  } else if (from) {
    const named = await namedRepetition(env, db, tenantId, attempt.id, from);
    if (named) repetition = await withRun(named.row, named.item);
    else
      link_problem = `The link named run ${from.run} repetition ${from.n}, which is not this attempt's: no run's transcript is shown.`;
  }
  return {
    attempt: { ...stored, status },
    calls: rows.map(toEvidenceCall),
    incomplete: flushed.kind === "failed",
    state: snapshot.kind === "ok" ? snapshot.snapshot.state : attemptStateOf(stored),
    tool_of,
    repetition,
    link_problem,
  };
}

/** The repetition `from` names, when it is of the tenant's run and really is this attempt's. */
async function namedRepetition(
  env: Bindings,
  db: Db,
  tenantId: string,
  attemptId: string,
  from: { run: string; n: number },
): Promise<{ row: RunRow; item: RepetitionItem } | undefined> {
  const row = await getRun(db, tenantId, from.run);
  const [item] = row ? await repetitionItems(env, db, row, from.n - 1, 1) : [];
  return row && item && item.n === from.n && item.attempt_id === attemptId ? { row, item } : undefined;
}

/**
 * A live run's repetition whose attempt is not set up yet (no delivery has claimed it): the run
 * page links to it already, so the attempt page says so instead of "no such attempt".
 */
export async function pendingRepetition(
  env: Bindings,
  db: Db,
  tenantId: string,
  attemptId: string,
  from: { run: string; n: number } | undefined,
): Promise<{ run_id: string; run_label: string | null; item: RepetitionItem } | undefined> {
  const named = from ? await namedRepetition(env, db, tenantId, attemptId, from) : undefined;
  return named ? { run_id: named.row.id, run_label: named.row.label, item: named.item } : undefined;
}
