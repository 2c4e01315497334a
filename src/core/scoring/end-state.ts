/**
 * Grading an attempt by the state it ends in (τ-bench's reward): the attempt's final state against
 * the expected one, path by path. Pure: the consumer reads the states (the agent's attempt, and a
 * fresh attempt on which the scenario's gold calls were replayed) and hands them here.
 *
 * States are compared deep, and every difference is reported by its JSON Pointer into the state of
 * every tool (`/<tool>/...`) with the expected and the actual value, so "the refund was 54.04, not
 * 45.04" reads as one line instead of "the hashes differ". Objects are compared key by key (order
 * ignored), arrays index by index, and numbers within 1e-9 of each other (relative to their size,
 * and absolutely below 1), so 0.1 + 0.2 equals 0.3 and the same amount computed two ways is not a
 * mismatch. A value missing on one side is reported with only the side that has it.
 */
import { isJsonObject, pointerToken, type JsonObject, type JsonValue } from "../json.js";
import { keysThatMayDiffer } from "../datasets/records.js";

/** How far apart two numbers may be and still be the same value: 1e-9, relative above 1. */
const NUMBER_TOLERANCE = 1e-9;
/** Differences kept per list: a record holds every answer in one SQLite value (2 MB at most). */
export const MAX_DIFFERENCES = 50;
/**
 * A kept value's JSON may be this long; a longer one (a whole table missing) is left out and its
 * size recorded in `too_large`, so three lists of 50 stay far below the record's 2 MB.
 */
const MAX_KEPT_VALUE_BYTES = 2048;

/**
 * A value the attempt's final state must hold. `path` is a JSON Pointer into the state of every
 * tool of the attempt, `{"<tool>": <its state>}`, so it starts with the tool's name.
 */
export interface StateAssertion {
  path: string;
  equals: JsonValue;
}

/** One path where the final state is not the expected one; a side without the key is left out. */
interface StateMismatch {
  path: string;
  expected?: JsonValue;
  actual?: JsonValue;
  /** A side left out of the record for its size: the length of its JSON (read it in the attempt's state). */
  too_large?: { expected?: number; actual?: number };
}

/** One path the attempt changed, over the state it started from; a side without the key is left out. */
export interface StateChange {
  path: string;
  before?: JsonValue;
  after?: JsonValue;
  /** A side left out of the record for its size: the length of its JSON. */
  too_large?: { before?: number; after?: number };
}

export interface EndStateResult {
  pass: boolean;
  reason: string;
  /** The first MAX_DIFFERENCES mismatches, in path order within each comparison. */
  mismatches: StateMismatch[];
  /** Every mismatch found, including those past MAX_DIFFERENCES. */
  mismatch_count: number;
  /** The agent's changes over the starting state (the first MAX_DIFFERENCES). */
  changes: StateChange[];
  change_count: number;
  /** What the gold calls changed over the same starting state; null without gold calls. */
  expected_changes: StateChange[] | null;
  /** The fresh attempt the gold calls were replayed on; null without gold calls. */
  gold_attempt_id: string | null;
}

export function numbersMatch(a: number, b: number): boolean {
  return Math.abs(a - b) <= NUMBER_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/** A difference between `left` and `right` at `path`; an undefined side is absent there. */
interface Difference {
  path: string;
  left: JsonValue | undefined;
  right: JsonValue | undefined;
}

/**
 * Every path where `left` and `right` differ, deep, in a stable order (object keys sorted, array
 * indexes ascending). Iterative, so no nesting depth overflows the stack. Two containers of
 * different kinds (an object and an array), or a container and a scalar, differ at their own path
 * with both values whole.
 */
export function jsonDifferences(left: JsonValue, right: JsonValue, prefix = ""): Difference[] {
  const found: Difference[] = [];
  const pending: Difference[] = [{ path: prefix, left, right }];
  while (pending.length > 0) {
    // SAFETY: the stack is not empty (checked by the loop condition).
    const { path, left: l, right: r } = pending.pop() as Difference;
    // The same value on both sides has no difference inside: states over a dataset share every
    // record no call touched, so this keeps a comparison to what the calls changed.
    if (l === r) continue;
    if (l === undefined || r === undefined) {
      found.push({ path, left: l, right: r });
      continue;
    }
    if (typeof l === "number" && typeof r === "number") {
      if (!numbersMatch(l, r)) found.push({ path, left: l, right: r });
      continue;
    }
    if (Array.isArray(l) && Array.isArray(r)) {
      const length = Math.max(l.length, r.length);
      // Pushed in reverse, so they come off the stack in index order.
      for (let i = length - 1; i >= 0; i--) pending.push({ path: `${path}/${i}`, left: l[i], right: r[i] });
      continue;
    }
    if (isJsonObject(l) && isJsonObject(r)) {
      // Only the keys whose values are not the same on both sides: a collection of a thousand
      // records that share all but one with the other side is one key to sort, name and look into,
      // not a thousand (the skipped ones would yield nothing, so the result is the same).
      const keys: string[] = [];
      // Two collections of one dataset's records: only the records either side's changes touched
      // can differ (records.ts), so the others are not even listed.
      const narrowed = keysThatMayDiffer(l, r);
      if (narrowed) {
        for (const key of narrowed)
          if (Object.hasOwn(l, key) !== Object.hasOwn(r, key) || l[key] !== r[key]) keys.push(key);
      } else {
        for (const key of Object.keys(l)) if (!Object.hasOwn(r, key) || l[key] !== r[key]) keys.push(key);
        for (const key of Object.keys(r)) if (!Object.hasOwn(l, key)) keys.push(key);
      }
      keys.sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        pending.push({
          path: `${path}/${pointerToken(key)}`,
          left: Object.hasOwn(l, key) ? l[key] : undefined,
          right: Object.hasOwn(r, key) ? r[key] : undefined,
        });
      }
      continue;
    }
    if (l !== r) found.push({ path, left: l, right: r });
  }
  return found;
}

