/**
 * Version-2 set_state: an ordered list of writes (set, merge, append, remove, for_each), each at
 * a path whose segments may be computed from the arguments, the state or a for_each element.
 * Writes apply one after another, and each sees the state the writes before it left, as the
 * code of a real tool would.
 *
 * The state handed to a call is never modified. Writing copies only the containers on the path
 * written (once per call), so a call on a large state costs what it touches, not the state's size;
 * the new state shares every untouched part with the old one, and both are treated as immutable.
 */
import type { JsonObject, JsonValue, Problem } from "../json.js";
import type { WrittenRecords } from "../datasets/records.js";
import { isJsonObject, jsonEqual } from "../json.js";
import { compileExpression, loopNameProblem, type Expression } from "./cel.js";
import {
  compileTemplate,
  evaluate,
  RenderFailure,
  render,
  type RenderScope,
  type Template,
  type TemplateContext,
} from "./expressions.js";
import { LIMITS } from "./limits.js";
import { FORBIDDEN_SEGMENTS, pathProblem, splitPath } from "./paths.js";
import { child, describe, jsonTypeOf, setOwn } from "./values.js";

type Segment =
  | { readonly literal: string; readonly template: null }
  | { readonly literal: null; readonly template: Template };

type WriteOp = "set" | "merge" | "append" | "remove" | "for_each" | "invalid";

export interface CompiledWrite {
  readonly op: WriteOp;
  readonly path: readonly Segment[];
  readonly value: Template | null;
  readonly guard: Expression | null;
  readonly each: Expression | null;
  readonly as: string;
  readonly writes: readonly CompiledWrite[];
  /** JSON Pointer of the write in the definition. */
  readonly at: string;
  /** Why an invalid write is invalid (only reachable without the parser). */
  readonly problem: string;
}

const OPS: readonly WriteOp[] = ["set", "merge", "append", "remove", "for_each"];
const KEYS: Record<string, readonly string[]> = {
  set: ["set", "value", "if"],
  merge: ["merge", "value", "if"],
  append: ["append", "value", "if"],
  remove: ["remove", "if"],
  for_each: ["for_each", "as", "writes", "if"],
};

function invalidWrite(at: string, problem: string): CompiledWrite {
  return { op: "invalid", path: [], value: null, guard: null, each: null, as: "", writes: [], at, problem };
}

interface Budget {
  writes: number;
}

/**
 * Compiles a version-2 set_state list found at `at`. Problems go to `sink` when given (the
 * parser); without one, a broken write becomes a harness error when it is applied.
 */
export function compileWrites(
  raw: unknown,
  at: string,
  sink: Problem[] | null,
  locals: readonly string[] = [],
  budget: Budget = { writes: 0 },
): CompiledWrite[] {
  if (!Array.isArray(raw)) {
    const message = `expected a list of writes ({"set"|"merge"|"append"|"remove"|"for_each": ...}); got ${jsonTypeOf(raw)}`;
    sink?.push({ path: at, message });
    return [invalidWrite(at, message)];
  }
  const out: CompiledWrite[] = [];
  raw.forEach((item: unknown, index: number) => {
    const writeAt = `${at}/${index}`;
    budget.writes++;
    if (budget.writes === LIMITS.maxWrites + 1) {
      sink?.push({
        path: writeAt,
        message: `expected at most ${LIMITS.maxWrites} writes in one set_state, counting those inside for_each`,
      });
    }
    out.push(compileWrite(item, writeAt, sink, locals, budget));
  });
  return out;
}

