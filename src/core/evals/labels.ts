/**
 * Hand labels for the repetitions of an ended run (POST /api/runs/:id/labels), read against the
 * run itself: every problem is reported at once at its field, and a label on a repetition the judge
 * never scored is kept with a warning rather than refused.
 *
 * Why kept: a reviewer labelling a run goes through its repetitions in order, and the ones
 * selection decided (a forbidden call, a refusal with no calls) are part of what they read. Such a
 * label cannot measure the judge, so calibration counts it apart (`labels_without_judge`, or a
 * group's `unjudged_labels` when the judge was asked and gave no score), and the answer says so for
 * each one.
 */
import type { Problem } from "../json.js";
import { at, describeValue, isRecord, ProblemList, readString, refuseUnknownKeys } from "../policy/fields.js";
import type { HumanLabel } from "../scoring/calibration.js";
import type { RepetitionCause } from "../scoring/repetition-verdict.js";

/** As many labels as one run can have repetitions. */
const MAX_LABELS_PER_REQUEST = 2000;
const MAX_NOTE_LENGTH = 2000;

/** One repetition of the run, as far as labelling needs it. */
export interface LabelledRunRepetition {
  /** The run's repetition number (`n` of GET /api/runs/:id/repetitions). */
  n: number;
  scenario: string;
  repetition: number;
  /** The judge's score, or null when it gave none. */
  judge_score: number | null;
  /** Whether the judge was asked at all. */
  judge_asked: boolean;
  cause: RepetitionCause;
}

export interface LabelledRun {
  /** Scenario ids in the run's order. */
  scenarios: readonly string[];
  runs_per_scenario: number;
  /** The repetitions that have a record (a cancelled run may lack some). */
  repetitions: readonly LabelledRunRepetition[];
}

/** One label as stored: exactly one of `label` and `score` is set. */
interface LabelInput {
  n: number;
  label: "pass" | "fail" | null;
  score: number | null;
  note: string | null;
}

type LabelsRead = { ok: true; labels: LabelInput[]; warnings: Problem[] } | { ok: false; problems: Problem[] };

const BODY_FIELDS = ["labels"] as const;
const LABEL_FIELDS = ["repetition", "label", "score", "note"] as const;
const REPETITION_FIELDS = ["scenario", "repetition"] as const;

export function readLabels(body: unknown, run: LabelledRun): LabelsRead {
  const problems = new ProblemList();
  const warnings = new ProblemList();
  if (!isRecord(body))
    return {
      ok: false,
      problems: [
        {
          path: "",
          message: `expected {"labels": [{"repetition": 1, "label": "pass"}, ...]}, got ${describeValue(body)}`,
        },
      ],
    };
  refuseUnknownKeys(body, BODY_FIELDS, "", problems);
  const list = body.labels;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_LABELS_PER_REQUEST) {
    problems.add(
      "/labels",
      `expected 1 to ${MAX_LABELS_PER_REQUEST} labels ([{"repetition": 1, "label": "pass"}, {"repetition": {"scenario": "<id>", "repetition": 2}, "score": 3}]), got ${Array.isArray(list) ? `${list.length}` : describeValue(list)}`,
    );
    return { ok: false, problems: problems.items };
  }

  const byN = new Map(run.repetitions.map((r) => [r.n, r]));
  const seen = new Map<number, string>();
  const labels: LabelInput[] = [];
  list.forEach((entry, index) => {
    const path = at("/labels", index);
    if (!isRecord(entry)) {
      problems.add(
        path,
        `expected a label ({"repetition": 1, "label": "pass"} or {"repetition": 1, "score": 4}), got ${describeValue(entry)}`,
      );
      return;
    }
    refuseUnknownKeys(entry, LABEL_FIELDS, path, problems);
    const n = readRepetition(entry.repetition, at(path, "repetition"), run, problems);
    const verdict = readVerdictOrScore(entry, path, problems);
    const note =
      entry.note === undefined || entry.note === null
        ? null
        : readString(entry.note, at(path, "note"), problems, { nonEmpty: true, maxLength: MAX_NOTE_LENGTH });
    if (n === undefined) return;
    const repetition = byN.get(n);
    const where = describeRepetition(n, run);
    if (!repetition) {
      problems.add(at(path, "repetition"), `${where} has no result to label: the run ended before it ran`);
      return;
    }
    const earlier = seen.get(n);
    if (earlier !== undefined) {
      problems.add(
        at(path, "repetition"),
        `${where} is labelled twice in this request (also at ${earlier}); send one label per repetition`,
      );
      return;
    }
    seen.set(n, path);
    if (repetition.judge_score === null)
      warnings.add(
        at(path, "repetition"),
        `${where} ${unjudgedReason(repetition)}: the label is stored, but it cannot measure the judge, and calibration counts it apart`,
      );
    if (verdict === undefined || note === undefined) return;
    labels.push({ n, ...verdict, note });
  });

  if (!problems.isEmpty) return { ok: false, problems: problems.items };
  return { ok: true, labels, warnings: warnings.items };
}

