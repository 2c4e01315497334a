/**
 * What every piece of client JSON must satisfy before anything else walks it: bounded nesting,
 * numbers JSON can carry, and (where it becomes a key, a header or a stored id) well-formed
 * Unicode. Every parser of client input (request bodies, dispatch arguments, policy files) runs
 * this one check, so the rest of the code may walk a document recursively without fear of a
 * stack overflow. The check itself is iterative: a value nested a million levels deep (or a YAML
 * alias that contains itself) is refused, never a crash.
 */
import { pointer, pointerToken, type Problem } from "./json.js";
import { walkJsonText } from "./json-text-walk.js";

/**
 * Levels of arrays and objects a JSON document may nest: a request body, and the arguments of a
 * call. The document itself is level 1, so `{"a": [1]}` nests 2 levels. A mock definition keeps
 * its own, lower bound (LIMITS.maxNesting) inside this one.
 */
export const MAX_JSON_DEPTH = 100;

/** A few problems locate the mistake; a document with thousands of them needs no full list. */
export const MAX_PROBLEMS = 20;

/** Lone UTF-16 surrogates: in a `u` regular expression a well-formed pair is one code point and never matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;
const EVERY_LONE_SURROGATE = /\p{Surrogate}/gu;

/** The problems as one line: the first in full, and how many more there are. */
export function problemSummary(problems: readonly Problem[]): string {
  const first = problems[0];
  if (first === undefined) return "no problem";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  return `${first.path || "/"}: ${first.message}${more}`;
}

interface JsonInputOptions {
  /** Deepest nesting allowed (default MAX_JSON_DEPTH). */
  maxDepth?: number;
  /** Refuse strings and object keys that are not well-formed Unicode (String.prototype.isWellFormed). */
  wellFormed?: boolean;
  /**
   * Refuse object keys (only) that are not well-formed Unicode: a call's arguments keep a lone
   * surrogate in a value as the tool's data, but a key must name a field, in schema paths and
   * evidence alike, and D1 would turn two such keys into the same text.
   */
  wellFormedKeys?: boolean;
  /** What the value is, for the depth message ("a request body", "the arguments"). */
  what?: string;
}

/** Is `text` well-formed Unicode (no lone surrogate), as String.prototype.isWellFormed answers? */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** `text` with each lone surrogate replaced by U+FFFD, as String.prototype.toWellFormed does. */
export function toWellFormedText(text: string): string {
  return text.replace(EVERY_LONE_SURROGATE, "\uFFFD");
}

/** How every string that is not well-formed is refused (dispatch names use it too: dispatch-request.ts). */
export const NOT_WELL_FORMED =
  "expected well-formed Unicode text: this string has a lone UTF-16 surrogate, which cannot be stored";

/** How every non-finite number is refused (the start of the message). */
export const NOT_FINITE = "expected a finite number";

/** The depth message, naming the limit, so every route says it the same way. */
export function tooDeepMessage(what: string, maxDepth: number): string {
  return `nested deeper than ${maxDepth} levels of arrays and objects (the limit for ${what})`;
}

interface Frame {
  readonly value: object;
  readonly depth: number;
  readonly parent: Frame | null;
  /** The reference token from the parent to this value. */
  readonly token: string;
}

function isAncestor(frame: Frame | null, value: object): boolean {
  for (let f = frame; f !== null; f = f.parent) if (f.value === value) return true;
  return false;
}

function pathOf(frame: Frame | null, token?: string): string {
  let path = token === undefined ? "" : `/${pointerToken(token)}`;
  for (let f = frame; f !== null && f.parent !== null; f = f.parent) path = `/${pointerToken(f.token)}${path}`;
  return path;
}

/**
 * Everything wrong with `value` as client JSON (up to 20 problems, each at a JSON Pointer into
 * the value): nesting past the limit, numbers that are not finite (JSON.parse reads 1e400 as
 * Infinity, which JSON.stringify would silently write as null), values JSON cannot express
 * (undefined, functions, class instances: only reachable from callers that did not parse JSON)
 * and, with `wellFormed`, lone surrogates in strings and keys. An empty list means it is fine.
 */
