/**
 * The first object key written twice in a JSON text. JSON.parse keeps the last of repeated keys
 * without a word (RFC 8259 leaves the meaning open), so a reader that must not guess, such as the
 * judge parser, looks at the text itself. Keys compare after unescaping: "score" and "\u0073core"
 * are the same key.
 */
import { pointer } from "./json.js";

interface RepeatedKey {
  key: string;
  /** JSON Pointer to the object holding it ("" for the top level). */
  at: string;
}

type Frame =
  | { kind: "object"; keys: Set<string>; key: string | null; expectKey: boolean }
  | { kind: "array"; index: number };

/**
 * Scans a text JSON.parse has already accepted (so it is well formed), in one pass without
 * recursion: no nesting depth can overflow the stack. Answers null when every object's keys differ.
 */
export function firstRepeatedKey(validJson: string): RepeatedKey | null {
  const stack: Frame[] = [];
  const path = (): Array<string | number> =>
    stack.slice(0, -1).map((frame) => (frame.kind === "array" ? frame.index : (frame.key ?? "")));
  for (let i = 0; i < validJson.length; i++) {
    const char = validJson[i];
    const top = stack[stack.length - 1];
    if (char === "{") stack.push({ kind: "object", keys: new Set(), key: null, expectKey: true });
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
        if (top.keys.has(key)) return { key, at: pointer(...path()) };
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    }
  }
  return null;
}

/** The index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i;
}
