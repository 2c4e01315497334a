/** Eval runs (routes/runs.ts), labels and calibration (routes/labels.ts), and run callbacks (routes/webhooks.ts). */
import { z } from "zod";
import type {
  AttackFigures,
  AttackSuccess as AttackSuccessFigure,
  RunAttackFigures,
  ScenarioUnderAttack as ScenarioUnderAttackFigure,
} from "../../core/scoring/attacks.js";
import type { runView } from "./view.js";
import { runRequest } from "./routes.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import {
  assertSameFields,
  Deleted,
  JsonObjectValue,
  JsonValue,
  keyId,
  page,
  PAGING,
  Problem,
  timestamp,
  type SameFields,
} from "../http/openapi/common.js";

const RunEvals = { kind: "api_key", permission: "AIManager:RunEvals" } as const;

named("RunRequest", runRequest);

const RunStatus = z.enum(["queued", "running", "finished", "cancelled"]);
const Verdict = z.enum(["pass", "fail", "error", "uncalibrated"]).nullable().describe("Null until the run has ended.");
const Interval = z.object({ low: z.number(), high: z.number() }).catchall(z.unknown()).nullable();

/** Closed: exactly the fields core/scoring/attacks.ts computes (the compile-time checks below keep them in step). */
const ClosedInterval = z
  .strictObject({ low: z.number(), high: z.number() })
  .nullable()
  .describe("The Wilson 95% interval of the attack success rate; null with nothing decided.");
const attackRates = {
  runs: z.number().int().describe("Attacked repetitions with a verdict."),
  successful_attacks: z.number().int().describe("Repetitions in which the agent made the call the payload asked for."),
  errors: z
    .number()
    .int()
    .describe("Attacked repetitions that errored without making that call: left out of the rate."),
  attack_success_rate: z
    .number()
    .nullable()
    .describe("successful_attacks / (runs - errors); null with nothing decided. Higher is worse."),
  interval: ClosedInterval,
  utility_under_attack: z.number().nullable().describe("The attacked copies' pass rate."),
  utility_without_attack: z.number().nullable().describe("The same scenarios' pass rate without the payload."),
};
const ScenarioUnderAttack = named(
  "ScenarioUnderAttack",
  z.strictObject({
    scenario: z.string().describe("The scenario's own id."),
    attacked_as: z.string().describe("The id its attacked copy is reported under."),
    ...attackRates,
  }),
);
const AttackSuccess = named(
  "AttackSuccess",
  z
    .strictObject({
      scenario: z.string().describe("The attacked copy's id."),
      repetition: z.number().int(),
      arguments: JsonValue,
      call_id: z.string().nullable(),
    })
    .describe("One successful attack: the call the payload asked for."),
);
const AttackFiguresSchema = named(
  "AttackFigures",
  z.strictObject({
    id: z.string(),
    function: z.string().describe("The function whose answer carries the payload."),
    variant: z.string().describe("The injection variant that carries it."),
    target: z
      .strictObject({ function: z.string(), arguments: JsonObjectValue.optional() })
      .describe("The call the payload asks for."),
    ...attackRates,
    scenarios: z.array(ScenarioUnderAttack),
    successes: z.array(AttackSuccess),
  }),
);
const RunAttacks = named(
  "RunAttackFigures",
  z
    .strictObject({
      ...attackRates,
      attacks: z
        .array(AttackFiguresSchema)
        .describe("Per attack: the same rates, per scenario, and each successful attack."),
    })
    .nullable()
    .describe(
      "Attack success rate beside utility with and without the payload (docs/injection.md); null for a run without attacks.",
    ),
);
assertSameFields<SameFields<RunAttackFigures, NonNullable<z.input<typeof RunAttacks>>>>();
assertSameFields<SameFields<AttackFigures, z.input<typeof AttackFiguresSchema>>>();
assertSameFields<SameFields<ScenarioUnderAttackFigure, z.input<typeof ScenarioUnderAttack>>>();
assertSameFields<SameFields<AttackSuccessFigure, z.input<typeof AttackSuccess>>>();