function compileWrite(
  raw: unknown,
  at: string,
  sink: Problem[] | null,
  locals: readonly string[],
  budget: Budget,
): CompiledWrite {
  const fail = (path: string, message: string): CompiledWrite => {
    sink?.push({ path, message });
    return invalidWrite(at, message);
  };
  if (!isJsonObject(raw))
    return fail(at, `expected a write object such as {"set": path, "value": ...}; got ${jsonTypeOf(raw)}`);
  const ops = OPS.filter((op) => Object.hasOwn(raw, op));
  if (ops.length !== 1) {
    return fail(
      at,
      `expected exactly one of set, merge, append, remove, for_each in a write; found ${ops.length === 0 ? "none" : ops.join(", ")}`,
    );
  }
  // SAFETY: ops holds exactly one element (checked above).
  const op = ops[0] as Exclude<WriteOp, "invalid">;
  let broken = false;
  const allowed = KEYS[op] ?? [];
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key)) {
      sink?.push({
        path: child(at, key),
        message: `unknown key "${key}" in a ${op} write; expected only ${allowed.join(", ")}`,
      });
      broken = true;
    }
  }
  const context: TemplateContext = { version: 2, locals };
  let guard: Expression | null = null;
  if (Object.hasOwn(raw, "if")) {
    const compiled = compileExpression(raw.if, locals, `${at}/if`, sink);
    if (typeof compiled === "string") broken = true;
    else guard = compiled;
  }
  if (op === "for_each") {
    const each = compileExpression(raw.for_each, locals, `${at}/for_each`, sink);
    const nameProblem =
      loopNameProblem(raw.as) ??
      (locals.includes(String(raw.as)) ? `"${String(raw.as)}" is already bound by an enclosing for_each` : null);
    if (!Object.hasOwn(raw, "as"))
      sink?.push({ path: `${at}/as`, message: "required: the name each element is bound to" });
    else if (nameProblem !== null) sink?.push({ path: `${at}/as`, message: nameProblem });
    if (locals.length + 1 > LIMITS.maxForEachNesting) {
      sink?.push({ path: at, message: `expected for_each nested at most ${LIMITS.maxForEachNesting} deep` });
      broken = true;
    }
    if (!Object.hasOwn(raw, "writes")) {
      sink?.push({ path: `${at}/writes`, message: "required: the list of writes to make for each element" });
      broken = true;
    }
    const name = typeof raw.as === "string" ? raw.as : "";
    const writes = compileWrites(raw.writes ?? [], `${at}/writes`, sink, [...locals, name], budget);
    if (broken || typeof each === "string" || nameProblem !== null || !Object.hasOwn(raw, "as"))
      return invalidWrite(at, "this for_each is malformed");
    return { op, path: [], value: null, guard, each, as: name, writes, at, problem: "" };
  }
  const path = compilePath(raw[op], `${at}/${op}`, sink, context);
  let value: Template | null = null;
  if (op !== "remove") {
    if (!Object.hasOwn(raw, "value")) {
      sink?.push({ path: `${at}/value`, message: `required: the value to ${op}` });
      broken = true;
    } else {
      value = compileTemplate(raw.value, `${at}/value`, sink, 0, context);
      if (value.t === "invalid") broken = true;
    }
  }
  if (broken || path === null) return invalidWrite(at, `this ${op} write is malformed`);
  return { op, path, value, guard, each: null, as: "", writes: [], at, problem: "" };
}

/** A dotted string (fixed keys) or a list of segments: strings, indices or computing templates. */
function compilePath(raw: unknown, at: string, sink: Problem[] | null, context: TemplateContext): Segment[] | null {
  if (typeof raw === "string") {
    const problem = pathProblem(raw, false);
    if (problem !== null) {
      sink?.push({ path: at, message: problem });
      return null;
    }
    return splitPath(raw).map((literal) => ({ literal, template: null }));
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    sink?.push({ path: at, message: `expected a dotted path or a non-empty list of segments; got ${describe(raw)}` });
    return null;
  }
  const segments: Segment[] = [];
  let ok = true;
  raw.forEach((item: unknown, index: number) => {
    const itemAt = `${at}/${index}`;
    if (typeof item === "string") {
      if (FORBIDDEN_SEGMENTS.has(item)) {
        sink?.push({
          path: itemAt,
          message: `path segment "${item}" is not allowed (__proto__, prototype and constructor are reserved)`,
        });
        ok = false;
      }
      segments.push({ literal: item, template: null });
    } else if (typeof item === "number" && Number.isInteger(item) && item >= 0) {
      segments.push({ literal: String(item), template: null });
    } else if (isJsonObject(item)) {
      const template = compileTemplate(item, itemAt, sink, 0, context);
      if (template.t === "invalid") ok = false;
      else if (template.t !== "expr" && template.t !== "input" && template.t !== "state") {
        sink?.push({
          path: itemAt,
          message:
            'expected a computed segment ({"$expr": ...}, {"$input": ...} or {"$state": ...}); got another object',
        });
        ok = false;
      }
      segments.push({ literal: null, template });
    } else {
      sink?.push({
        path: itemAt,
        message: `expected a key (string), an index (whole number from 0) or a computed segment; got ${describe(item)}`,
      });
      ok = false;
    }
  });
  return ok ? segments : null;
}

/** The state being written by one call: containers already copied in this call are written in place. */
export class WorkingState {
  root: JsonObject;
  changed = false;
  private readonly copied = new Set<object>();

