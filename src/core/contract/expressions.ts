/**
 * Templates: JSON values that may contain the four expressions ($input, $state, $number,
 * $dateAdd). A template is compiled once into a small tree so that a call only walks the parts
 * that can vary; fully literal subtrees are copied, never re-inspected. An expression whose
 * operands are all literals is evaluated once, here (constant folding), and its value (never the
 * expression object) becomes part of the literal around it.
 *
 * The same compiler serves the parser (with a problem sink, to refuse a definition at save time)
 * and the call path (without one, where a malformed expression in a definition that skipped the
 * parser becomes a harness error when it is rendered).
 */
import type { JsonObject, JsonValue, Problem } from "../json.js";
import { dateAdd, EXPECTED_DATE } from "./datetime.js";
import { compileExpression, evaluateExpression, type Expression, type Meter } from "./cel.js";
import { RenderFailure } from "./failure.js";
export { RenderFailure };
import { LIMITS } from "./limits.js";
import { pathProblem, resolvePath, segmentsPointer, splitPath, type Segments } from "./paths.js";
import { child, copyJson, describe, setOwn } from "./values.js";

export const OPERATORS: ReadonlySet<string> = new Set(["$input", "$state", "$number", "$dateAdd"]);

type TemplateKind =
  /** A scalar literal: returned as is. */
  | "scalar"
  /** A literal object or array without expressions: copied on every render so callers own it. */
  | "copy"
  /** An object with an expression somewhere inside: `keys` and `items` are parallel. */
  | "object"
  | "array"
  | "input"
  | "state"
  /** `items[0]` is the inner template. */
  | "number"
  /** `items[0]` is the value template; `days` and `hours` are checked literals. */
  | "dateAdd"
  /** Version 2: a CEL expression, in `expression`. */
  | "expr"
  /** A malformed expression or a literal that can never be accepted: a harness error when rendered. */
  | "invalid";

/**
 * What a template may use, by definition version: version 1 knows only the four operators, so
 * `{"$expr": ...}` there stays plain data; version 2 adds `$expr`, seeing `locals` (for_each names).
 */
export interface TemplateContext {
  readonly version: 1 | 2;
  readonly locals: readonly string[];
}

export const VERSION_1: TemplateContext = { version: 1, locals: [] };

/**
 * What a version-2 render sees besides the arguments and the state: the pre-call state, the
 * for_each names bound so far and the call's cost budget. Version 1 renders pass none.
 */
export interface RenderScope {
  readonly before: JsonValue;
  readonly locals: Readonly<Record<string, JsonValue>>;
  readonly meter: Meter;
}

/**
 * One compiled template node. A single class with every field present (rather than a union of
 * object shapes) keeps property access on the render path monomorphic, which V8 turns into
 * plain loads; the union version was measurably slower.
 */
export class Template {
  constructor(
    readonly t: TemplateKind,
    /** The literal for scalar and copy nodes. */
    readonly value: JsonValue = null,
    readonly keys: readonly string[] = NO_KEYS,
    readonly items: readonly Template[] = NO_ITEMS,
    /** The path of a reference, split. */
    readonly segments: Segments = NO_KEYS,
    /** The path text of a reference, or the message of an invalid node. */
    readonly text: string = "",
    readonly days: number = 0,
    readonly hours: number = 0,
    /** JSON Pointer of this node in the definition. */
    readonly at: string = "",
    /** The compiled CEL expression of an expr node. */
    readonly expression: Expression | null = null,
  ) {}
}

const NO_KEYS: readonly string[] = [];
const NO_ITEMS: readonly Template[] = [];

function scalar(value: JsonValue): Template {
  return new Template("scalar", value);
}

function invalid(message: string, at: string): Template {
  return new Template("invalid", null, NO_KEYS, NO_ITEMS, NO_KEYS, message, 0, 0, at);
}

/** Is `value` an object whose single own key is "$expr" (the version-2 expression)? */
function isExprObject(value: unknown): value is { $expr: unknown } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "$expr";
}

/** Is `value` an object whose single own key is an operator (the contract's definition of an expression)? */
export function expressionOperator(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  let found: string | null = null;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (found !== null) return null;
    found = key;
  }
  return found !== null && OPERATORS.has(found) ? found : null;
}

const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export const EXPECTED_NUMBER =
  'a finite JSON number or a decimal string such as "12.50" (no exponent, sign "+", spaces or hex)';

