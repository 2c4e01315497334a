/**
 * Reading one value of a state by JSON Pointer (RFC 6901), as GET /api/attempts/:id/state takes it:
 * `/orders/#W123` (escaped in a URL as `/orders/%23W123`), `~1` for "/" and `~0` for "~" in a key.
 */
import type { JsonValue } from "../json.js";

/** The pointer's reference tokens, or null when the text is not a JSON Pointer ("" is the whole document). */
export function parsePointer(text: string): string[] | null {
  if (text === "") return [];
  if (!text.startsWith("/")) return null;
  const tokens: string[] = [];
  for (const raw of text.slice(1).split("/")) {
    // "~" must be followed by 0 or 1: anything else is not a pointer.
    if (/~[^01]|~$/.test(raw)) return null;
    tokens.push(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return tokens;
}

/** The value at `tokens`, or undefined when there is none (own keys only; arrays by decimal index). */
export function valueAt(root: JsonValue, tokens: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = root;
  for (const token of tokens) {
    if (current === null || typeof current !== "object") return undefined;
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else {
      current = Object.hasOwn(current, token) ? current[token] : undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}
