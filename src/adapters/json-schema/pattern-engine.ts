/**
 * How toolproof runs a JSON Schema "pattern" (the "pattern" keyword and "patternProperties"
 * names, so also patterns under "propertyNames"). Patterns are tenant input, and a backtracking
 * engine (RegExp) can take exponential time on one (`^(a+)+$` on 30 "a"s and a "b": seconds),
 * stalling every tenant served by the same isolate. So:
 *
 * - A pattern RegExp provably matches in linear time (pattern-backtracking.ts: no groups, no
 *   alternation, quantifiers on single characters only, within counted limits) keeps RegExp.
 * - Every other pattern RE2 can express runs on re2js, a linear-time engine, after a faithful
 *   translation (pattern-translate.ts). Either way the time of one match is bounded by construction.
 * - A pattern RE2 cannot express (lookaround, backreferences, repetition counts over 1,000, some
 *   Unicode properties) is refused when a schema is saved (patternRefusal). One stored before that
 *   rule existed still runs on RegExp, but only when safe-regex2 finds no nested repetition in it;
 *   otherwise it is not run at all and the validation fails closed.
 * - patternRefusal also refuses what safe-regex2 calls catastrophic even when re2js could run it:
 *   a contract travels (exported, or checked by an agent's own, backtracking, validator), and the
 *   hazard would travel with it.
 *
 * A pattern that RegExp itself refuses throws RegExp's own SyntaxError, as cfworker's would.
 */
import { RE2JS } from "re2js";
import safeRegex from "safe-regex2";
import { backtracksLinearly } from "./pattern-backtracking.js";
import { translatePattern } from "./pattern-translate.js";
import { messageOf } from "../../core/message-of.js";

export interface PatternMatcher {
  /** Whether the pattern matches somewhere in `text` (unanchored, as RegExp.prototype.test). */
  test(text: string): boolean;
}

type Plan = { linear: PatternMatcher } | { unsupported: string };

/** The linear-time matcher for `pattern` (already known to compile with the "u" flag), or why there is none. */
function linearPlan(pattern: string): Plan {
  const translation = translatePattern(pattern);
  if ("unsupported" in translation) return translation;
  try {
    return { linear: RE2JS.compile(translation.re2) };
  } catch (error) {
    // RE2's own limits: repetition counts over 1,000, a script name it does not know.
    const message = messageOf(error);
    return { unsupported: `what RE2 refuses (${message.replace(/^error parsing regexp: /, "")})` };
  }
}

const HINTS: ReadonlyArray<[RegExp, string]> = [
  [/lookahead|lookbehind/, ': write each condition as its own "pattern" inside "allOf"'],
  [/repeat count/, ': for a length limit use "minLength"/"maxLength"'],
];

/**
 * Why `pattern` must not be saved in a schema, or undefined when it may. A pattern RegExp cannot
 * compile is left to the meta-schema check (its "format": "regex"), which already names it.
 */
export function patternRefusal(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
  if (backtracksLinearly(pattern)) return undefined;
  const plan = linearPlan(pattern);
  if ("unsupported" in plan) {
    const hint = HINTS.find(([test]) => test.test(plan.unsupported))?.[1] ?? "";
    return `uses ${plan.unsupported}, which toolproof's linear-time pattern engine cannot run${hint}`;
  }
  if (!safeRegex(pattern)) {
    return "can take exponential time to match (a repeated group that itself repeats, or more than 25 repetitions): rewrite it without nested repetition";
  }
  return undefined;
}

/** Thrown for a stored pattern that can only backtrack and may do so catastrophically. */
export class UnsafePatternError extends Error {}

function compile(pattern: string): PatternMatcher {
  // RegExp first: its SyntaxError is the one cfworker has always reported for a bad pattern.
  const native = new RegExp(pattern, "u");
  if (backtracksLinearly(pattern)) return native;
  const plan = linearPlan(pattern);
  if ("linear" in plan) return plan.linear;
  if (safeRegex(pattern)) return native;
  throw new UnsafePatternError(
    `the pattern ${JSON.stringify(pattern)} is not run: it uses ${plan.unsupported} and may backtrack catastrophically`,
  );
}

/** Distinct patterns kept compiled; tenants choose patterns, so the table must not grow without bound. */
const CACHE_SIZE = 1000;
const compiled = new Map<string, PatternMatcher | Error>();

/**
 * The matcher for `pattern`, compiled once and remembered. Throws the SyntaxError of a pattern
 * RegExp refuses, or an UnsafePatternError (both remembered too).
 */
export function compilePattern(pattern: string): PatternMatcher {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    try {
      entry = compile(pattern);
    } catch (error) {
      entry = error instanceof Error ? error : new Error(String(error));
    }
    if (compiled.size >= CACHE_SIZE) {
      const oldest = compiled.keys().next();
      if (oldest.done !== true) compiled.delete(oldest.value);
    }
    compiled.set(pattern, entry);
  }
  if (entry instanceof Error) throw entry;
  return entry;
}
