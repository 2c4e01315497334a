/**
 * A walk over JSON text for what the parsed value no longer shows. JSON.parse keeps the last of
 * repeated keys without a word (RFC 8259 leaves their meaning open) and reads every number as the
 * nearest double, so a reader that must not guess looks at the text: which keys an object wrote
 * twice (json-repeated-keys.ts), and how each number was written (json-input.ts). One pass, no
 * recursion: no nesting depth can overflow the stack.
 */

/** A step of a JSON Pointer: an object's key or an array's index. */
type PathStep = string | number;

interface JsonTextVisitor {
  /**
   * An object's key, after unescaping ("score" and "\u0073core" are one key); `repeated` when the
   * same object wrote it before; `holder` is the path of that object. Answer true to stop.
   */
  key?: (key: string, repeated: boolean, holder: () => PathStep[]) => boolean;
  /** A number exactly as written, and its path. Answer true to stop. */
  number?: (literal: string, at: () => PathStep[]) => boolean;
}

type Frame =
  | { kind: "object"; keys: Set<string> | null; key: string | null; expectKey: boolean }
  | { kind: "array"; index: number };

// Character codes: the walk compares numbers, not one-character strings.
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A number starts with "-" or a digit; outside strings nothing else does. */
function startsNumber(code: number): boolean {
  return code === 45 || (code >= 48 && code <= 57);
}

/** Digits, "-", "+", "." and the exponent's "e" or "E": what a number token is made of. */
function continuesNumber(code: number): boolean {
  return startsNumber(code) || code === 43 || code === 46 || code === 101 || code === 69;
}

/** Walks a text JSON.parse has already accepted (so it is well formed), calling `visit` in document order. */
export function walkJsonText(validJson: string, visit: JsonTextVisitor): void {
  const stack: Frame[] = [];
  const trackKeys = visit.key !== undefined;
  const stepOf = (frame: Frame): PathStep => (frame.kind === "array" ? frame.index : (frame.key ?? ""));
  const holder = (): PathStep[] => stack.slice(0, -1).map(stepOf);
  const here = (): PathStep[] => stack.map(stepOf);
  for (let i = 0; i < validJson.length; i++) {
    const code = validJson.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (code === OPEN_BRACE)
      stack.push({ kind: "object", keys: trackKeys ? new Set() : null, key: null, expectKey: true });
    else if (code === OPEN_BRACKET) stack.push({ kind: "array", index: 0 });
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) stack.pop();
    else if (code === COMMA) {
      if (top?.kind === "object") top.expectKey = true;
      else if (top?.kind === "array") top.index++;
    } else if (code === QUOTE) {
      const end = stringEnd(validJson, i);
      if (top?.kind === "object" && top.expectKey) {
        const key = keyText(validJson, i, end);
        const repeated = top.keys?.has(key) ?? false;
        top.keys?.add(key);
        top.key = key;
        top.expectKey = false;
        if (visit.key?.(key, repeated, holder)) return;
      }
      i = end;
    } else if (startsNumber(code)) {
      let end = i + 1;
      while (end < validJson.length && continuesNumber(validJson.charCodeAt(end))) end++;
      if (visit.number?.(validJson.slice(i, end), here)) return;
      i = end - 1;
    }
  }
}

/** The key between the quotes at `start` and `end`, unescaped; most keys have no escape to undo. */
function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  // SAFETY: a JSON string token of a text JSON.parse accepted parses to a string.
  return raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
}

/** The index of the quote closing the string that opens at `start`: the next quote not escaped by a backslash. */
function stringEnd(text: string, start: number): number {
  for (let from = start + 1; ; ) {
    const quote = text.indexOf('"', from);
    // A text JSON.parse accepted closes every string.
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}