/** The number $number makes of `value`, or null when the contract rejects it. */
export function toNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string" || !DECIMAL.test(value)) return null;
  const number = Number(value);
  // A decimal string with hundreds of digits parses to Infinity: still not a finite number.
  return Number.isFinite(number) ? number : null;
}

function isLiteral(t: Template): boolean {
  return t.t === "scalar" || t.t === "copy";
}

function report(sink: Problem[] | null, path: string, message: string): Template {
  sink?.push({ path, message });
  return invalid(message, path);
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * Compiles a template found at JSON Pointer `at` of the definition. Problems go to `sink` (the
 * parser's list) when one is given; the returned tree is usable either way.
 */
export function compileTemplate(
  value: unknown,
  at: string,
  sink: Problem[] | null,
  depth = 0,
  context: TemplateContext = VERSION_1,
): Template {
  if (depth > LIMITS.maxNesting) return report(sink, at, `nested deeper than ${LIMITS.maxNesting} levels`);
  if (value === null || typeof value !== "object") {
    // SAFETY: the parser checked JSON-ness of the whole definition; on the call path a non-JSON
    // scalar can only come from a caller that bypassed the parser and is copied through as is.
    return scalar(value as JsonValue);
  }
  if (context.version === 2 && isExprObject(value)) {
    const compiled = compileExpression(value.$expr, context.locals, child(at, "$expr"), sink);
    if (typeof compiled === "string") return invalid(compiled, child(at, "$expr"));
    return new Template("expr", null, NO_KEYS, NO_ITEMS, NO_KEYS, compiled.source, 0, 0, at, compiled);
  }
  const operator = expressionOperator(value);
  if (operator !== null) {
    // SAFETY: expressionOperator only answers for plain objects with exactly this own key.
    const argument = (value as Record<string, unknown>)[operator];
    const argAt = child(at, operator);
    switch (operator) {
      case "$input":
      case "$state":
        return compileReference(operator === "$input" ? "input" : "state", argument, argAt, at, sink);
      case "$number":
        return compileNumber(argument, argAt, at, sink, depth, context);
      default:
        return compileDateAdd(argument, argAt, at, sink, depth, context);
    }
  }
  if (Array.isArray(value)) {
    // Plain loops rather than map(): bundlers that keep function names (tsx, wrangler) wrap every
    // closure they create, which made per-node closures a visible cost on large definitions.
    const items: Template[] = new Array<Template>(value.length);
    let literal = true;
    let folded = false;
    for (let i = 0; i < value.length; i++) {
      const item = compileTemplate(value[i], `${at}/${i}`, sink, depth + 1, context);
      items[i] = item;
      literal &&= isLiteral(item);
      folded ||= item.value !== value[i];
    }
    if (!literal) return new Template("array", null, NO_KEYS, items);
    // SAFETY: every item is literal, so the array is a JSON value with no expression left in it.
    if (!folded) return new Template("copy", value as JsonValue);
    // An expression inside was folded to its value: the literal is made of the folded items,
    // never of the expression objects they came from.
    const out: JsonValue[] = new Array<JsonValue>(items.length);
    // SAFETY: i < items.length.
    for (let i = 0; i < items.length; i++) out[i] = (items[i] as Template).value;
    return new Template("copy", out);
  }
  const keys = Object.keys(value);
  // SAFETY: a non-array object; its own keys are read as a record.
  const record = value as Record<string, unknown>;
  const values: Template[] = new Array<Template>(keys.length);
  let literal = true;
  let folded = false;
  for (let i = 0; i < keys.length; i++) {
    // SAFETY: i < keys.length.
    const key = keys[i] as string;
    const item = compileTemplate(record[key], child(at, key), sink, depth + 1, context);
    values[i] = item;
    literal &&= isLiteral(item);
    folded ||= item.value !== record[key];
  }
  if (!literal) return new Template("object", null, keys, values);
  // SAFETY: as for arrays, a subtree without expressions is plain JSON.
  if (!folded) return new Template("copy", value as JsonValue);
  const out: JsonObject = {};
  // SAFETY: keys and values are parallel (filled together above).
  for (let i = 0; i < keys.length; i++) setOwn(out, keys[i] as string, (values[i] as Template).value);
  return new Template("copy", out);
}

function compileReference(
  kind: "input" | "state",
  argument: unknown,
  argAt: string,
  at: string,
  sink: Problem[] | null,
): Template {
  if (typeof argument !== "string") {
    return report(sink, argAt, `expected a dot-separated path string for $${kind}; got ${describe(argument)}`);
  }
  const problem = pathProblem(argument, true);
  if (problem !== null) return report(sink, argAt, problem);
  return new Template(kind, null, NO_KEYS, NO_ITEMS, splitPath(argument), argument, 0, 0, at);
}

function compileNumber(
  argument: unknown,
  argAt: string,
  at: string,
  sink: Problem[] | null,
  depth: number,
  context: TemplateContext,
): Template {
  const inner = compileTemplate(argument, argAt, sink, depth + 1, context);
  if (inner.t === "invalid") return inner;
  if (isLiteral(inner)) {
    // A literal is known now: fold it, or refuse the definition instead of failing at run time.
    const number = toNumber(inner.value);
    if (number === null) return report(sink, argAt, `$number expects ${EXPECTED_NUMBER}; got ${describe(inner.value)}`);
    return scalar(number);
  }
  if (inner.t === "object" || inner.t === "array") {
    return report(sink, argAt, `$number expects ${EXPECTED_NUMBER}; got an ${inner.t}`);
  }
  if (inner.t === "dateAdd")
    return report(sink, argAt, "$number expects a number, but $dateAdd produces a timestamp string");
  return new Template("number", null, NO_KEYS, [inner], NO_KEYS, "", 0, 0, at);
}

const DATE_ADD_KEYS: ReadonlySet<string> = new Set(["value", "days", "hours"]);

function compileDateAdd(
  argument: unknown,
  argAt: string,
  at: string,
  sink: Problem[] | null,
  depth: number,
  context: TemplateContext,
): Template {
  if (argument === null || typeof argument !== "object" || Array.isArray(argument)) {
    return report(sink, argAt, 'expected an object {"value": ..., "days"?: integer, "hours"?: integer} for $dateAdd');
  }
  // SAFETY: a non-array object, read as a record.
  const record = argument as Record<string, unknown>;
  let broken = false;
  for (const key of Object.keys(record)) {
    if (!DATE_ADD_KEYS.has(key)) {
      report(sink, child(argAt, key), `unknown key "${key}" in $dateAdd; expected only value, days and hours`);
      broken = true;
    }
  }
  const days = Object.hasOwn(record, "days") ? record.days : 0;
  const hours = Object.hasOwn(record, "hours") ? record.hours : 0;
  if (!isInteger(days, LIMITS.minDays, LIMITS.maxDays)) {
    report(
      sink,
      `${argAt}/days`,
      `expected an integer from ${LIMITS.minDays} to ${LIMITS.maxDays}; got ${describe(days)}`,
    );
    broken = true;
  }
  if (!isInteger(hours, LIMITS.minHours, LIMITS.maxHours)) {
    report(
      sink,
      `${argAt}/hours`,
      `expected an integer from ${LIMITS.minHours} to ${LIMITS.maxHours}; got ${describe(hours)}`,
    );
    broken = true;
  }
  if (!Object.hasOwn(record, "value")) {
    report(sink, `${argAt}/value`, "required: the date or timestamp to add to");
    return invalid("$dateAdd has no value", argAt);
  }
  const valueAt = `${argAt}/value`;
  const inner = compileTemplate(record.value, valueAt, sink, depth + 1, context);
  if (inner.t === "invalid") return inner;
  if (
    broken ||
    !isInteger(days, LIMITS.minDays, LIMITS.maxDays) ||
    !isInteger(hours, LIMITS.minHours, LIMITS.maxHours)
  ) {
    return invalid("$dateAdd is malformed", argAt);
  }
  if (isLiteral(inner)) {
    const result = dateAdd(inner.value, days, hours);
    if (!result.ok) return report(sink, valueAt, `$dateAdd: ${result.message}; got ${describe(inner.value)}`);
    return scalar(result.value);
  }
  if (inner.t === "object" || inner.t === "array" || inner.t === "number") {
    return report(
      sink,
      valueAt,
      `$dateAdd expects ${EXPECTED_DATE}; got ${inner.t === "number" ? "a $number" : `an ${inner.t}`}`,
    );
  }
  return new Template("dateAdd", null, NO_KEYS, [inner], NO_KEYS, "", days, hours, at);
}

function missing(kind: "input" | "state", path: string, at: string): RenderFailure {
  const where = kind === "input" ? "the arguments" : "the pre-call state";
  const message = `$${kind} "${path}" does not resolve in ${where}`;
  return new RenderFailure("missing_reference", message, [{ path: at, message }]);
}

/**
 * A value that $number or $dateAdd refuses. Whose fault it is depends on where it came from:
 * straight from the arguments, the agent sent it (a tool input error it can recover from);
 * from a literal, the state or another expression, the fixture is wrong (a harness error).
 */
function refused(source: Template, value: JsonValue, operator: string, expected: string, at: string): RenderFailure {
  if (source.t === "input") {
    const where = source.text === "" ? "the arguments" : `argument "${source.text}"`;
    const message = `${where} must be ${expected} (it feeds ${operator}); got ${describe(value)}`;
    return new RenderFailure("tool_input_error", message, [{ path: segmentsPointer(source.segments), message }]);
  }
  const origin = source.t === "state" ? `the state value at "${source.text}"` : "its value";
  const message = `${operator} expects ${expected}; ${origin} is ${describe(value)}`;
  return new RenderFailure("bad_literal", message, [{ path: at, message }]);
}

/**
 * Renders a compiled template against the arguments and the pre-call state. Throws RenderFailure;
 * the returned value shares nothing with the definition, the arguments or the state.
 */
export function render(t: Template, input: JsonValue, state: JsonValue, scope: RenderScope | null = null): JsonValue {
  switch (t.t) {
    case "scalar":
      return t.value;
    case "copy":
      return copyJson(t.value);
    case "object": {
      const out: JsonObject = {};
      const keys = t.keys;
      const items = t.items;
      for (let i = 0; i < keys.length; i++) {
        // SAFETY: keys and items are parallel arrays built together in compileTemplate.
        setOwn(out, keys[i] as string, render(items[i] as Template, input, state, scope));
      }
      return out;
    }
    case "array": {
      const items = t.items;
      const out: JsonValue[] = new Array<JsonValue>(items.length);
      // SAFETY: i < items.length.
      for (let i = 0; i < items.length; i++) out[i] = render(items[i] as Template, input, state, scope);
      return out;
    }
    case "input":
    case "state": {
      const value = resolvePath(t.t === "input" ? input : state, t.segments);
      if (value === undefined) throw missing(t.t, t.text, t.at);
      return value !== null && typeof value === "object" ? copyJson(value) : value;
    }
    case "number": {
      // SAFETY: number nodes are built with exactly one item, the inner template.
      const inner = t.items[0] as Template;
      const value = render(inner, input, state, scope);
      const number = toNumber(value);
      if (number === null) throw refused(inner, value, "$number", EXPECTED_NUMBER, `${t.at}/$number`);
      return number;
    }
    case "dateAdd": {
      // SAFETY: dateAdd nodes are built with exactly one item, the value template.
      const inner = t.items[0] as Template;
      const value = render(inner, input, state, scope);
      const result = dateAdd(value, t.days, t.hours);
      if (!result.ok) {
        throw refused(
          inner,
          value,
          "$dateAdd",
          `${EXPECTED_DATE} in years 0001..9999 (${result.message})`,
          `${t.at}/$dateAdd/value`,
        );
      }
      return result.value;
    }
    case "expr": {
      // SAFETY: expr nodes are built with their compiled expression.
      const evaluation = evaluate(t.expression as Expression, input, state, scope);
      if (evaluation.kind === "value") return evaluation.value;
      // A key that is not there, read outside a guarding condition: the fixture expected it.
      const kind = evaluation.kind === "missing" ? "missing_reference" : "expression_error";
      throw new RenderFailure(kind, evaluation.message, [{ path: `${t.at}/$expr`, message: evaluation.message }]);
    }
    case "invalid":
      throw new RenderFailure("bad_literal", t.text, [{ path: t.at, message: t.text }]);
  }
}

/** Evaluates a version-2 expression with the variables of the scope it runs in. */
export function evaluate(
  expression: Expression,
  input: JsonValue,
  state: JsonValue,
  scope: RenderScope | null,
): ReturnType<typeof evaluateExpression> {
  if (scope === null) {
    // Only a version-1 render has no scope, and version 1 never compiles expressions.
    throw new RenderFailure("internal", "a version-2 expression was rendered without its scope", []);
  }
  const variables: Record<string, unknown> = { input, state, before: scope.before };
  for (const name of Object.keys(scope.locals)) variables[name] = scope.locals[name];
  return evaluateExpression(expression, variables, scope.meter);
}
