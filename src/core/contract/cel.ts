/**
 * Version-2 expressions: CEL (the Common Expression Language), evaluated by @marcbachmann/cel-js,
 * which is non-Turing-complete, synchronous, and runs in workerd without eval (see "Choosing the
 * expression language" in docs/mock-definition.md for the comparison that chose it).
 *
 * What this module adds around the library:
 * - one environment with the variables a definition may read (input, state, before, and the
 *   names for_each binds) and the functions of cel-functions.ts;
 * - save-time limits: length, syntax-tree size, macro nesting, and type checking;
 * - the cost budget: every macro (map, filter, all, exists, exists_one) is metered by the number
 *   of elements it walks, before it walks them, and so is every function; a value handed back is
 *   metered by its size. cel-js has no step counter of its own, so the metering wraps each
 *   comprehension node's handler after type checking (test/core/contract/cel.test.ts proves the
 *   budget stops a walk, so a library upgrade that moved that handler would fail there);
 * - the conversion back to JSON (bigints to numbers, maps to objects), refusing what JSON
 *   cannot carry.
 */
import { Environment } from "@marcbachmann/cel-js";
import type { JsonObject, JsonValue, Problem } from "../json.js";
import { functionTable } from "./cel-functions.js";
import { RenderFailure } from "./failure.js";
import { LIMITS } from "./limits.js";
import { describe, setOwn } from "./values.js";

/** The cost budget of one call, shared by every expression, for_each and write in it. */
export class Meter {
  spent = 0;
  constructor(readonly limit: number = LIMITS.costBudget) {}

  charge(units: number, what: string, at: string): void {
    this.spent += units;
    if (this.spent > this.limit) {
      const message = `the call exceeded its cost budget of ${this.limit} units (${what} at ${at || "/"} brought it to ${this.spent}); the budget counts elements walked, values built and writes made`;
      throw new RenderFailure("cost_budget", message, [{ path: at, message }]);
    }
  }
}

/** Names an expression always sees. Loop names from for_each come on top. */
const BASE_VARIABLES: readonly string[] = ["input", "state", "before"];
const LOOP_NAME = /^[a-z_][a-z0-9_]{0,31}$/;
const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...BASE_VARIABLES,
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
  "has",
  "dyn",
  "int",
  "uint",
  "double",
  "string",
  "bytes",
  "bool",
  "list",
  "map",
  "type",
  "cel",
]);

/** Why `name` cannot be a for_each loop name, or null. */
export function loopNameProblem(name: unknown): string | null {
  if (typeof name !== "string" || !LOOP_NAME.test(name)) {
    return `expected a loop name of 1 to 32 characters from a-z 0-9 _ (not starting with a digit); got ${describe(name)}`;
  }
  if (RESERVED_NAMES.has(name))
    return `"${name}" is reserved (input, state, before and CEL's own words cannot be loop names)`;
  return null;
}

// The evaluation in progress: cel-js calls functions and macros synchronously inside one
// evaluate(), so a module-level slot is enough to reach the call's meter from inside them.
let active: { meter: Meter; at: string } | null = null;

function chargeActive(units: number, what: string): void {
  if (active !== null) active.meter.charge(units, what, active.at);
}

function baseEnvironment(): Environment {
  let env = new Environment({
    homogeneousAggregateLiterals: false,
    limits: {
      maxAstNodes: LIMITS.maxExpressionNodes,
      maxDepth: 32,
      maxListElements: 200,
      maxMapEntries: 200,
      maxCallArguments: 8,
    },
  });
  for (const name of BASE_VARIABLES) env = env.registerVariable(name, "dyn");
  // JSON numbers arrive as doubles and integer literals are ints; CEL alone refuses to mix them
  // (`price * 2`), which would make every definition write 2.0. Mixed arithmetic gives a double.
  const arithmetic: Record<string, (a: number, b: number) => number> = {
    "+": (a, b) => a + b,
    "-": (a, b) => a - b,
    "*": (a, b) => a * b,
    "/": (a, b) => a / b,
  };
  for (const [op, apply] of Object.entries(arithmetic)) {
    env = env
      .registerOperator(`double ${op} int`, (a: number, b: bigint) => apply(a, Number(b)))
      .registerOperator(`int ${op} double`, (a: bigint, b: number) => apply(Number(a), b));
  }
  for (const [signature, handler] of functionTable(chargeActive)) env = env.registerFunction(signature, handler);
  return env;
}