/** A stored label as calibration reads it; null for a row that is neither (never written by readLabels). */
export function humanLabelOf(label: { label: string | null; score: number | null }): HumanLabel | null {
  if (label.score !== null) return { kind: "score", score: label.score };
  if (label.label === "pass" || label.label === "fail") return { kind: "verdict", pass: label.label === "pass" };
  return null;
}

/** `n` (the run's repetition number) or `{scenario, repetition}`; undefined (with a problem) when it names none of the run's. */
function readRepetition(value: unknown, path: string, run: LabelledRun, problems: ProblemList): number | undefined {
  const total = run.scenarios.length * run.runs_per_scenario;
  if (typeof value === "number") {
    if (Number.isInteger(value) && value >= 1 && value <= total) return value;
    problems.add(
      path,
      `expected a repetition number from 1 to ${total} (n in GET /api/runs/:id/repetitions), got ${describeValue(value)}`,
    );
    return undefined;
  }
  if (!isRecord(value)) {
    problems.add(
      path,
      value === undefined
        ? `required: the repetition, as its number (1 to ${total}) or {"scenario": "<id>", "repetition": 1}`
        : `expected a repetition number or {"scenario", "repetition"}, got ${describeValue(value)}`,
    );
    return undefined;
  }
  refuseUnknownKeys(value, REPETITION_FIELDS, path, problems);
  const index = typeof value.scenario === "string" ? run.scenarios.indexOf(value.scenario) : -1;
  if (index < 0)
    problems.add(
      at(path, "scenario"),
      `expected one of the run's scenarios (${run.scenarios.join(", ")}), got ${describeValue(value.scenario)}`,
    );
  const repetition = value.repetition;
  const repetitionOk =
    typeof repetition === "number" &&
    Number.isInteger(repetition) &&
    repetition >= 1 &&
    repetition <= run.runs_per_scenario;
  if (!repetitionOk)
    problems.add(
      at(path, "repetition"),
      `expected a repetition from 1 to ${run.runs_per_scenario} (the run's runs_per_scenario), got ${describeValue(repetition)}`,
    );
  if (
    index < 0 ||
    !repetitionOk ||
    Object.keys(value).some((key) => !(REPETITION_FIELDS as readonly string[]).includes(key))
  )
    return undefined;
  return index * run.runs_per_scenario + repetition;
}

function readVerdictOrScore(
  entry: Record<string, unknown>,
  path: string,
  problems: ProblemList,
): Pick<LabelInput, "label" | "score"> | undefined {
  const hasLabel = entry.label !== undefined;
  const hasScore = entry.score !== undefined;
  if (hasLabel && hasScore) {
    problems.add(
      path,
      'give either "label" (pass or fail) or "score" (1 to 5), not both: a score already says pass or fail at the suite\'s threshold',
    );
    return undefined;
  }
  if (!hasLabel && !hasScore) {
    problems.add(path, 'required: "label" ("pass" or "fail") or "score" (1 to 5, the judge\'s rubric)');
    return undefined;
  }
  if (hasLabel) {
    if (entry.label === "pass" || entry.label === "fail") return { label: entry.label, score: null };
    problems.add(at(path, "label"), `expected "pass" or "fail", got ${describeValue(entry.label)}`);
    return undefined;
  }
  const score = entry.score;
  if (typeof score === "number" && Number.isInteger(score) && score >= 1 && score <= 5) return { label: null, score };
  problems.add(
    at(path, "score"),
    `expected a whole number from 1 to 5 (the judge's rubric), got ${describeValue(score)}`,
  );
  return undefined;
}

function describeRepetition(n: number, run: LabelledRun): string {
  const scenario = run.scenarios[Math.floor((n - 1) / run.runs_per_scenario)];
  return `repetition ${n} (${scenario ?? "?"} #${((n - 1) % run.runs_per_scenario) + 1})`;
}

function unjudgedReason(repetition: LabelledRunRepetition): string {
  if (repetition.judge_asked) return "has no judge score (the judge was asked but gave none)";
  switch (repetition.cause) {
    case "forbidden_call":
      return "was decided without the judge (a forbidden call)";
    case "selection":
      return "was decided without the judge (selection failed)";
    case "unknown_function":
      return "was decided without the judge (it called a function it does not have)";
    case "invalid_proposal":
      return "was decided without the judge (a proposal broke its function's input schema)";
    case "no_calls_expected":
      return "was decided without the judge (no calls, as expected)";
    case "timed_out":
      return "was decided without the judge (the external agent timed out)";
    case "end_state":
      return "was decided without the judge (by its end state)";
    case "outputs":
      return "was decided without the judge (by its required outputs)";
    default:
      return `was never scored by the judge (it ended in an error: ${repetition.cause})`;
  }
}