export function jsonInputProblems(value: unknown, options: JsonInputOptions = {}): Problem[] {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const wellFormed = options.wellFormed === true;
  const wellFormedKeys = wellFormed || options.wellFormedKeys === true;
  const what = options.what ?? "a JSON document";
  const problems: Problem[] = [];
  const report = (parent: Frame | null, token: string | undefined, message: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push({ path: pathOf(parent, token), message });
  };
  const checkScalar = (item: unknown, parent: Frame | null, token: string | undefined): object | null => {
    switch (typeof item) {
      case "string":
        if (wellFormed && !isWellFormedText(item)) report(parent, token, NOT_WELL_FORMED);
        return null;
      case "number":
        if (!Number.isFinite(item)) {
          report(
            parent,
            token,
            `${NOT_FINITE}; this one is out of the range a JSON number can carry (it reads as ${String(item)})`,
          );
        }
        return null;
      case "boolean":
        return null;
      case "object":
        if (item === null) return null;
        if (Array.isArray(item)) return item;
        {
          const proto: unknown = Object.getPrototypeOf(item);
          if (proto === Object.prototype || proto === null) return item;
        }
        report(parent, token, "expected a JSON value; got an instance of a class");
        return null;
      default:
        report(parent, token, `expected a JSON value; got ${typeof item}`);
        return null;
    }
  };
  const root = checkScalar(value, null, undefined);
  if (root === null) return problems;
  const stack: Frame[] = [{ value: root, depth: 1, parent: null, token: "" }];
  // JSON.parse never shares a container; YAML aliases do. A container met twice is walked again
  // (its depth depends on the path), unless it is its own ancestor: a cycle, which would
  // otherwise multiply the walk before the depth bound stops it.
  const seen = new Set<object>([root]);
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    // SAFETY: the stack is not empty (checked by the loop condition).
    const frame = stack.pop() as Frame;
    if (frame.depth > maxDepth) {
      report(frame.parent, frame.token, tooDeepMessage(what, maxDepth));
      continue;
    }
    // Scalars are checked in document order; containers go on the stack reversed, so they are
    // visited in document order too.
    const containers: Frame[] = [];
    if (Array.isArray(frame.value)) {
      const items: unknown[] = frame.value;
      for (let i = 0; i < items.length; i++) {
        const container = checkScalar(items[i], frame, String(i));
        if (container !== null)
          containers.push({ value: container, depth: frame.depth + 1, parent: frame, token: String(i) });
      }
    } else {
      // SAFETY: a plain object (checkScalar let only arrays and plain objects through), read as a record.
      const record = frame.value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (wellFormedKeys && !isWellFormedText(key)) {
          report(frame, key, `${NOT_WELL_FORMED} (in the key)`);
          continue;
        }
        const container = checkScalar(record[key], frame, key);
        if (container !== null)
          containers.push({ value: container, depth: frame.depth + 1, parent: frame, token: key });
      }
    }
    const walk: Frame[] = [];
    for (const next of containers) {
      if (seen.has(next.value) && isAncestor(frame, next.value)) {
        report(
          frame,
          next.token,
          "expected a JSON value; this value contains itself (a YAML alias inside its own anchor)",
        );
        continue;
      }
      seen.add(next.value);
      walk.push(next);
    }
    for (let i = walk.length - 1; i >= 0; i--) stack.push(walk[i] as Frame);
  }
  return problems;
}

const FRACTION_OR_EXPONENT = /[.eE]/;

/**
 * Why the whole number written as `literal` (decimal digits, an optional minus) would be kept as
 * another number once read as a double, or undefined when it reads as itself: exactly, or as the
 * very text JavaScript writes for that double. YAML's reader (policy/parse-text.ts) shares the rule.
 */
export function wholeNumberLoss(literal: string): string | undefined {
  // Up to 15 digits, every whole number reads exactly.
  if (literal.length < 16) return undefined;
  const read = Number(literal);
  if (!Number.isFinite(read) || BigInt(literal) === BigInt(read) || String(read) === literal) return undefined;
  return `the whole number ${literal} is past 2^53 and reads as ${String(read)}, so it would be kept as another number; send it as a string`;
}

/**
 * What a JSON text says that the value JSON.parse made of it no longer shows, each a place where
 * the value would silently differ from what was sent:
 * - a key written twice in one object: JSON.parse keeps the last, and the other value is gone.
 * - a whole number past 2^53 that is not itself a double, written without a fraction or an
 *   exponent: 9007199254740993 reads as 9007199254740992 (an order id, an account number). A
 *   number with a fraction or an exponent is a decimal, which every JSON reader rounds to a
 *   double; whole doubles past 2^53 (18014398509481984) read exactly; and a double as JavaScript
 *   writes it (1.2345678901234568e20 prints as 123456789012345680000, not its exact value) reads
 *   back as that very double. None of those is refused.
 * `validJson` is a text JSON.parse accepted; a number past the double range is jsonInputProblems'
 * to refuse (it reads as Infinity), so it is passed over here. Paths are JSON Pointers.
 */
export function jsonTextProblems(validJson: string, limit = MAX_PROBLEMS): Problem[] {
  const problems: Problem[] = [];
  const report = (path: string, message: string): boolean => {
    problems.push({ path, message });
    return problems.length >= limit;
  };
  walkJsonText(validJson, {
    key(key, repeated, holder) {
      if (!repeated) return false;
      return report(
        pointer(...holder(), key),
        `the key "${key}" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word`,
      );
    },
    number(literal, at) {
      if (literal.length < 16 || FRACTION_OR_EXPONENT.test(literal)) return false;
      const lost = wholeNumberLoss(literal);
      return lost !== undefined && report(pointer(...at()), lost);
    },
  });
  return problems;
}
