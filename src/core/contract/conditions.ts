/**
 * Rule conditions. A condition never raises: whatever the arguments or the state look like, it
 * either holds or it does not, so a rule can never turn a call into an error.
 */
import type { JsonValue } from "../json.js";
import { jsonEqual } from "../json.js";
import { resolvePath, splitPath, type Segments } from "./paths.js";
import type { ConditionOp, ConditionSource } from "./types.js";

export const CONDITION_OPS: ReadonlySet<string> = new Set<ConditionOp>(["eq", "ne", "in", "exists"]);
export const CONDITION_SOURCES: ReadonlySet<string> = new Set<ConditionSource>(["input", "state"]);

export interface CompiledCondition {
  readonly fromState: boolean;
  readonly segments: Segments;
  /** An unknown op (only possible when the parser was bypassed) never holds. */
  readonly op: ConditionOp | null;
  readonly value: JsonValue;
}

/** Compiles one condition, tolerating any shape (the parser has refused bad ones already). */
export function compileCondition(raw: unknown): CompiledCondition {
  // SAFETY: only read through typeof checks below; a non-object yields a never-holding condition.
  const record = (raw !== null && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  // SAFETY: CONDITION_OPS holds exactly the ConditionOp strings.
  const op = typeof record.op === "string" && CONDITION_OPS.has(record.op) ? (record.op as ConditionOp) : null;
  const path = typeof record.path === "string" ? record.path : null;
  return {
    fromState: record.source === "state",
    segments: path === null ? [] : splitPath(path),
    op: path === null || (record.source !== "input" && record.source !== "state") ? null : op,
    // SAFETY: condition values are JSON in a parsed definition; anything else simply never matches.
    value: record.value as JsonValue,
  };
}

export function conditionHolds(condition: CompiledCondition, input: JsonValue, state: JsonValue): boolean {
  const actual = resolvePath(condition.fromState ? state : input, condition.segments);
  switch (condition.op) {
    case "eq":
      return actual !== undefined && jsonEqual(actual, condition.value);
    case "ne":
      // A missing path equals nothing, so "not equal" holds for it.
      return actual === undefined || !jsonEqual(actual, condition.value);
    case "in": {
      if (actual === undefined || !Array.isArray(condition.value)) return false;
      for (const item of condition.value) if (jsonEqual(actual, item)) return true;
      return false;
    }
    case "exists":
      // A null value resolves: only an absent path counts as not existing.
      return condition.value === true ? actual !== undefined : condition.value === false ? actual === undefined : false;
    default:
      return false;
  }
}

/** Do all conditions hold? An empty list (only possible without the parser) never matches. */
export function allHold(conditions: readonly CompiledCondition[], input: JsonValue, state: JsonValue): boolean {
  const count = conditions.length;
  if (count === 0) return false;
  for (let i = 0; i < count; i++) {
    // SAFETY: i < count.
    if (!conditionHolds(conditions[i] as CompiledCondition, input, state)) return false;
  }
  return true;
}
