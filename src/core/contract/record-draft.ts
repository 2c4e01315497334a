/**
 * Recording a mock from real calls: the calls a real-tools attempt forwarded to an operation's real
 * handler become a draft definition that answers each recorded input exactly as the real handler
 * did. The draft is for a person to review and save; nothing here saves or relabels anything.
 *
 * The shape of the draft, and why:
 * - one variant, `recorded`, the default: a recording is one behaviour of the real system;
 * - one rule per distinct recorded input, whose one condition is the whole input (`path: ""`,
 *   `eq`: deep equality, key order ignored), with the recorded answer as a literal result. A
 *   condition on the whole input is exact: no other input matches it, so the rules never shadow
 *   each other whatever keys the inputs have or how they are spelled;
 * - one example per distinct input with the recorded answer as `expected`, so the checker proves
 *   the draft reproduces every recording (and flags an answer that breaks the output schema);
 * - the variant's own result, used for any input never recorded, is derived from the output
 *   schema (as an action "generate" draft is); when the schema cannot be derived from, the first
 *   recorded answer stands in.
 *
 * Volatile values are pointed out, not removed: strings that look like dates or timestamps (a
 * recording replays yesterday's date forever), and values that differed between calls with equal
 * inputs (generated ids, counters): the draft keeps the first answer, the report says which
 * paths moved.
 */
import { canonicalJson, isJsonObject, jsonEqual, pointerToken, type JsonObject, type JsonValue } from "../json.js";
import { deriveValue } from "./derive.js";
import { expressionLookalike } from "./draft.js";
import { LIMITS } from "./limits.js";
import { utf8Length } from "../utf8.js";
import type { Example, MockDefinition, Rule } from "./types.js";

export const RECORDED_VARIANT = "recorded";

/** One real call as the evidence holds it. */
export interface RecordedCall {
  /** Where the call came from, to name it in the report (attempt id and seq). */
  attempt_id: string;
  seq: number;
  input: JsonObject;
  answer: JsonValue;
}

type VolatileKind = "timestamp" | "differs_between_equal_inputs";

export interface VolatileValue {
  /** The example (and rule) index the value is in. */
  example: number;
  /** JSON Pointer into the recorded answer. */
  path: string;
  kind: VolatileKind;
  /** The value the draft keeps. */
  value: JsonValue;
  /** For differs_between_equal_inputs: the other values seen at that path, and where. */
  others?: Array<{ attempt_id: string; seq: number; value: JsonValue | null }>;
}

/** A recorded input left out of the draft, and why. */
export interface SkippedCall {
  attempt_id: string;
  seq: number;
  reason: string;
}

export interface RecordedDraft {
  definition: MockDefinition;
  /** Which recorded call each example came from (its first occurrence). */
  sources: Array<{ example: number; attempt_id: string; seq: number; calls: number }>;
  volatile: VolatileValue[];
  skipped: SkippedCall[];
}

export type RecordDraftResult = { ok: true; draft: RecordedDraft } | { ok: false; message: string };

/** Dates and timestamps as ISO 8601 writes them (what a recording would freeze in time). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Room left in the 100 KB for the envelope once every rule and example is in. */
const SIZE_MARGIN = 256;

/**
 * The draft for `calls` (in the order they were made) under an operation whose output schema is
 * `outputSchema`. ok:false only when no call can be used at all.
 */