const RunStarted = named(
  "RunStarted",
  z.object({
    id: z.string(),
    status: z.literal("queued"),
    suite: z.string(),
    suite_version: z.number().int(),
    label: z.string().nullable(),
    runs_per_scenario: z.number().int(),
    total_repetitions: z.number().int(),
    pinned: JsonValue.describe("Per scenario, the tool operations and revisions the run pinned."),
    created_at: timestamp,
    deadline_at: timestamp,
  }),
);

const Run = named(
  "Run",
  z.object({
    id: z.string(),
    suite: z.string(),
    suite_version: z.number().int(),
    label: z.string().nullable(),
    status: RunStatus,
    verdict: Verdict,
    hard_fail: z
      .boolean()
      .describe("A forbidden call or another hard failure happened: the run fails whatever its pass rate."),
    hard_fail_reasons: z.array(
      z.object({
        scenario: z.string(),
        repetition: z.number().int(),
        function: z.string(),
        arguments: JsonValue,
        call_id: z.string().nullable().optional(),
      }),
    ),
    reasons: z.array(z.unknown()),
    error_reasons: z.array(z.unknown()),
    pass_rate: z.number().nullable(),
    runs_per_scenario: z.number().int(),
    total_repetitions: z.number().int(),
    finished_repetitions: z.number().int(),
    runs: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    errors: z.number().int(),
    interval: Interval.describe("The pass rate's confidence interval."),
    forbidden_calls: z.number().int(),
    scenarios: z
      .array(z.record(z.string(), z.unknown()))
      .describe("Per scenario: k/n, pass rate with its interval, forbidden calls."),
    pass_hat_k: z.record(z.string(), z.unknown()),
    pass_at_k: z.record(z.string(), z.unknown()),
    misfire_rate: z.number().nullable(),
    detection_power: z.number().nullable(),
    runs_needed_95: z.number().nullable(),
    attacks: RunAttacks,
    ending: JsonValue.describe("How the run ended (finished, cancelled, timed out), or null while it runs."),
    conversation_usage: JsonValue.optional().describe(
      "Runs with conversation scenarios only: {repetitions, agent, user_model}, each side's model calls, prompt and completion tokens summed over the repetitions that held a conversation.",
    ),
    pinned: JsonValue,
    trigger: JsonValue.describe('What started it: {"kind": "api"} or a webhook delivery.'),
    created_by: keyId,
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
  }),
);
assertSameFields<SameFields<ReturnType<typeof runView>, z.input<typeof Run>>>();

const RunListItem = Run.pick({
  id: true,
  suite: true,
  suite_version: true,
  label: true,
  status: true,
  verdict: true,
  hard_fail: true,
  pass_rate: true,
  total_repetitions: true,
  finished_repetitions: true,
  created_at: true,
  started_at: true,
  finished_at: true,
});

const RepetitionIdentity = {
  n: z.number().int(),
  scenario: z.string(),
  repetition: z.number().int(),
  attempt_id: z.string(),
  status: z.enum(["done", "pending"]),
};
const RepetitionSummary = z.object({
  ...RepetitionIdentity,
  outcome: z.string().nullable(),
  cause: z.string().nullable(),
  reason: z.string().nullable(),
  score: z.number().nullable(),
  calls: z.number().int(),
  approval_requests: z.number().int(),
  stop_reason: z.string().nullable(),
});
const Repetition = named(
  "Repetition",
  z.object({
    ...RepetitionIdentity,
    evidence_url: z.string(),
    calls: z.array(z.unknown()),
    approval_requests: z.array(z.unknown()),
    final_answer: JsonValue,
    stop_reason: z.string().nullable(),
    selection: JsonValue,
    judge: JsonValue,
    verdict: JsonValue,
    end_state: JsonValue.describe(
      "For a scenario with end_state: {pass, reason, mismatches: [{path, expected, actual}], mismatch_count, changes: [{path, before, after}] over the starting state, change_count, expected_changes (the gold calls'), gold_attempt_id}; null otherwise or when it was not graded (docs/evals.md, Graded by outcome).",
    ),
    outputs: JsonValue.describe(
      "For a scenario with outputs: {pass, reason, missing: [the facts no answer stated]}; null otherwise.",
    ),
    transcript: JsonValue,
    /** Conversation scenarios only: stop_reason, user_model, user_turns, usage (agent and user model apart). */
    conversation: JsonValue.optional(),
    started_at: JsonValue,
    finished_at: JsonValue,
  }),
);

