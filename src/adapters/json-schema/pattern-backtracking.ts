/**
 * Which patterns RegExp (a backtracking engine) provably matches in linear time, so they can keep
 * RegExp's speed (a match costs 0.03 to 0.2 µs there, 0.5 to 1 µs on re2js) without giving up the
 * bound that pattern-engine.ts promises.
 *
 * The class is small on purpose, with a counting argument instead of a heuristic: one alternative
 * (no "|"), no groups, no lookaround or backreferences, and every quantifier applied to a single
 * character (a literal, a class, `.`, `\d`, a property). Each quantified character then has
 * max - min + 1 ways to match, and a match attempt at one start position tries at most the
 * product of those ways (B), each in at most m steps (the pattern's length). So:
 *
 * - with only bounded quantifiers and B ≤ 256: at most n · 256 · m steps over the n start positions;
 * - with one unbounded quantifier (`*`, `+`, `{k,}`), n + 1 ways for it: only linear if the
 *   pattern starts with `^`, where every start position but the first fails at once, giving at
 *   most (n + 1) · 256 · m steps. Unanchored, `a+b` on n "a"s is quadratic, so that goes to re2js.
 *
 * Everything else (`^[a-z]+(?:-[a-z]+)*$`, alternations, two unbounded quantifiers) runs on re2js.
 */
import { RegExpParser, type AST } from "@eslint-community/regexpp";

/** The most combinations of bounded quantifiers one start position may try. */
const MAX_COMBINATIONS = 256;

const parser = new RegExpParser({ ecmaVersion: 2025 });

/** Whether one element matches exactly one code point (what a quantifier may apply to here). */
function isSingleCharacter(element: AST.QuantifiableElement): boolean {
  return element.type === "Character" || element.type === "CharacterClass" || element.type === "CharacterSet";
}

/** True when RegExp matches `pattern` (valid with the "u" flag) in time linear in the input. */
export function backtracksLinearly(pattern: string): boolean {
  let ast: AST.Pattern;
  try {
    ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: true });
  } catch {
    return false;
  }
  const [only, ...more] = ast.alternatives;
  if (only === undefined || more.length > 0) return false;
  let combinations = 1;
  let unbounded = 0;
  for (const element of only.elements) {
    switch (element.type) {
      case "Character":
      case "CharacterClass":
      case "CharacterSet":
        break;
      case "Assertion":
        // ^, $, \b and \B look at one position; lookaround runs a whole sub-pattern there.
        if (element.kind === "lookahead" || element.kind === "lookbehind") return false;
        break;
      case "Quantifier":
        if (!isSingleCharacter(element.element)) return false;
        if (element.max === Infinity) unbounded++;
        else combinations *= element.max - element.min + 1;
        break;
      default:
        // Groups, capturing groups and backreferences.
        return false;
    }
    if (combinations > MAX_COMBINATIONS || unbounded > 1) return false;
  }
  if (unbounded === 0) return true;
  const first = only.elements[0];
  return first?.type === "Assertion" && first.kind === "start";
}
