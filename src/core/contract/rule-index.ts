/**
 * A per-variant index that narrows which rules can match a call, so a variant with many rules
 * does not evaluate every condition of every rule on every call.
 *
 * It picks the (source, path) that the most rules test with `eq` against a scalar. On a call the
 * value at that path is resolved once; the candidates are the rules whose `eq` names that value
 * plus the rules that do not test that path with `eq`, in their original order. A rule left out
 * could not have matched (its `eq` fails for any other value, a missing path or a non-scalar), so
 * first-match semantics are unchanged; candidates still have all their conditions checked.
 */
import type { JsonPrimitive, JsonValue } from "../json.js";
import type { CompiledCondition } from "./conditions.js";
import { resolvePath, type Segments } from "./paths.js";

/** Below this many indexable rules, a plain scan is as fast and simpler to reason about. */
const MIN_INDEXED_RULES = 4;

export interface RuleIndex {
  readonly fromState: boolean;
  readonly segments: Segments;
  /** Scalar value → indices of rules that can match when the path holds that value. */
  readonly byValue: ReadonlyMap<JsonPrimitive, readonly number[]>;
  /** Indices of rules that can match whatever the path holds (they do not test it with eq). */
  readonly otherwise: readonly number[];
}

function isScalar(value: JsonValue): value is JsonPrimitive {
  return value === null || typeof value !== "object";
}

function keyOf(condition: CompiledCondition): string {
  return `${condition.fromState ? "s" : "i"}:${condition.segments.join(".")}`;
}

/** Builds the index for a variant's rules, or null when no path is tested often enough. */
export function buildRuleIndex(
  rules: ReadonlyArray<{ readonly when: readonly CompiledCondition[] }>,
): RuleIndex | null {
  const counts = new Map<string, { count: number; sample: CompiledCondition }>();
  for (const rule of rules) {
    const seen = new Set<string>();
    for (const condition of rule.when) {
      if (condition.op !== "eq" || !isScalar(condition.value)) continue;
      const key = keyOf(condition);
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = counts.get(key);
      if (entry) entry.count++;
      else counts.set(key, { count: 1, sample: condition });
    }
  }
  let best: { count: number; sample: CompiledCondition } | undefined;
  for (const entry of counts.values()) if (!best || entry.count > best.count) best = entry;
  if (!best || best.count < MIN_INDEXED_RULES) return null;
  const bestKey = keyOf(best.sample);

  const tested: Array<JsonPrimitive | undefined> = rules.map((rule) => {
    const condition = rule.when.find((c) => c.op === "eq" && isScalar(c.value) && keyOf(c) === bestKey);
    // SAFETY: the find predicate checked isScalar on this value.
    return condition === undefined ? undefined : (condition.value as JsonPrimitive);
  });
  const otherwise: number[] = [];
  const values = new Set<JsonPrimitive>();
  for (const [index, value] of tested.entries()) {
    if (value === undefined) otherwise.push(index);
    else values.add(value);
  }
  const byValue = new Map<JsonPrimitive, number[]>();
  for (const value of values) {
    // Map keys compare with SameValueZero: 1 and 1.0 are one key, 1 and "1" two, as in jsonEqual.
    byValue.set(
      value,
      tested.flatMap((v, index) => (v === undefined || v === value ? [index] : [])),
    );
  }
  return { fromState: best.sample.fromState, segments: best.sample.segments, byValue, otherwise };
}

/** The rule indices worth checking for this call, in rule order. */
export function candidateRules(index: RuleIndex, input: JsonValue, state: JsonValue): readonly number[] {
  const actual = resolvePath(index.fromState ? state : input, index.segments);
  if (actual === undefined || !isScalar(actual)) return index.otherwise;
  return index.byValue.get(actual) ?? index.otherwise;
}