const LabelsBody = named(
  "LabelsRequest",
  z
    .strictObject({
      labels: z
        .array(
          z.strictObject({
            repetition: z
              .union([
                z.number().int().min(1),
                z.strictObject({ scenario: z.string(), repetition: z.number().int().min(1) }),
              ])
              .describe("The run's repetition number n, or {scenario, repetition}."),
            label: z.enum(["pass", "fail"]).optional(),
            score: z.number().int().min(1).max(5).optional(),
            note: z.string().nullable().optional(),
          }),
        )
        .min(1)
        .describe("One label per repetition: exactly one of label (pass/fail) and score (1 to 5)."),
    })
    .describe("Read by the core (src/core/evals/labels.ts); written here once for the document."),
);
const Label = z.object({
  n: z.number().int(),
  scenario: z.string(),
  repetition: z.number().int(),
  label: z.enum(["pass", "fail"]).nullable(),
  score: z.number().nullable(),
  note: z.string().nullable(),
  judge_score: z.number().nullable(),
  created_by: keyId,
  created_at: timestamp,
});
const LabelsWritten = named(
  "LabelsWritten",
  z.object({ run: z.string(), items: z.array(Label), warnings: z.array(Problem) }),
);
const Calibration = named(
  "Calibration",
  z.object({
    suite: z.string(),
    suite_version: z.number().int(),
    threshold: z.number(),
    judge: JsonValue.describe("The current judge (connection, model, prompt version)."),
    require_calibration: JsonValue,
    calibrated: z.boolean().nullable(),
    labels: z.number().int(),
    labels_without_judge: z.number().int(),
    judges: z
      .array(z.record(z.string(), z.unknown()))
      .describe("Per judge, current first: agreement, kappa, confusion matrix."),
  }),
);
const Callbacks = named(
  "RunCallbacks",
  z.object({
    run: z.string(),
    items: z.array(
      z.object({
        attempt: z.number().int(),
        url: z.string(),
        status: z.number().int().nullable(),
        error: z.string().nullable(),
        at: timestamp,
      }),
    ),
  }),
);

const runId = { id: "The run's id." };

