/**
 * Rewrites a JSON Schema "pattern" (ECMA-262, compiled with the "u" flag, as cfworker compiles it)
 * into RE2 syntax that matches exactly the same strings, so re2js can run it in linear time.
 *
 * The pattern is parsed as ECMAScript and written out again, never passed through: the two
 * dialects share most spellings but not their meanings. RE2's `\s` is ASCII only and its `.`
 * matches "\r"; RE2 has no `\u`, `\c` or `[^]`, and reads `\Q`, `\A`, `(?i)` or `[[:alpha:]]`,
 * which ECMAScript refuses. So every character is written as `\x{…}`, and `.` and `\s` as the
 * explicit ranges ECMAScript gives them. What RE2 cannot express at all (lookaround,
 * backreferences, some Unicode properties) comes back as a reason instead.
 */
import { RegExpParser, type AST } from "@eslint-community/regexpp";
import { messageOf } from "../../core/message-of.js";

type Translation = { re2: string } | { unsupported: string };

type Range = readonly [from: number, to: number];

const MAX_CODE_POINT = 0x10ffff;

/** ECMAScript's WhiteSpace and LineTerminator code points: what `\s` matches. */
const SPACE: readonly Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** The LineTerminator code points, which `.` does not match (there is no "s" flag). */
const LINE_TERMINATORS: readonly Range[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
const EVERYTHING: readonly Range[] = [[0, MAX_CODE_POINT]];

/**
 * ECMAScript General_Category names (long and short) → RE2's short names. "C"/"Other" and
 * "Cn"/"Unassigned" are left out on purpose: RE2's "C" has no unassigned code points.
 */
const GENERAL_CATEGORIES: Readonly<Record<string, string | readonly string[]>> = {
  L: "L",
  Letter: "L",
  Lu: "Lu",
  Uppercase_Letter: "Lu",
  Ll: "Ll",
  Lowercase_Letter: "Ll",
  Lt: "Lt",
  Titlecase_Letter: "Lt",
  Lm: "Lm",
  Modifier_Letter: "Lm",
  Lo: "Lo",
  Other_Letter: "Lo",
  LC: ["Lu", "Ll", "Lt"],
  Cased_Letter: ["Lu", "Ll", "Lt"],
  M: "M",
  Mark: "M",
  Combining_Mark: "M",
  Mn: "Mn",
  Nonspacing_Mark: "Mn",
  Mc: "Mc",
  Spacing_Mark: "Mc",
  Me: "Me",
  Enclosing_Mark: "Me",
  N: "N",
  Number: "N",
  Nd: "Nd",
  Decimal_Number: "Nd",
  digit: "Nd",
  Nl: "Nl",
  Letter_Number: "Nl",
  No: "No",
  Other_Number: "No",
  P: "P",
  Punctuation: "P",
  punct: "P",
  Pc: "Pc",
  Connector_Punctuation: "Pc",
  Pd: "Pd",
  Dash_Punctuation: "Pd",
  Ps: "Ps",
  Open_Punctuation: "Ps",
  Pe: "Pe",
  Close_Punctuation: "Pe",
  Pi: "Pi",
  Initial_Punctuation: "Pi",
  Pf: "Pf",
  Final_Punctuation: "Pf",
  Po: "Po",
  Other_Punctuation: "Po",
  S: "S",
  Symbol: "S",
  Sm: "Sm",
  Math_Symbol: "Sm",
  Sc: "Sc",
  Currency_Symbol: "Sc",
  Sk: "Sk",
  Modifier_Symbol: "Sk",
  So: "So",
  Other_Symbol: "So",
  Z: "Z",
  Separator: "Z",
  Zs: "Zs",
  Space_Separator: "Zs",
  Zl: "Zl",
  Line_Separator: "Zl",
  Zp: "Zp",
  Paragraph_Separator: "Zp",
  Cc: "Cc",
  Control: "Cc",
  cntrl: "Cc",
  Cf: "Cf",
  Format: "Cf",
  Cs: "Cs",
  Surrogate: "Cs",
  Co: "Co",
  Private_Use: "Co",
};

class Unsupported extends Error {}

const hex = (codePoint: number): string => `\\x{${codePoint.toString(16)}}`;
const rangeText = ([from, to]: Range): string => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`);
const rangesText = (ranges: readonly Range[]): string => ranges.map(rangeText).join("");

/** The code points outside `ranges` (sorted, not overlapping). */
function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** A class written as ranges; an empty one (nothing matches) needs a spelling RE2 accepts. */
function rangeClass(ranges: readonly Range[]): string {
  return ranges.length === 0 ? `[^${rangesText(EVERYTHING)}]` : `[${rangesText(ranges)}]`;
}

/** A `\p{…}`/`\P{…}` as the body of an RE2 class (without brackets). */
function propertyBody(set: AST.UnicodePropertyCharacterSet): string {
  if (set.strings) throw new Unsupported("a property of strings");
  const { key, value } = set;
  const letter = set.negate ? "P" : "p";
  if (value === null) {
    // A lone name: a binary property (ECMAScript files general categories under their key).
    if (key === "Any") return set.negate ? "" : rangesText(EVERYTHING);
    if (key === "ASCII") return set.negate ? rangesText([[0x80, MAX_CODE_POINT]]) : rangesText([[0, 0x7f]]);
    throw new Unsupported(`the Unicode property \\p{${key}}`);
  }
  if (key === "General_Category" || key === "gc") {
    const short = Object.hasOwn(GENERAL_CATEGORIES, value) ? GENERAL_CATEGORIES[value] : undefined;
    if (short === undefined) throw new Unsupported(`the general category \\p{${value}}`);
    if (typeof short === "string") return `\\${letter}{${short}}`;
    if (set.negate) throw new Unsupported(`the negated general category \\P{${value}}`);
    return short.map((name) => `\\p{${name}}`).join("");
  }
  if (key === "Script" || key === "sc") {
    // RE2 knows scripts by their long names only; a short alias fails to compile, and says so.
    return `\\${letter}{${value}}`;
  }
  throw new Unsupported(`the Unicode property \\p{${key}=${value}}`);
}

function classElement(element: AST.ClassRangesCharacterClassElement): string {
  switch (element.type) {
    case "Character":
      return hex(element.value);
    case "CharacterClassRange":
      return `${hex(element.min.value)}-${hex(element.max.value)}`;
    case "CharacterSet":
      if (element.kind === "property") return propertyBody(element);
      if (element.kind === "space") return rangesText(element.negate ? complement(SPACE) : SPACE);
      // RE2's \d and \w are ASCII, as ECMAScript's are without the "i" flag.
      if (element.kind === "digit") return element.negate ? "\\D" : "\\d";
      return element.negate ? "\\W" : "\\w";
  }
}

function characterClass(node: AST.CharacterClass | AST.ExpressionCharacterClass): string {
  if (node.type === "ExpressionCharacterClass" || node.unicodeSets) throw new Unsupported("a set operation in a class");
  if (node.elements.length === 0) return node.negate ? rangeClass(EVERYTHING) : rangeClass([]);
  const body = node.elements.map(classElement).join("");
  // A body that came out empty (only \P{Any}) matches nothing, negated everything.
  if (body === "") return node.negate ? rangeClass(EVERYTHING) : rangeClass([]);
  return `[${node.negate ? "^" : ""}${body}]`;
}

function characterSet(set: AST.CharacterSet): string {
  switch (set.kind) {
    case "any":
      return rangeClass(complement(LINE_TERMINATORS));
    case "space":
      return rangeClass(set.negate ? complement(SPACE) : SPACE);
    case "digit":
      return set.negate ? "\\D" : "\\d";
    case "word":
      return set.negate ? "\\W" : "\\w";
    case "property": {
      const body = propertyBody(set);
      return body === "" ? rangeClass([]) : `[${body}]`;
    }
  }
}

function quantifierSuffix({ min, max }: AST.Quantifier): string {
  // Greedy or lazy does not change whether a string matches, only what a match captures.
  if (max === Infinity) return min === 0 ? "*" : min === 1 ? "+" : `{${min},}`;
  if (min === 0 && max === 1) return "?";
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

function alternatives(list: readonly AST.Alternative[]): string {
  return list.map((alternative) => alternative.elements.map(element).join("")).join("|");
}

function element(node: AST.Element): string {
  switch (node.type) {
    case "Character":
      return hex(node.value);
    case "CharacterClass":
    case "ExpressionCharacterClass":
      return characterClass(node);
    case "CharacterSet":
      return characterSet(node);
    case "Group":
      if (node.modifiers !== null) throw new Unsupported("a modifier group such as (?i:…)");
      return `(?:${alternatives(node.alternatives)})`;
    case "CapturingGroup":
      // Nothing reads captures, and a non-capturing group keeps re2js on its fastest engine.
      return `(?:${alternatives(node.alternatives)})`;
    case "Quantifier":
      return `${element(node.element)}${quantifierSuffix(node)}`;
    case "Backreference":
      throw new Unsupported("a backreference");
    case "Assertion":
      switch (node.kind) {
        case "start":
          return "^";
        case "end":
          // Without the "m" flag both dialects mean the very end of the string.
          return "$";
        case "word":
          return node.negate ? "\\B" : "\\b";
        case "lookahead":
        case "lookbehind":
          throw new Unsupported(`a ${node.kind}`);
      }
  }
}

const parser = new RegExpParser({ ecmaVersion: 2025 });

/** `pattern` in RE2 syntax, or what in it RE2 cannot express. `pattern` must compile with the "u" flag. */
export function translatePattern(pattern: string): Translation {
  let ast: AST.Pattern;
  try {
    ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: true });
  } catch (error) {
    return {
      unsupported: `syntax the translator does not read (${messageOf(error)})`,
    };
  }
  try {
    return { re2: alternatives(ast.alternatives) };
  } catch (error) {
    if (error instanceof Unsupported) return { unsupported: error.message };
    throw error;
  }
}
