/**
 * Policy and manifest files as text: JSON, or YAML (YAML 1.2 core schema, so `yes` stays a string,
 * whatever a `%YAML 1.1` directive says). Either way the result must be plain JSON data that passes
 * the client-JSON check (json-input.ts): YAML-only values such as `.inf`, aliases that contain
 * themselves (`&a [*a]`), nesting past the limit, lone surrogates and tags that do not fit their
 * value (`!!float 20`) are refused with a message, never a stack overflow.
 */
import { type Document, type ErrorCode, isAlias, isMap, isPair, isScalar, isSeq, parseDocument, Scalar } from "yaml";
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
 * The yaml library's warnings that change no value, so a document with only these is read: an
 * unknown directive or an unsupported `%YAML` version (ignored; the schema is the core schema
 * whatever the directive says), a flow collection's closing bracket indented no deeper than its
 * parent, and an anchor or alias whose name ends in ':' (read as the name, as YAML 1.2 says). Every
 * other warning refuses the document, including any code a later version of the library adds.
 */
const HARMLESS_WARNINGS: ReadonlySet<ErrorCode> = new Set(["BAD_DIRECTIVE", "BAD_INDENT", "BAD_ALIAS"]);

/**
 * The warnings for a tag that does not fit its value. The library then reads the value without
 * the tag: `!!float 20`, `!!int 1.5`, `!!bool yes` and `!local x` as strings, `!!map [1]` and
 * `!!set [x]` as the collection written.
 */
const TAG_WARNINGS: ReadonlySet<ErrorCode> = new Set(["TAG_RESOLVE_FAILED", "BAD_COLLECTION_TYPE"]);
const UNFIT_TAG =
  "the value does not fit its tag, so it would be read as something other than the tag says; drop the tag or write the value as the tag expects";

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
  // The schema options override the one a `%YAML 1.1` directive picks (yes/no booleans, 010 as
  // octal 8, 1:30 as 90, `<<` merge keys): these are what YAML 1.2 uses without a directive.
  const document = parseDocument(text, {
    uniqueKeys: true,
    prettyErrors: true,
    intAsBigInt: true,
    schema: "core",
    resolveKnownTags: true,
    merge: false,
  });
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
  // Valid YAML, but a warning such as an unresolved tag means a value would be read as other than written.
  const unfit = document.warnings.filter((warning) => !HARMLESS_WARNINGS.has(warning.code));
  const warning = unfit[0];
  if (warning) {
    const summary = warning.message.split("\n")[0] ?? warning.message;
    const why = TAG_WARNINGS.has(warning.code) ? UNFIT_TAG : "a value may be read as something other than written";
    const more = unfit.length > 1 ? ` (and ${unfit.length - 1} more YAML warning${unfit.length > 2 ? "s" : ""})` : "";
    return { ok: false, message: `not usable YAML: ${summary} ${why}${more}` };
  }
  const lost = settleWholeNumbers(document);
  if (lost.length > 0) return { ok: false, message: problemSummary(lost) };
  const repeated = repeatedKeys(document);
  if (repeated.length > 0) return { ok: false, message: problemSummary(repeated) };
  try {
    return { ok: true, value: document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (error) {
    const message = messageOf(error);
    if (overflowed(message)) return { ok: false, message: tooDeepMessage("a JSON document", MAX_JSON_DEPTH) };
    return { ok: false, message: `not usable YAML: ${message}` };
  }
}

type Role = "key" | "value";

/**
 * A whole number in its role: a value becomes a number unless a double would hold another number
 * (`lost` says why); a key becomes a number only when the number's text is the digits written, and
 * otherwise stays a BigInt, whose text as a key is those digits (1000000000000000000000, not 1e+21).
 */
function settle(whole: bigint, role: Role): { value: number | bigint; lost?: string } {
  const digits = whole.toString();
  if (role === "key") return String(Number(whole)) === digits ? { value: Number(whole) } : { value: whole };
  const lost = wholeNumberLoss(digits);
  return lost === undefined ? { value: Number(whole) } : { value: whole, lost };
}

/**
 * Turns the document's whole numbers (read as BigInt) into numbers, and lists each value a double
 * would hold as another number, as JSON text is checked (json-input.ts). Keys, and everything inside
 * a collection used as a key, are settled as keys (see settle). An alias of an anchored whole number
 * is replaced by that number settled for the alias's own role, since a key kept as a BigInt would
 * otherwise repeat as a BigInt value, and a value settled to a number would repeat as a key in
 * exponent form: the alias is then read, or refused, as if the number were written in its place.
 * Walks in document order, so an anchor is seen before its aliases; iterative, since the document
 * may nest as deep as the parser allows.
 */
function settleWholeNumbers(document: Document): Problem[] {
  const problems: Problem[] = [];
  // The whole number each anchor names, as written; undefined for an anchor on anything else.
  const anchored = new Map<string, bigint | undefined>();
  type Visit = { node: unknown; path: string; role: Role; put?: (scalar: Scalar) => void };
  const stack: Visit[] = [{ node: document.contents, path: "", role: "value" }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, path, role, put } = next;
    if (isAlias(node)) {
      const whole = anchored.get(node.source);
      if (whole === undefined || put === undefined) continue;
      const { value, lost } = settle(whole, role);
      if (lost === undefined) put(new Scalar(value));
      else problems.push({ path, message: lost });
      continue;
    }
    if (isScalar(node) || isSeq(node) || isMap(node)) {
      if (node.anchor)
        anchored.set(node.anchor, isScalar(node) && typeof node.value === "bigint" ? node.value : undefined);
    }
    if (isScalar(node)) {
      if (typeof node.value !== "bigint") continue;
      const { value, lost } = settle(node.value, role);
      node.value = value;
      if (lost !== undefined) problems.push({ path, message: lost });
    } else if (isSeq(node)) {
      // Pushed last to first, so that the items come off the stack, and any problems are listed, in order.
      for (let index = node.items.length - 1; index >= 0; index--) {
        const item = node.items[index];
        const put = isAlias(item)
          ? (scalar: Scalar) => {
              node.items[index] = scalar;
            }
          : undefined;
        stack.push({ node: item, path: `${path}/${index}`, role, put });
      }
    } else if (isMap(node)) {
      for (let index = node.items.length - 1; index >= 0; index--) {
        const pair = node.items[index];
        if (!isPair(pair)) continue;
        // An alias key names its anchor's value, not `*name`.
        const keyNode = isAlias(pair.key) ? pair.key.resolve(document) : pair.key;
        const key = isScalar(keyNode) ? keyNode.value : keyNode;
        const valuePath = `${path}/${pointerToken(String(key))}`;
        const putValue = isAlias(pair.value)
          ? (scalar: Scalar) => {
              pair.value = scalar;
            }
          : undefined;
        const putKey = isAlias(pair.key)
          ? (scalar: Scalar) => {
              pair.key = scalar;
            }
          : undefined;
        // The value under the key before it, and the key on top: the key's anchors come first.
        stack.push({ node: pair.value, path: valuePath, role, put: putValue });
        stack.push({ node: pair.key, path, role: "key", put: putKey });
      }
    }
  }
  return problems;
}

