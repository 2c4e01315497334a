/**
 * One vocabulary of problem messages for both validators. Each validator reduces its own error
 * output to (keyword, the keyword's value in the schema, the value found at the instance path);
 * the wording is decided here, so an agent reads the same message whichever validator ran, and
 * the unit tests can assert one Problem array for both.
 */
import { isJsonObject, jsonEqual, type Problem } from "../../core/json.js";
import { messageOf } from "../../core/message-of.js";

/** The JSON type of a value, as JSON Schema's "type" keyword names it ("integer" aside). */
function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const MAX_QUOTED = 200;

/** JSON text of a schema value for a message, shortened so one huge enum cannot flood it. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED - 1)}…` : text;
}

function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

function has(object: unknown, key: string): boolean {
  return isJsonObject(object) && Object.hasOwn(object, key);
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** Indexes of the first two equal items (the first item that has a later duplicate). */
function firstDuplicate(items: readonly unknown[]): [number, number] | undefined {
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) if (jsonEqual(items[i], items[j])) return [i, j];
  }
  return undefined;
}

/**
 * Messages for one failed leaf keyword. `keywordValue` is the keyword's value in the schema and
 * `data` the value at the instance path. Some keywords fail several ways at once ("required"
 * with two missing properties), hence a list; an empty list means "not a leaf keyword known here"
 * and the caller falls back to the validator's own wording.
 */
export function describeKeyword(keyword: string, keywordValue: unknown, data: unknown): string[] {
  switch (keyword) {
    case "type": {
      const expected = Array.isArray(keywordValue) ? keywordValue.map(String) : [String(keywordValue)];
      return [`must be ${expected.join(" or ")}, got ${jsonTypeOf(data)}`];
    }
    case "const":
      return [`must be ${quote(keywordValue)}`];
    case "enum":
      return [`must be one of ${quote(keywordValue)}`];
    case "minimum":
      return [`must be >= ${String(keywordValue)}`];
    case "maximum":
      return [`must be <= ${String(keywordValue)}`];
    case "exclusiveMinimum":
      return [`must be > ${String(keywordValue)}`];
    case "exclusiveMaximum":
      return [`must be < ${String(keywordValue)}`];
    case "multipleOf":
      return [`must be a multiple of ${String(keywordValue)}`];
    case "minLength":
    case "maxLength": {
      // JSON Schema counts code points, not UTF-16 units.
      const length = typeof data === "string" ? [...data].length : 0;
      const bound = keyword === "minLength" ? "at least" : "at most";
      return [`must be ${bound} ${plural(Number(keywordValue), "character")} long, got ${length}`];
    }
    case "pattern":
      return [`must match the pattern ${quote(keywordValue)}`];
    case "format":
      return [`must be a valid ${quote(keywordValue)} string`];
    case "minItems":
    case "maxItems": {
      const bound = keyword === "minItems" ? "at least" : "at most";
      const count = Array.isArray(data) ? data.length : 0;
      return [`must have ${bound} ${plural(Number(keywordValue), "item")}, got ${count}`];
    }
    case "uniqueItems": {
      const pair = Array.isArray(data) ? firstDuplicate(data) : undefined;
      return [
        pair === undefined
          ? "must not contain duplicate items"
          : `must not contain duplicate items (items ${pair[0]} and ${pair[1]} are equal)`,
      ];
    }
    case "minProperties":
    case "maxProperties": {
      const bound = keyword === "minProperties" ? "at least" : "at most";
      const count = isJsonObject(data) ? Object.keys(data).length : 0;
      return [`must have ${bound} ${plural(Number(keywordValue), "property", "properties")}, got ${count}`];
    }
    case "required":
      return stringsOf(keywordValue)
        .filter((name) => !has(data, name))
        .map((name) => `missing required property ${quote(name)}`);
    case "dependentRequired":
    case "dependencies": {
      // Only the array form of "dependencies" is a leaf; its schema form is a wrapper.
      if (!isJsonObject(keywordValue)) return [];
      const out: string[] = [];
      for (const [name, needs] of Object.entries(keywordValue)) {
        if (!has(data, name) || !Array.isArray(needs)) continue;
        for (const need of stringsOf(needs)) {
          if (!has(data, need)) out.push(`property ${quote(name)} requires property ${quote(need)}`);
        }
      }
      return out;
    }
    case "not":
      return ['must not match the "not" schema'];
    default:
      return [];
  }
}

/**
 * The message for a failed "contains" (with its "minContains"/"maxContains"), from the schema
 * that holds them. It names the whole accepted range rather than the bound that failed: ajv does
 * not say which bound failed, and the range is what the agent needs anyway.
 */
export function containsMessage(parentSchema: unknown): string {
  const parent = isJsonObject(parentSchema) ? parentSchema : {};
  const min = typeof parent.minContains === "number" ? parent.minContains : 1;
  const max = typeof parent.maxContains === "number" ? parent.maxContains : undefined;
  const what = 'matching the "contains" schema';
  if (max === undefined)
    return min === 1
      ? `must contain at least one item ${what}`
      : `must contain at least ${plural(min, "item")} ${what}`;
  if (min === max) return `must contain exactly ${plural(min, "item")} ${what}`;
  if (min === 0) return `must contain at most ${plural(max, "item")} ${what}`;
  return `must contain between ${min} and ${max} items ${what}`;
}

