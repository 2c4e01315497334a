/**
 * Rule conditions. A condition never raises: whatever the arguments or the state look like, it
 * either holds or it does not, so a rule can never turn a call into an error.
 */
import type { JsonValue, Problem } from "../json.js";
import { jsonEqual } from "../json.js";
import { compileExpression, type Expression } from "./cel.js";
import { evaluate, RenderFailure, type RenderScope } from "./expressions.js";
import { resolvePath, splitPath, type Segments } from "./paths.js";
import type { ConditionOp, ConditionSource } from "./types.js";

export const CONDITION_OPS: ReadonlySet<string> = new Set<ConditionOp>(["eq", "ne", "in", "exists"]);
export const CONDITION_SOURCES: ReadonlySet<string> = new Set<ConditionSource>(["input", "state"]);

export interface CompiledCondition {
  readonly fromState: boolean;
  readonly segments: Segments;
  /** An unknown op (only possible when the parser was bypassed) never holds; "expr" is version 2's. */
  readonly op: ConditionOp | "expr" | null;
  readonly value: JsonValue;
  /** The compiled CEL of an expr condition. */
  readonly expression: Expression | null;
}

/** Is `raw` a version-2 expression condition ({"expr": "..."}, exactly that key)? */
export function isExpressionCondition(raw: unknown): raw is { expr: unknown } {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return false;
  const keys = Object.keys(raw);
  return keys.length === 1 && keys[0] === "expr";
}

/** Compiles one condition, tolerating any shape (the parser has refused bad ones already). */
export function compileCondition(
  raw: unknown,
  version: 1 | 2 = 1,
  at = "",
  sink: Problem[] | null = null,
): CompiledCondition {
  if (version === 2 && isExpressionCondition(raw)) {
    const compiled = compileExpression(raw.expr, [], `${at}/expr`, sink);
    // A broken expression (only without the parser) never holds, like any broken condition.
    if (typeof compiled === "string")
      return { fromState: false, segments: [], op: null, value: null, expression: null };
    return { fromState: false, segments: [], op: "expr", value: null, expression: compiled };
  }
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
    expression: null,
  };
}

export function conditionHolds(
  condition: CompiledCondition,
  input: JsonValue,
  state: JsonValue,
  scope: RenderScope | null = null,
): boolean {
  if (condition.op === "expr") return expressionHolds(condition, input, state, scope);
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

/**
 * A version-2 condition: it holds when the expression is true. A key that is not there makes it
 * not hold (so "order not found" is an ordinary rule); any other failure, or an answer that is
 * not a boolean, is the fixture's mistake and stops the call.
 */
function expressionHolds(
  condition: CompiledCondition,
  input: JsonValue,
  state: JsonValue,
  scope: RenderScope | null,
): boolean {
  // SAFETY: expr conditions are compiled with their expression.
  const expression = condition.expression as Expression;
  const evaluation = evaluate(expression, input, state, scope);
  if (evaluation.kind === "missing") return false;
  if (evaluation.kind === "error") {
    throw new RenderFailure("expression_error", evaluation.message, [
      { path: expression.at, message: evaluation.message },
    ]);
  }
  if (typeof evaluation.value !== "boolean") {
    const message = `a condition must be true or false; ${JSON.stringify(expression.source)} gave ${JSON.stringify(evaluation.value)?.slice(0, 80)}`;
    throw new RenderFailure("expression_error", message, [{ path: expression.at, message }]);
  }
  return evaluation.value;
}

/** Do all conditions hold? An empty list (only possible without the parser) never matches. */
export function allHold(
  conditions: readonly CompiledCondition[],
  input: JsonValue,
  state: JsonValue,
  scope: RenderScope | null = null,
): boolean {
  const count = conditions.length;
  if (count === 0) return false;
  for (let i = 0; i < count; i++) {
    // SAFETY: i < count.
    if (!conditionHolds(conditions[i] as CompiledCondition, input, state, scope)) return false;
  }
  return true;
}
