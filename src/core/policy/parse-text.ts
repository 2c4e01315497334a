/**
 * Policy and manifest files as text: JSON, or YAML (YAML 1.2 core schema, so `yes` stays a string).
 * Either way the result must be plain JSON data that passes the client-JSON check (json-input.ts):
 * YAML-only values such as `.inf`, aliases that contain themselves (`&a [*a]`), nesting past the
 * limit and lone surrogates are refused with a message, never a stack overflow.
 */
import { type Document, isMap, isPair, isScalar, isSeq, parseDocument } from "yaml";
import {
  jsonTextProblems,
  jsonInputProblems,
  MAX_JSON_DEPTH,
  NOT_FINITE,
  problemSummary,
  tooDeepMessage,
  wholeNumberLoss,
} from "../json-input.js";
import { pointerToken, type JsonValue, type Problem } from "../json.js";
import { isJsonValue } from "./fields.js";
import { messageOf } from "../message-of.js";

export type TextSyntax = "json" | "yaml";
export type TextParse = { ok: true; value: JsonValue } | { ok: false; message: string };

interface TextLimits {
  /**
   * Most bytes the document may take as compact JSON. YAML aliases repeat a node without
   * repeating its text, so a small file can stand for a huge document: this bounds what it
   * expands to (default 1 MiB).
   */
  maxJsonBytes?: number;
}

/** Guards against alias bombs ("billion laughs") in YAML from untrusted sources. */
const MAX_YAML_ALIASES = 100;
const DEFAULT_MAX_JSON_BYTES = 1024 * 1024;

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

export function parseText(text: string, syntax: TextSyntax, limits: TextLimits = {}): TextParse {
  if (text.trim() === "") return { ok: false, message: "the document is empty" };
  const parsed = syntax === "json" ? parseJsonText(text) : parseYamlText(text);
  if (!parsed.ok) return parsed;
  const problems = jsonInputProblems(parsed.value, { wellFormed: true });
  if (problems.length > 0) {
    if (syntax === "yaml" && problems.some((p) => p.message.startsWith(NOT_FINITE))) {
      return {
        ok: false,
        message: `the YAML holds values JSON cannot represent (such as .inf or .nan): ${problemSummary(problems)}`,
      };
    }
    return { ok: false, message: problemSummary(problems) };
  }
  // YAML's own parser already refuses a repeated key; JSON.parse keeps the last one.
  const lost = syntax === "json" ? jsonTextProblems(text) : [];
  if (lost.length > 0) return { ok: false, message: problemSummary(lost) };
  // Safe now: the value is acyclic and at most MAX_JSON_DEPTH deep.
  const maxJsonBytes = limits.maxJsonBytes ?? DEFAULT_MAX_JSON_BYTES;
  const bytes = new TextEncoder().encode(JSON.stringify(parsed.value)).byteLength;
  if (bytes > maxJsonBytes) {
    return {
      ok: false,
      message: `the document stands for ${bytes} bytes of JSON (YAML aliases repeat what they name); the limit is ${maxJsonBytes} bytes`,
    };
  }
  if (!isJsonValue(parsed.value)) return { ok: false, message: "not a JSON document" };
  return { ok: true, value: parsed.value };
}

type RawParse = { ok: true; value: unknown } | { ok: false; message: string };

function parseJsonText(text: string): RawParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${messageOf(error)}` };
  }
}

/** The yaml parser and toJS recurse; a stack overflow inside them is nesting past any limit. */
function overflowed(message: string): boolean {
  return message.includes("Maximum call stack size exceeded") || message.includes("too much recursion");
}

function parseYamlText(text: string): RawParse {
  // Whole numbers are read as BigInt so that one past 2^53 is seen as written (settleWholeNumbers).
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true, intAsBigInt: true });
  const first = document.errors[0];
  if (first) {
    if (overflowed(first.message)) return { ok: false, message: tooDeepMessage("a JSON document", MAX_JSON_DEPTH) };
    // The first line names the problem and its line and column; the rest is a code frame.
    const summary = first.message.split("\n")[0] ?? first.message;
    const more =
      document.errors.length > 1
        ? ` (and ${document.errors.length - 1} more YAML error${document.errors.length > 2 ? "s" : ""})`
        : "";
    return { ok: false, message: `not valid YAML: ${summary}${more}` };
  }
  const lost = settleWholeNumbers(document);
  if (lost.length > 0) return { ok: false, message: problemSummary(lost) };
  try {
    return { ok: true, value: document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (error) {
    const message = messageOf(error);
    if (overflowed(message)) return { ok: false, message: tooDeepMessage("a JSON document", MAX_JSON_DEPTH) };
    return { ok: false, message: `not usable YAML: ${message}` };
  }
}

/**
 * Turns the document's whole numbers (read as BigInt) into numbers, and lists each one a double
 * would hold as another number, as JSON text is checked (json-input.ts). A whole-number key stays
 * a BigInt: it becomes its exact decimal text as a key, where a double would have rounded it.
 * Iterative, since the document may nest as deep as the parser allows.
 */
function settleWholeNumbers(document: Document): Problem[] {
  const problems: Problem[] = [];
  const stack: { node: unknown; path: string }[] = [{ node: document.contents, path: "" }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, path } = next;
    if (isScalar(node)) {
      if (typeof node.value !== "bigint") continue;
      const lost = wholeNumberLoss(node.value.toString());
      if (lost === undefined) node.value = Number(node.value);
      else problems.push({ path, message: lost });
    } else if (isSeq(node)) {
      // Pushed last to first, so that the items come off the stack, and any problems are listed, in order.
      for (let index = node.items.length - 1; index >= 0; index--)
        stack.push({ node: node.items[index], path: `${path}/${index}` });
    } else if (isMap(node)) {
      for (let index = node.items.length - 1; index >= 0; index--) {
        const pair = node.items[index];
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        stack.push({ node: pair.value, path: `${path}/${pointerToken(String(key))}` });
      }
    }
  }
  return problems;
}