/** The value at a JSON Pointer (RFC 6901) in `document`, or undefined when nothing is there. */
export function valueAt(document: JsonValue, path: string): JsonValue | undefined {
  if (path === "") return document;
  if (!path.startsWith("/")) return undefined;
  let current: JsonValue | undefined = document;
  for (const raw of path.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (isJsonObject(current)) {
      current = Object.hasOwn(current, token) ? current[token] : undefined;
    } else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

/** The mismatches of `actual` against `expected`, deep. */
export function stateMismatches(expected: JsonValue, actual: JsonValue, prefix = ""): StateMismatch[] {
  return jsonDifferences(expected, actual, prefix).map(({ path, left, right }) => ({
    path,
    ...(left === undefined ? {} : { expected: left }),
    ...(right === undefined ? {} : { actual: right }),
  }));
}

/** Each assertion against the final state: a path with nothing at it, or a value that differs deep. */
export function assertionMismatches(assertions: readonly StateAssertion[], actual: JsonObject): StateMismatch[] {
  return assertions.flatMap((assertion) => {
    const found = valueAt(actual, assertion.path);
    if (found === undefined) return [{ path: assertion.path, expected: assertion.equals }];
    return stateMismatches(assertion.equals, found, assertion.path);
  });
}

/** What changed from `before` to `after`, deep. */
export function stateChanges(before: JsonValue, after: JsonValue): StateChange[] {
  return jsonDifferences(before, after).map(({ path, left, right }) => ({
    path,
    ...(left === undefined ? {} : { before: left }),
    ...(right === undefined ? {} : { after: right }),
  }));
}

interface EndStateInputs {
  /** The state every tool of the attempt started from, `{"<tool>": state}`. */
  initial: JsonObject;
  /** The agent's attempt's state when it finished. */
  actual: JsonObject;
  /** The state the gold calls reached on a fresh attempt, when the scenario has gold calls. */
  gold?: { state: JsonObject; attempt_id: string };
  assert?: readonly StateAssertion[];
}

/**
 * The end state's grade: every difference from the gold state (the whole state, every tool), then
 * every failed assertion. It passes when there are none.
 */
export function gradeEndState(inputs: EndStateInputs): EndStateResult {
  const all = [
    ...(inputs.gold ? stateMismatches(inputs.gold.state, inputs.actual) : []),
    ...assertionMismatches(inputs.assert ?? [], inputs.actual),
  ];
  const changes = stateChanges(inputs.initial, inputs.actual);
  const kept = all.slice(0, MAX_DIFFERENCES).map((m) => keptSides(m, "expected", "actual"));
  const pass = all.length === 0;
  const against = [
    inputs.gold ? "the gold calls' state" : "",
    (inputs.assert ?? []).length > 0 ? "every assertion" : "",
  ]
    .filter(Boolean)
    .join(" and ");
  return {
    pass,
    reason: pass
      ? `End state matches ${against}.`
      : `End state differs at ${all.length} ${all.length === 1 ? "path" : "paths"}: ${kept.slice(0, 3).map(describeMismatch).join("; ")}${all.length > 3 ? "; …" : ""}.`,
    mismatches: kept,
    mismatch_count: all.length,
    changes: keptChanges(changes),
    change_count: changes.length,
    expected_changes: inputs.gold ? keptChanges(stateChanges(inputs.initial, inputs.gold.state)) : null,
    gold_attempt_id: inputs.gold?.attempt_id ?? null,
  };
}

function keptChanges(changes: readonly StateChange[]): StateChange[] {
  return changes.slice(0, MAX_DIFFERENCES).map((c) => keptSides(c, "before", "after"));
}

/** The difference with each side whose JSON is longer than MAX_KEPT_VALUE_BYTES left out and measured. */
function keptSides<
  K extends string,
  T extends { path: string; too_large?: Partial<Record<K, number>> } & Partial<Record<K, JsonValue>>,
>(item: T, ...sides: K[]): T {
  let result = item;
  for (const side of sides) {
    const value = item[side];
    if (value === undefined) continue;
    const bytes = JSON.stringify(value).length;
    if (bytes <= MAX_KEPT_VALUE_BYTES) continue;
    const { [side]: _dropped, ...rest } = result;
    // SAFETY: the same item without one optional side, and with too_large recording its size.
    result = { ...rest, too_large: { ...result.too_large, [side]: bytes } } as unknown as T;
  }
  return result;
}

/** `/orders/#W1/status: expected "cancelled", got "pending"`, values cut to a readable length. */
function describeMismatch(mismatch: StateMismatch): string {
  const side = (value: JsonValue | undefined, bytes: number | undefined) =>
    bytes === undefined ? shown(value) : `(${bytes} bytes of JSON, too large to keep)`;
  return `${mismatch.path || "/"}: expected ${side(mismatch.expected, mismatch.too_large?.expected)}, got ${side(mismatch.actual, mismatch.too_large?.actual)}`;
}

function shown(value: JsonValue | undefined): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
