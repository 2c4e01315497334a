/**
 * Policy and manifest files as text: JSON, or YAML (YAML 1.2 core schema, so `yes` stays a string).
 * Either way the result must be plain JSON data; YAML-only values such as `.inf` are refused.
 */
import { parseDocument } from "yaml";
import type { JsonValue } from "../json.js";
import { isJsonValue } from "./fields.js";

export type TextSyntax = "json" | "yaml";
export type TextParse = { ok: true; value: JsonValue } | { ok: false; message: string };

/** Guards against alias bombs ("billion laughs") in YAML from untrusted sources. */
const MAX_YAML_ALIASES = 100;

/**
 * Picks the syntax from a file name: .yaml/.yml are YAML, .json is JSON, and anything else is
 * JSON when it starts like JSON (JSON's parse errors are the more precise) and YAML otherwise.
 */
export function syntaxFor(fileName: string, text: string): TextSyntax {
  const lower = fileName.toLowerCase();
  if (lower.endsWith(".yaml") || lower.endsWith(".yml")) return "yaml";
  if (lower.endsWith(".json")) return "json";
  return /^\s*[[{]/.test(text) ? "json" : "yaml";
}

export function parseText(text: string, syntax: TextSyntax): TextParse {
  if (text.trim() === "") return { ok: false, message: "the document is empty" };
  return syntax === "json" ? parseJsonText(text) : parseYamlText(text);
}

function parseJsonText(text: string): TextParse {
  try {
    const value: unknown = JSON.parse(text);
    // JSON.parse only yields JSON values; the guard narrows the type without a cast.
    if (isJsonValue(value)) return { ok: true, value };
    return { ok: false, message: "not a JSON document" };
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function parseYamlText(text: string): TextParse {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const first = document.errors[0];
  if (first) {
    // The first line names the problem and its line and column; the rest is a code frame.
    const summary = first.message.split("\n")[0] ?? first.message;
    const more = document.errors.length > 1 ? ` (and ${document.errors.length - 1} more YAML error${document.errors.length > 2 ? "s" : ""})` : "";
    return { ok: false, message: `not valid YAML: ${summary}${more}` };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    return { ok: false, message: `not usable YAML: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isJsonValue(value)) return { ok: false, message: "the YAML holds values JSON cannot represent (such as .inf or .nan)" };
  return { ok: true, value };
}