  /** `written`: where the collections this call copies, and the records it writes into them, are noted (for the attempt's record diff). */
  constructor(
    state: JsonObject,
    private readonly written: WrittenRecords | null = null,
  ) {
    this.root = state;
  }

  /** A copy of `container` this call owns (the same object once it has been copied). */
  own<T extends JsonObject | JsonValue[]>(container: T): T {
    if (this.copied.has(container)) return container;
    // A spread defines own data properties, so a "__proto__" key stays data.
    // SAFETY: a shallow copy has the same shape as the original.
    const copy = (Array.isArray(container) ? container.slice() : { ...container }) as T;
    this.copied.add(copy);
    return copy;
  }

  /** own() for a collection (a value right under the root): a new copy is tracked in `written`. */
  ownCollection<T extends JsonObject | JsonValue[]>(container: T): T {
    const copy = this.own(container);
    if (this.written !== null && copy !== container && !Array.isArray(copy))
      this.written.track(copy, container as JsonObject);
    return copy;
  }

  /** About to set or remove `key` of `container`, a container this call owns. */
  noteWrite(container: JsonObject | JsonValue[], key: string): void {
    this.written?.note(container, key);
  }

  fresh<T extends object>(container: T): T {
    this.copied.add(container);
    return container;
  }
}

function failure(kind: "missing_reference" | "expression_error", message: string, at: string): RenderFailure {
  return new RenderFailure(kind, message, [{ path: at, message }]);
}

/** Applies `writes` in order to `work`. Throws RenderFailure for a write that cannot be made. */
export function applyWrites(
  writes: readonly CompiledWrite[],
  input: JsonObject,
  work: WorkingState,
  scope: RenderScope,
): void {
  for (const write of writes) {
    scope.meter.charge(1, "a write", write.at);
    if (write.op === "invalid")
      throw new RenderFailure("bad_literal", write.problem, [{ path: write.at, message: write.problem }]);
    if (write.guard !== null && !guardHolds(write.guard, input, work.root, scope)) continue;
    if (write.op === "for_each") {
      forEach(write, input, work, scope);
      continue;
    }
    const segments = renderPath(write, input, work.root, scope);
    const value = write.value === null ? null : render(write.value, input, work.root, scope);
    const problem = writeAt(work, segments, write.op, value);
    if (problem !== null) throw failure("missing_reference", problem, write.at);
  }
}

function guardHolds(guard: Expression, input: JsonObject, state: JsonObject, scope: RenderScope): boolean {
  const evaluation = evaluate(guard, input, state, scope);
  if (evaluation.kind === "missing") return false;
  if (evaluation.kind === "error") throw failure("expression_error", evaluation.message, guard.at);
  if (typeof evaluation.value !== "boolean") {
    throw failure(
      "expression_error",
      `"if" must be true or false; ${JSON.stringify(guard.source)} gave ${describe(evaluation.value)}`,
      guard.at,
    );
  }
  return evaluation.value;
}

function forEach(write: CompiledWrite, input: JsonObject, work: WorkingState, scope: RenderScope): void {
  // SAFETY: for_each writes are compiled with their expression.
  const each = write.each as Expression;
  const evaluation = evaluate(each, input, work.root, scope);
  if (evaluation.kind !== "value")
    throw failure(
      evaluation.kind === "missing" ? "missing_reference" : "expression_error",
      evaluation.message,
      each.at,
    );
  const items = evaluation.value;
  if (!Array.isArray(items)) {
    throw failure(
      "expression_error",
      `for_each needs a list; ${JSON.stringify(each.source)} gave ${jsonTypeOf(items)} (use keys() or values() for a map)`,
      each.at,
    );
  }
  for (const item of items) {
    scope.meter.charge(1, "a for_each element", write.at);
    const locals = { ...scope.locals, [write.as]: item };
    applyWrites(write.writes, input, work, { before: scope.before, locals, meter: scope.meter });
  }
}

function renderPath(write: CompiledWrite, input: JsonObject, state: JsonObject, scope: RenderScope): string[] {
  return write.path.map((segment) => {
    if (segment.template === null) return segment.literal;
    const value = render(segment.template, input, state, scope);
    if (typeof value === "string" && !FORBIDDEN_SEGMENTS.has(value)) return value;
    if (typeof value === "number" && Number.isInteger(value) && value >= 0) return String(value);
    throw failure(
      "expression_error",
      `a path segment must be a key (string) or an index (whole number from 0); ${segment.template.at} gave ${describe(value)}`,
      segment.template.at,
    );
  });
}

