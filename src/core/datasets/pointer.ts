/**
 * JSON Pointers (RFC 6901) into a stored dataset: how one record is named over the API
 * (`?pointer=/orders/%23W123` once the query is decoded) and looked up without reading anything
 * else. Lookups follow own properties only, so "/__proto__" or "/constructor" name data, never
 * the object machinery, and an array index is only what the RFC allows ("0" or digits without a
 * leading zero; "-", the element past the end, names nothing that exists).
 */
import { pointer as joinPointer } from "../json.js";
import type { JsonValue } from "../json.js";

type ParsedPointer = { ok: true; tokens: string[] } | { ok: false; message: string };

/** The reference tokens of `text`, unescaped ("~1" → "/", then "~0" → "~", in that order as the RFC says). */
export function parsePointer(text: string): ParsedPointer {
  if (text === "") return { ok: true, tokens: [] };
  if (!text.startsWith("/"))
    return {
      ok: false,
      message: `expected a JSON Pointer starting with "/" (or "" for the whole document), got "${text}"`,
    };
  const tokens: string[] = [];
  for (const raw of text.slice(1).split("/")) {
    const bad = /~[^01]|~$/.exec(raw);
    if (bad)
      return {
        ok: false,
        message: `"~" must be followed by 0 (for "~") or 1 (for "/") in a JSON Pointer; "${raw}" has "${bad[0]}"`,
      };
    tokens.push(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return { ok: true, tokens };
}

/** The pointer text of `tokens`: the inverse of parsePointer. */
export function formatPointer(tokens: readonly string[]): string {
  return joinPointer(...tokens);
}

type PointerLookup =
  | { found: true; value: JsonValue }
  /** `parent` points at the last value that exists; `missing` is the token it does not hold. */
  | { found: false; parent: string; missing: string };

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** The value `tokens` name in `document`, or where the path stops. */
export function lookupPointer(document: JsonValue, tokens: readonly string[]): PointerLookup {
  let current: JsonValue = document;
  for (let i = 0; i < tokens.length; i++) {
    // SAFETY: i is within the array's bounds.
    const token = tokens[i] as string;
    const next = childOf(current, token);
    if (next === undefined) return { found: false, parent: formatPointer(tokens.slice(0, i)), missing: token };
    current = next;
  }
  return { found: true, value: current };
}

function childOf(value: JsonValue, token: string): JsonValue | undefined {
  if (Array.isArray(value)) return ARRAY_INDEX.test(token) ? value[Number(token)] : undefined;
  if (typeof value === "object" && value !== null && Object.hasOwn(value, token)) return value[token];
  return undefined;
}

/** The value at `tokens`, or undefined when there is none. */
export function valueAt(root: JsonValue, tokens: readonly string[]): JsonValue | undefined {
  const found = lookupPointer(root, tokens);
  return found.found ? found.value : undefined;
}