/**
 * Keys that YAML keeps apart but JSON would not: `5` and `'5'`, `true` and `'true'`, `null` and
 * `''`, or an alias key repeating its anchor (the parser's uniqueKeys compares nodes, not the text
 * a key becomes). Each becomes the same JSON key, and toJS would keep only the last value. Runs
 * after settleWholeNumbers, so a whole-number key is already the text it will be.
 */
function repeatedKeys(document: Document): Problem[] {
  const problems: Problem[] = [];
  const stack: { node: unknown; path: string }[] = [{ node: document.contents, path: "" }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, path } = next;
    // Children go on the stack last to first, so that problems are listed in the document's order.
    const children: { node: unknown; path: string }[] = [];
    if (isSeq(node)) {
      for (let index = 0; index < node.items.length; index++)
        children.push({ node: node.items[index], path: `${path}/${index}` });
    } else if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isAlias(pair.key) ? pair.key.resolve(document) : pair.key;
        // A collection as a key is written out as text by toJS; two such keys are rare enough to pass.
        if (!isScalar(key)) continue;
        const text = key.value === null ? "" : String(key.value);
        const at = `${path}/${pointerToken(text)}`;
        if (seen.has(text))
          problems.push({
            path: at,
            message: `the key "${text}" appears more than once in this object; JSON keeps only one, so the other value would be lost without a word`,
          });
        seen.add(text);
        children.push({ node: pair.value, path: at });
      }
    }
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index] as (typeof children)[number]);
  }
  return problems;
}
