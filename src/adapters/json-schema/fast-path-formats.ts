/**
 * What a "format" keyword does to strings in the fast path: exactly what @cfworker/json-schema
 * does, using cfworker's own exported checkers so a verdict cannot drift from the slow path.
 *
 * cfworker looks a format up with `format[name]` on an ordinary object, so besides its own
 * formats a name like "toString" or "hasOwnProperty" finds an Object.prototype member and is
 * called as a checker (some pass every string, some fail every one, some throw). Such names are
 * left to cfworker rather than imitated.
 */
import { format as cfworkerFormats } from "@cfworker/json-schema";
import { ASSERTED_FORMATS } from "./formats.js";

const ASSERTED: ReadonlySet<string> = new Set(ASSERTED_FORMATS);

/** What a "format" value means for strings. */
type FormatRule =
  /** An annotation: every string passes. */
  | { kind: "annotation" }
  /** An asserted format: strings must pass cfworker's checker. */
  | { kind: "assert"; check: (value: string) => boolean }
  /** Not something the fast path decides exactly: leave the schema to cfworker. */
  | { kind: "unsupported" };

export function formatRule(name: unknown): FormatRule {
  // cfworker would index with a number or an array too (["date"] finds "date"); not worth it.
  if (typeof name !== "string") return { kind: "unsupported" };
  if (Object.hasOwn(cfworkerFormats, name)) {
    const check = cfworkerFormats[name];
    // A format cfworker knows but toolproof does not list (a cfworker upgrade): the list and the
    // ajv validator must be updated first, so do not let the fast path decide it meanwhile.
    if (check === undefined || !ASSERTED.has(name)) return { kind: "unsupported" };
    return { kind: "assert", check };
  }
  // Inherited members of the format table ("constructor", "toString", "__proto__"…).
  if (name in cfworkerFormats) return { kind: "unsupported" };
  return { kind: "annotation" };
}