export function recordDraft(calls: readonly RecordedCall[], outputSchema: unknown): RecordDraftResult {
  const skipped: SkippedCall[] = [];
  const groups: Array<{ key: string; first: RecordedCall; later: RecordedCall[] }> = [];
  const byKey = new Map<string, (typeof groups)[number]>();
  for (const call of calls) {
    const lookalike = expressionLookalike(call.answer);
    if (lookalike !== null) {
      skipped.push({
        attempt_id: call.attempt_id,
        seq: call.seq,
        reason: `the answer holds an object at ${lookalike || "/"} whose only key is an expression operator ($input, $state, $number, $dateAdd), which a definition cannot hold as a literal`,
      });
      continue;
    }
    const key = canonicalJson(call.input);
    const group = byKey.get(key);
    if (group) {
      group.later.push(call);
      continue;
    }
    if (groups.length >= LIMITS.maxExamples) {
      skipped.push({
        attempt_id: call.attempt_id,
        seq: call.seq,
        reason: `a definition holds at most ${LIMITS.maxExamples} examples; this is a further distinct input`,
      });
      continue;
    }
    const created = { key, first: call, later: [] };
    groups.push(created);
    byKey.set(key, created);
  }
  const first = groups[0];
  if (!first)
    return {
      ok: false,
      message: `none of the recorded calls can become an example (see each reason)${skippedText(skipped)}`,
    };

  const derived = deriveValue(outputSchema);
  const fallback: JsonValue =
    derived.ok && expressionLookalike(derived.value) === null ? derived.value : first.first.answer;
  const rules: Rule[] = [];
  const examples: Example[] = [];
  const sources: RecordedDraft["sources"] = [];
  const volatile: VolatileValue[] = [];
  const budget = LIMITS.maxDefinitionBytes - SIZE_MARGIN - utf8Length(JSON.stringify(fallback));
  let used = 0;
  for (const group of groups) {
    const rule: Rule = {
      when: [{ source: "input", path: "", op: "eq", value: group.first.input }],
      result: group.first.answer,
    };
    const example: Example = { variant: RECORDED_VARIANT, input: group.first.input, expected: group.first.answer };
    const size = utf8Length(JSON.stringify(rule)) + utf8Length(JSON.stringify(example)) + 2;
    if (used + size > budget) {
      for (const call of [group.first, ...group.later]) {
        skipped.push({
          attempt_id: call.attempt_id,
          seq: call.seq,
          reason: `a definition is at most ${LIMITS.maxDefinitionBytes} bytes, and this input's example no longer fits`,
        });
      }
      continue;
    }
    used += size;
    const index = examples.length;
    rules.push(rule);
    examples.push(example);
    sources.push({
      example: index,
      attempt_id: group.first.attempt_id,
      seq: group.first.seq,
      calls: 1 + group.later.length,
    });
    volatile.push(...timestamps(group.first.answer, "", index));
    volatile.push(...differences(group.first, group.later, index));
  }

  const definition: MockDefinition = {
    schema_version: 1,
    default_variant: RECORDED_VARIANT,
    variants: { [RECORDED_VARIANT]: { result: fallback, rules } },
    examples,
  };
  return { ok: true, draft: { definition, sources, volatile, skipped } };
}

function skippedText(skipped: readonly SkippedCall[]): string {
  return skipped.length === 0 ? "" : `: ${skipped.map((s) => `${s.attempt_id} call ${s.seq}: ${s.reason}`).join("; ")}`;
}

/** Every string in `value` that reads as an ISO date or timestamp. */
function timestamps(value: JsonValue, at: string, example: number): VolatileValue[] {
  if (typeof value === "string") return ISO_DATE.test(value) ? [{ example, path: at, kind: "timestamp", value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => timestamps(item, `${at}/${i}`, example));
  if (isJsonObject(value))
    return Object.entries(value).flatMap(([key, item]) => timestamps(item, `${at}/${pointerToken(key)}`, example));
  return [];
}

/** The leaf paths where a later answer to the same input differs from the first one. */
function differences(first: RecordedCall, later: readonly RecordedCall[], example: number): VolatileValue[] {
  const found = new Map<string, VolatileValue>();
  for (const call of later) {
    for (const path of differingPaths(first.answer, call.answer, "")) {
      const entry = found.get(path) ?? {
        example,
        path,
        kind: "differs_between_equal_inputs" as const,
        value: valueAt(first.answer, path) ?? null,
        others: [],
      };
      entry.others?.push({ attempt_id: call.attempt_id, seq: call.seq, value: valueAt(call.answer, path) ?? null });
      found.set(path, entry);
    }
  }
  return [...found.values()];
}

function differingPaths(a: JsonValue | undefined, b: JsonValue | undefined, at: string): string[] {
  if (jsonEqual(a, b)) return [];
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((key) =>
      differingPaths(
        Object.hasOwn(a, key) ? a[key] : undefined,
        Object.hasOwn(b, key) ? b[key] : undefined,
        `${at}/${pointerToken(key)}`,
      ),
    );
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((item, i) => differingPaths(item, b[i], `${at}/${i}`));
  return [at];
}

function valueAt(value: JsonValue, path: string): JsonValue | undefined {
  if (path === "") return value;
  let current: JsonValue | undefined = value;
  for (const raw of path.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isJsonObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return undefined;
  }
  return current;
}
