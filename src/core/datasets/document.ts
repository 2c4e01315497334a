/**
 * A dataset document as it is stored: a JSON object whose top-level members are its collections
 * (τ-bench's retail data is {"orders": {...}, "products": {...}, "users": {...}}). Its canonical
 * text is JSON.stringify of the parsed value: no whitespace, and the document's own key order
 * kept (not sorted, as contract hashes are), because a tool that lists records answers them in
 * that order and τ-bench's answers depend on it. The content hash is the SHA-256 of that text,
 * which also names the stored object (keys.ts), so equal content is equal hash in any runtime.
 */
import { jsonTextProblems, jsonInputProblems } from "../json-input.js";
import { isJsonObject, type JsonObject, type Problem } from "../json.js";

type DatasetDocument =
  | { ok: true; document: JsonObject; canonical: string }
  /** Not JSON at all: the parser's own words, which say where (position, line and column). */
  | { ok: false; kind: "malformed"; message: string }
  | { ok: false; kind: "invalid"; problems: Problem[] };

/** Reads a dataset's JSON text: parsed, checked and written back in its canonical form. */
export function readDatasetDocument(text: string): DatasetDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, kind: "malformed", message: error instanceof Error ? error.message : String(error) };
  }
  if (!isJsonObject(value))
    return {
      ok: false,
      kind: "invalid",
      problems: [
        {
          path: "",
          message: `expected a JSON object at the top level (its members are the dataset's collections, e.g. {"orders": {...}}), got ${kindOf(value)}`,
        },
      ],
    };
  const problems = jsonInputProblems(value, { wellFormed: true, what: "a dataset" });
  if (problems.length > 0) return { ok: false, kind: "invalid", problems };
  // A key given twice would lose a record, an id past 2^53 become its neighbour, without a word.
  const lost = jsonTextProblems(text);
  if (lost.length > 0) return { ok: false, kind: "invalid", problems: lost };
  return { ok: true, document: value, canonical: JSON.stringify(value) };
}

/** Lowercase hex SHA-256 of the canonical text's UTF-8 bytes (the bytes that are stored). */
export async function datasetContentHash(canonical: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return `a ${typeof value}`;
}