const INDEX = /^[0-9]+$/;

function isContainer(value: JsonValue | undefined): value is JsonObject | JsonValue[] {
  return value !== null && typeof value === "object";
}

function readChild(container: JsonObject | JsonValue[], segment: string): JsonValue | undefined {
  if (Array.isArray(container)) return INDEX.test(segment) ? container[Number(segment)] : undefined;
  return Object.hasOwn(container, segment) ? container[segment] : undefined;
}

/** Puts `value` at `segment` of a container this call owns; null or a message when it cannot. */
function putChild(
  work: WorkingState,
  container: JsonObject | JsonValue[],
  segment: string,
  value: JsonValue,
  path: readonly string[],
  depth: number,
): string | null {
  if (Array.isArray(container)) {
    const index = INDEX.test(segment) ? Number(segment) : Number.NaN;
    if (!(index <= container.length)) {
      return `cannot write "${path.join(".")}": the state holds an array of length ${container.length} at "${path.slice(0, depth).join(".")}", which "${segment}" does not index (use an existing index or the length to append)`;
    }
    container[index] = value;
    return null;
  }
  work.noteWrite(container, segment);
  setOwn(container, segment, value);
  return null;
}

/**
 * Makes one set, merge, append or remove at `segments`. Containers on the way are copied into
 * this call's state once; missing ones (or scalars in the way) become objects, as in version 1.
 */
function writeAt(work: WorkingState, segments: readonly string[], op: WriteOp, value: JsonValue | null): string | null {
  const last = segments.length - 1;
  // SAFETY: paths have at least one segment (compilePath refuses empty ones).
  const key = segments[last] as string;
  const current = resolve(work.root, segments);
  // Nothing to do: keep the state (and the copies) as they are.
  if (op === "set" && current !== undefined && value !== null && jsonEqual(current, value)) return null;
  if (op === "set" && current === null && value === null) return null;
  if (op === "remove" && current === undefined) return null;
  if (op === "merge") {
    if (!isJsonObject(value))
      return `cannot merge into "${segments.join(".")}": the value to merge is ${jsonTypeOf(value)}, not an object`;
    if (current !== undefined && !isJsonObject(current))
      return `cannot merge into "${segments.join(".")}": the state holds ${jsonTypeOf(current)} there, not an object`;
  }
  if (op === "merge" && isJsonObject(current) && isJsonObject(value)) {
    const patch = value;
    if (
      Object.keys(patch).every(
        (name) => Object.hasOwn(current, name) && jsonEqual(current[name] as JsonValue, patch[name] as JsonValue),
      )
    )
      return null;
  }
  if (op === "append" && current !== undefined && !Array.isArray(current)) {
    return `cannot append to "${segments.join(".")}": the state holds ${jsonTypeOf(current)} there, not an array`;
  }

  work.root = work.own(work.root);
  let container: JsonObject | JsonValue[] = work.root;
  for (let i = 0; i < last; i++) {
    // SAFETY: i < last < segments.length.
    const segment = segments[i] as string;
    const next = readChild(container, segment);
    const owned: JsonObject | JsonValue[] = !isContainer(next)
      ? work.fresh({})
      : i === 0
        ? work.ownCollection(next)
        : work.own(next);
    const problem = putChild(work, container, segment, owned, segments, i);
    if (problem !== null) return problem;
    container = owned;
  }
  work.changed = true;
  switch (op) {
    case "set":
      return putChild(work, container, key, value, segments, last);
    case "merge": {
      const target: JsonObject = current === undefined ? work.fresh({}) : work.own(current as JsonObject);
      // SAFETY: checked above that value is an object.
      const patch = value as JsonObject;
      for (const name of Object.keys(patch)) {
        work.noteWrite(target, name);
        setOwn(target, name, patch[name] as JsonValue);
      }
      return putChild(work, container, key, target, segments, last);
    }
    case "append": {
      const target: JsonValue[] = current === undefined ? work.fresh([]) : work.own(current as JsonValue[]);
      target.push(value);
      return putChild(work, container, key, target, segments, last);
    }
    case "remove":
      if (Array.isArray(container)) container.splice(Number(key), 1);
      else {
        work.noteWrite(container, key);
        delete container[key];
      }
      return null;
    default:
      return `cannot ${op} here`;
  }
}

function resolve(root: JsonValue, segments: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = root;
  for (const segment of segments) {
    if (!isContainer(current)) return undefined;
    current = readChild(current, segment);
  }
  return current;
}