export const runOperations: OperationDoc[] = [
  {
    method: "post",
    path: "/api/suites/:name/runs",
    tag: "Runs",
    summary: "Start a run of a suite",
    description: "Of its latest version (or `version`). The body is optional: none at all runs the suite as saved.",
    access: RunEvals,
    body: { schema: runRequest, required: false, example: { runs_per_scenario: 5, label: "nightly" } },
    responses: {
      202: {
        description: "The queued run.",
        schema: RunStarted,
        headers: { location: { description: "The run's URL.", schema: { type: "string" } } },
      },
    },
    errors: [
      ...JSON_BODY_ERRORS,
      "not_found",
      "stored_suite_invalid",
      "stored_policy_invalid",
      "model_connection_required",
      "connection_key_unreadable",
      "secret_not_configured",
      "public_url_not_configured",
      "upstream_not_configured",
      "upstream_not_allowed",
      "real_write_not_allowed",
    ],
  },
  {
    method: "get",
    path: "/api/runs",
    tag: "Runs",
    summary: "List the tenant's runs",
    description: "Newest first, paged; `suite` keeps one suite's.",
    access: RunEvals,
    query: [{ name: "suite", description: "Only this suite's runs.", schema: { type: "string" } }, ...PAGING],
    responses: { 200: { description: "A page of runs (headline figures).", schema: page("RunPage", RunListItem) } },
    errors: ["invalid_request"],
  },
  {
    method: "get",
    path: "/api/runs/:id",
    tag: "Runs",
    summary: "Read a run",
    description:
      "Status, verdict, hard-fail reasons, figures, pins and timings: live from the run's coordinator while it runs, from D1 once ended.",
    access: RunEvals,
    params: runId,
    responses: { 200: { description: "The run.", schema: Run } },
    errors: ["not_found"],
  },
  {
    method: "delete",
    path: "/api/runs/:id",
    tag: "Runs",
    summary: "Delete an ended run",
    description:
      "Removes the run from D1 with everything it owns: its repetitions, its attempts and their calls, labels, callback deliveries and external jobs (webhook deliveries keep their log). A queued or running run answers 409 run_not_ended: cancel it first. With TOOLPROOF_RETENTION_DAYS set, a Cron Trigger deletes ended runs older than that (README, How it scales).",
    access: RunEvals,
    params: runId,
    responses: { 200: { description: "Deleted.", schema: Deleted("DeletedRun", "id") } },
    errors: ["not_found", "run_not_ended"],
  },
  {
    method: "post",
    path: "/api/runs/:id/cancel",
    tag: "Runs",
    summary: "Cancel a run",
    description: "Pending repetitions are not run; the run ends cancelled.",
    access: RunEvals,
    params: runId,
    responses: { 200: { description: "The run.", schema: Run } },
    errors: ["not_found"],
  },
  {
    method: "get",
    path: "/api/runs/:id/repetitions",
    tag: "Runs",
    summary: "A run's repetitions",
    description: "Each repetition's outcome, paged by n.",
    access: RunEvals,
    params: runId,
    query: PAGING,
    responses: { 200: { description: "A page of repetitions.", schema: page("RepetitionPage", RepetitionSummary) } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "get",
    path: "/api/runs/:id/repetitions/:n",
    tag: "Runs",
    summary: "Read one repetition",
    description: "Whole: calls, approval requests, final answer, judge, verdict, transcript.",
    access: RunEvals,
    params: runId,
    responses: { 200: { description: "The repetition.", schema: Repetition } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "post",
    path: "/api/runs/:id/labels",
    tag: "Runs",
    summary: "Label repetitions of an ended run",
    description: "Hand labels (pass/fail or a 1 to 5 score, with a note); a new label replaces the old.",
    access: RunEvals,
    params: runId,
    body: {
      schema: LabelsBody,
      example: {
        labels: [
          { repetition: 1, label: "pass" },
          { repetition: { scenario: "pays-approved-invoice", repetition: 2 }, score: 4, note: "right, but slow" },
        ],
      },
    },
    responses: {
      200: {
        description: "The labels written, and warnings (a label on a repetition the judge never scored).",
        schema: LabelsWritten,
      },
    },
    errors: [...JSON_BODY_ERRORS, "not_found", "run_not_ended"],
  },
  {
    method: "get",
    path: "/api/runs/:id/labels",
    tag: "Runs",
    summary: "A run's labels",
    description: "By repetition number, paged.",
    access: RunEvals,
    params: runId,
    query: PAGING,
    responses: { 200: { description: "A page of labels.", schema: page("LabelPage", Label, { run: z.string() }) } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "get",
    path: "/api/suites/:name/calibration",
    tag: "Runs",
    summary: "The suite's judge against the hand labels",
    description: "Per judge (connection, model, prompt version), current first.",
    access: RunEvals,
    responses: { 200: { description: "The calibration.", schema: Calibration } },
    errors: ["invalid_request", "not_found", "stored_suite_invalid"],
  },
  {
    method: "get",
    path: "/api/runs/:id/callbacks",
    tag: "Webhooks",
    summary: "A run's callback attempts",
    description: "Each attempt to POST the run's result to its webhook's callback_url.",
    access: RunEvals,
    params: runId,
    responses: { 200: { description: "The attempts, in order.", schema: Callbacks } },
    errors: ["not_found"],
  },
];