let base: Environment | null = null;
const environments = new Map<string, Environment>();

/** The environment for expressions that also see `locals` (for_each names), built once per set. */
function environmentFor(locals: readonly string[]): Environment {
  base ??= baseEnvironment();
  if (locals.length === 0) return base;
  const key = locals.join(",");
  let env = environments.get(key);
  if (env === undefined) {
    env = base.clone();
    for (const name of locals) env = env.registerVariable(name, "dyn");
    environments.set(key, env);
  }
  return env;
}

type Program = ReturnType<Environment["parse"]>;

export interface Expression {
  readonly source: string;
  readonly program: Program;
  /** JSON Pointer of the expression in the definition. */
  readonly at: string;
}

interface AstLike {
  op?: unknown;
  args?: unknown;
  meta?: { alternate?: unknown };
  handle?: unknown;
}

/**
 * Walks a checked syntax tree (macros are reached through their expansion, meta.alternate),
 * wraps every comprehension's handler with metering, and answers the deepest macro nesting.
 */
function instrument(node: unknown, depth: number, seen: Set<object>): number {
  if (node === null || typeof node !== "object" || seen.has(node)) return depth;
  seen.add(node);
  if (Array.isArray(node)) {
    let deepest = depth;
    for (const item of node) deepest = Math.max(deepest, instrument(item, depth, seen));
    return deepest;
  }
  // SAFETY: cel-js AST nodes and their argument records, read field by field.
  const ast = node as AstLike;
  let inner = depth;
  if (ast.op === "comprehension") {
    inner = depth + 1;
    const handle = ast.handle;
    if (typeof handle !== "function") throw new Error("cel-js no longer exposes a comprehension handler to meter");
    ast.handle = function metered(this: unknown, items: unknown, ...rest: unknown[]): unknown {
      const size = Array.isArray(items)
        ? items.length
        : items !== null && typeof items === "object"
          ? Object.keys(items).length
          : 0;
      chargeActive(size, "a macro walking a collection");
      // SAFETY: the wrapped handler is the library's own, called with the arguments it was given.
      return (handle as (...args: unknown[]) => unknown).call(this, items, ...rest);
    };
  }
  let deepest = inner;
  const alternate = ast.meta?.alternate;
  if (alternate !== undefined) deepest = Math.max(deepest, instrument(alternate, inner, seen));
  if (ast.args !== undefined) deepest = Math.max(deepest, instrument(ast.args, inner, seen));
  if (ast.op === undefined) {
    // An argument record of a comprehension ({iterable, step, ...}): walk its values.
    for (const value of Object.values(node)) deepest = Math.max(deepest, instrument(value, inner, seen));
  }
  return deepest;
}

function errorSummary(error: unknown): string {
  if (error !== null && typeof error === "object") {
    const summary =
      "summary" in error && typeof error.summary === "string"
        ? error.summary
        : "message" in error
          ? String(error.message)
          : describe(error);
    const range = "range" in error ? (error.range as { start?: unknown } | undefined) : undefined;
    const where = typeof range?.start === "number" ? ` (at character ${range.start + 1})` : "";
    return `${summary.split("\n")[0] ?? ""}${where}`;
  }
  return String(error);
}

/**
 * Compiles one expression found at JSON Pointer `at`: parsed, type-checked against the names it
 * may read, checked against the limits and metered. Problems go to `sink` when given; the answer
 * is null when the expression cannot be used.
 */
export function compileExpression(
  source: unknown,
  locals: readonly string[],
  at: string,
  sink: Problem[] | null,
): Expression | string {
  const fail = (message: string): string => {
    sink?.push({ path: at, message });
    return message;
  };
  if (typeof source !== "string") return fail(`expected a CEL expression (a string); got ${describe(source)}`);
  if (source.trim() === "") return fail("expected a CEL expression; got an empty string");
  if (source.length > LIMITS.maxExpressionLength) {
    return fail(`expected at most ${LIMITS.maxExpressionLength} characters in an expression; got ${source.length}`);
  }
  let program: Program;
  try {
    program = environmentFor(locals).parse(source);
  } catch (error) {
    return fail(`the expression does not parse: ${errorSummary(error)}`);
  }
  const checked = program.check();
  if (!checked.valid) return fail(`the expression does not type-check: ${errorSummary(checked.error)}`);
  let nesting: number;
  try {
    nesting = instrument(program.ast, 0, new Set());
  } catch (error) {
    return fail(`the expression cannot be metered: ${errorSummary(error)}`);
  }
  if (nesting > LIMITS.maxMacroNesting) {
    return fail(
      `expected macros (map, filter, all, exists, exists_one) nested at most ${LIMITS.maxMacroNesting} deep; this expression nests ${nesting}`,
    );
  }
  return { source, program, at };
}

