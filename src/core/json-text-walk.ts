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
    const char = validJson[i] as string;
    const top = stack[stack.length - 1];
    if (char === "{") stack.push({ kind: "object", keys: trackKeys ? new Set() : null, key: null, expectKey: true });
    else if (char === "[") stack.push({ kind: "array", index: 0 });
    else if (char === "}" || char === "]") stack.pop();
    else if (char === ",") {
      if (top?.kind === "object") top.expectKey = true;
      else if (top?.kind === "array") top.index++;
    } else if (char === '"') {
      const end = stringEnd(validJson, i);
      if (top?.kind === "object" && top.expectKey) {
        // SAFETY: a JSON string token of a text JSON.parse accepted parses to a string.
        const key = JSON.parse(validJson.slice(i, end + 1)) as string;
        const repeated = top.keys?.has(key) ?? false;
        top.keys?.add(key);
        top.key = key;
        top.expectKey = false;
        if (visit.key?.(key, repeated, holder)) return;
      }
      i = end;
    } else if (startsNumber(validJson.charCodeAt(i))) {
      let end = i + 1;
      while (end < validJson.length && continuesNumber(validJson.charCodeAt(end))) end++;
      if (visit.number?.(validJson.slice(i, end), here)) return;
      i = end - 1;
    }
  }
}

/** The index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i;
}