/** The message for an instance location where the schema is `false`, by what led there. */
export function falseSchemaMessage(parentKeyword: string | undefined, path: string): string {
  const last = path
    .slice(path.lastIndexOf("/") + 1)
    .replace(/~1/g, "/")
    .replace(/~0/g, "~");
  switch (parentKeyword) {
    case "properties":
    case "patternProperties":
    case "additionalProperties":
    case "unevaluatedProperties":
      return `property ${quote(last)} is not allowed`;
    case "items":
    case "prefixItems":
    case "additionalItems":
    case "unevaluatedItems":
      return `item ${last} is not allowed (the array has too many items)`;
    default:
      return "no value is allowed here (the schema is false)";
  }
}

function NOT_ALLOWED(path: string): string {
  return falseSchemaMessage("properties", path);
}

const MAX_DETAIL = 400;
const TYPE_MESSAGE = /^must be (.+), got (\w+)$/;

/**
 * One message for a failed "anyOf"/"oneOf", summarising why each alternative failed instead of
 * reporting every alternative's errors as if all of them applied.
 */
export function alternativesMessage(
  keyword: "anyOf" | "oneOf",
  path: string,
  branchProblems: readonly Problem[],
  matches: number,
): string {
  if (keyword === "oneOf" && matches > 1) {
    // No count: ajv stops counting at the second match.
    return 'must match exactly one of the "oneOf" alternatives, but matched more than one';
  }
  const head =
    keyword === "anyOf"
      ? 'must match at least one of the "anyOf" alternatives'
      : 'must match exactly one of the "oneOf" alternatives, but matched none';
  const relative = branchProblems.map((p) => ({
    at: p.path.startsWith(path) ? p.path.slice(path.length) : p.path,
    message: p.message,
  }));
  // The common case, a nullable or union type: "must be string or null, got number".
  const types = relative.map((p) => (p.at === "" ? TYPE_MESSAGE.exec(p.message) : null));
  const got = types[0]?.[2];
  if (types.length > 0 && types.every((m) => m !== null && m[2] === got)) {
    const expected = [...new Set(types.flatMap((m) => (m === null ? [] : (m[1] ?? "").split(" or "))))];
    return `must be ${expected.join(" or ")}, got ${got ?? "?"}`;
  }
  const details = [...new Set(relative.map((p) => (p.at === "" ? p.message : `${p.at}: ${p.message}`)))];
  if (details.length === 0) return head;
  let text = details.join("; or ");
  if (text.length > MAX_DETAIL) text = `${text.slice(0, MAX_DETAIL - 1)}…`;
  return `${head} (${text})`;
}

/** Reference tokens of a JSON Pointer, unescaped. */
export function pointerTokens(path: string): string[] {
  if (path === "") return [];
  return path
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value at a JSON Pointer, or undefined when the path leads nowhere. */
export function valueAt(document: unknown, path: string): unknown {
  let current: unknown = document;
  for (const token of pointerTokens(path)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isJsonObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return undefined;
  }
  return current;
}

function comparePaths(a: string, b: string): number {
  const left = pointerTokens(a);
  const right = pointerTokens(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i] ?? "";
    const y = right[i] ?? "";
    if (x === y) continue;
    // Array indexes in numeric order, so /items/10 comes after /items/9.
    if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/**
 * Problems in one canonical order (by path, then message) without duplicates, so both
 * validators give the same array for the same failure whatever order they evaluate keywords in.
 */
export function finishProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const problem of problems) {
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    // "unevaluatedProperties" also rejects a property whose own value failed (a failed subschema
    // evaluates nothing); the problems inside that value are the useful ones.
    if (problem.message === NOT_ALLOWED(problem.path) && problems.some((p) => p.path.startsWith(`${problem.path}/`)))
      continue;
    seen.add(key);
    out.push({ path: problem.path, message: problem.message });
  }
  return out.sort(
    (a, b) => comparePaths(a.path, b.path) || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
}

/** checkSchema's answer for a document that is neither an object nor a boolean. */
export function notASchemaProblem(value: unknown): Problem {
  return { path: "", message: `a JSON Schema must be an object or a boolean, got ${jsonTypeOf(value)}` };
}

/** validate's answer when the schema itself cannot be used (it should have failed checkSchema). */
export function unusableSchemaProblem(problems: readonly Problem[]): Problem {
  const details = problems.map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`)).join("; ");
  return { path: "", message: `the schema cannot be used: ${details}` };
}

/** An exception's message, first line only (cfworker appends every known URI to some). */
export function errorMessage(error: unknown): string {
  const text = messageOf(error);
  return text.split("\n", 1)[0]?.trim() ?? text;
}

/** validate's answer for a value JSON cannot carry at all (undefined, a function, a bigint). */
export function notJsonValueProblem(value: unknown): Problem | undefined {
  const type = typeof value;
  if (type === "undefined" || type === "function" || type === "symbol" || type === "bigint") {
    return { path: "", message: `must be a JSON value, got ${type}` };
  }
  return undefined;
}