/** What evaluating an expression gave: a JSON value, a missing key, or another failure. */
type Evaluation =
  | { readonly kind: "value"; readonly value: JsonValue }
  | { readonly kind: "missing"; readonly message: string }
  | { readonly kind: "error"; readonly message: string };

const MISSING_CODES: ReadonlySet<string> = new Set(["no_such_key", "index_out_of_bounds", "index_out_of_range"]);

/**
 * Evaluates against `variables` (input, state, before and loop names) and converts the answer to
 * JSON, charging `meter`. A RenderFailure (the budget) is thrown; everything else is answered.
 */
export function evaluateExpression(
  expression: Expression,
  variables: Record<string, unknown>,
  meter: Meter,
): Evaluation {
  const previous = active;
  active = { meter, at: expression.at };
  try {
    meter.charge(1, "an expression", expression.at);
    const raw: unknown = expression.program(variables);
    // A quantifier (exists, all) catches errors inside its predicate, the budget's among them;
    // every later charge still fails, so the work stays bounded, and this makes the verdict stick.
    if (meter.spent > meter.limit) meter.charge(0, "an expression", expression.at);
    return toJson(raw, meter, expression.at);
  } catch (error) {
    if (error instanceof RenderFailure) throw error;
    if (meter.spent > meter.limit) meter.charge(0, "an expression", expression.at);
    // cel-js wraps a failure inside a function (our RenderFailure from the budget included) as its cause.
    if (error !== null && typeof error === "object" && "cause" in error && error.cause instanceof RenderFailure)
      throw error.cause;
    const code = error !== null && typeof error === "object" && "code" in error ? String(error.code) : "";
    const message = `$expr ${JSON.stringify(expression.source)}: ${errorSummary(error)}`;
    return MISSING_CODES.has(code) ? { kind: "missing", message } : { kind: "error", message };
  } finally {
    active = previous;
  }
}

function toJson(raw: unknown, meter: Meter, at: string): Evaluation {
  const problem: { message: string | null } = { message: null };
  const value = convert(raw, meter, at, problem, 0);
  if (problem.message !== null) return { kind: "error", message: problem.message };
  return { kind: "value", value };
}

function convert(
  raw: unknown,
  meter: Meter,
  at: string,
  problem: { message: string | null },
  depth: number,
): JsonValue {
  meter.charge(1, "a value handed back", at);
  if (depth > LIMITS.maxNesting) {
    problem.message ??= `the expression at ${at} produced a value nested deeper than ${LIMITS.maxNesting} levels`;
    return null;
  }
  if (raw === null || typeof raw === "string" || typeof raw === "boolean") return raw;
  if (typeof raw === "number") {
    if (Number.isFinite(raw)) return raw;
    problem.message ??= `the expression at ${at} produced ${String(raw)}, which is not a JSON number (a division by zero?)`;
    return null;
  }
  if (typeof raw === "bigint") {
    const number = Number(raw);
    if (Number.isSafeInteger(number)) return number;
    problem.message ??= `the expression at ${at} produced the integer ${raw}, beyond what a JSON number holds exactly`;
    return null;
  }
  if (Array.isArray(raw)) return raw.map((item) => convert(item, meter, at, problem, depth + 1));
  if (typeof raw === "object") {
    const proto: unknown = Object.getPrototypeOf(raw);
    if (proto === Object.prototype || proto === null) {
      const out: JsonObject = {};
      // SAFETY: a plain object or a CEL map built as a null-prototype object.
      const record = raw as Record<string, unknown>;
      for (const key of Object.keys(record)) setOwn(out, key, convert(record[key], meter, at, problem, depth + 1));
      return out;
    }
  }
  const kind =
    raw instanceof Uint8Array
      ? "bytes"
      : raw instanceof Date
        ? "a timestamp"
        : typeof raw === "object"
          ? "a CEL value of its own type"
          : typeof raw;
  problem.message ??= `the expression at ${at} produced ${kind}, which JSON cannot carry (convert it with string() or int())`;
  return null;
}
