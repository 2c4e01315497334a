/**
 * Small field readers for hand-validated documents (policies and manifests). Each reader records a
 * Problem at the field's JSON Pointer instead of throwing, so one pass reports every mistake at
 * once, and each message says what was expected and what was found.
 */
import { unknownFieldMessage } from "../field-names.js";
import { pointer, type JsonValue, type Problem } from "../json.js";

/** Collects problems while a document is read. */
export class ProblemList {
  readonly items: Problem[] = [];

  add(path: string, message: string): void {
    this.items.push({ path, message });
  }

  get isEmpty(): boolean {
    return this.items.length === 0;
  }
}

/** Appends reference tokens to an existing JSON Pointer. */
export function at(path: string, ...tokens: Array<string | number>): string {
  return `${path}${pointer(...tokens)}`;
}

/** A short description of a found value for "expected X, got Y" messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "object") return "an object";
  return typeof value;
}

/** A plain JSON object (not an array, not null), readable key by key. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for values JSON can carry: no undefined, functions, non-finite numbers or class instances. */
export function isJsonValue(value: unknown): value is JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (isRecord(value) && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value).every(isJsonValue);
  return false;
}

export function readObject(
  value: unknown,
  path: string,
  problems: ProblemList,
  what: string,
): Record<string, unknown> | undefined {
  if (isRecord(value)) return value;
  problems.add(path, `expected ${what} (a JSON object), got ${describeValue(value)}`);
  return undefined;
}

/**
 * Reports keys outside `known`. A misspelt key would otherwise be ignored silently, which for a
 * policy means a rule the reviewer wrote never runs; near misses get a "did you mean".
 */
export function refuseUnknownKeys(
  object: Record<string, unknown>,
  known: readonly string[],
  path: string,
  problems: ProblemList,
): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) problems.add(at(path, key), unknownFieldMessage(key, known));
  }
}

export function readString(
  value: unknown,
  path: string,
  problems: ProblemList,
  options: { nonEmpty?: boolean; maxLength?: number } = {},
): string | undefined {
  if (typeof value !== "string") {
    problems.add(path, `expected a string, got ${describeValue(value)}`);
    return undefined;
  }
  if (options.nonEmpty && value.trim() === "") {
    problems.add(path, "expected a non-empty string");
    return undefined;
  }
  if (options.maxLength !== undefined && value.length > options.maxLength) {
    problems.add(path, `expected at most ${options.maxLength} characters, got ${value.length}`);
    return undefined;
  }
  return value;
}

export function readBoolean(value: unknown, path: string, problems: ProblemList): boolean | undefined {
  if (typeof value === "boolean") return value;
  problems.add(path, `expected true or false, got ${describeValue(value)}`);
  return undefined;
}

/** Tool and server names: non-empty, bounded, and free of surrounding whitespace (which would never match). */
const MAX_NAME_LENGTH = 256;

export function readName(value: unknown, path: string, problems: ProblemList): string | undefined {
  const name = readString(value, path, problems, { nonEmpty: true, maxLength: MAX_NAME_LENGTH });
  if (name === undefined) return undefined;
  if (name.trim() !== name) {
    problems.add(path, `expected a name without leading or trailing spaces, got ${describeValue(name)}`);
    return undefined;
  }
  return name;
}

/**
 * A list of names without duplicates. A duplicate is reported rather than collapsed, because in a
 * reviewed list it usually means a different name was meant.
 */
export function readNameList(value: unknown, path: string, problems: ProblemList): string[] | undefined {
  if (!Array.isArray(value)) {
    problems.add(path, `expected an array of names, got ${describeValue(value)}`);
    return undefined;
  }
  const names: string[] = [];
  const firstIndex = new Map<string, number>();
  let ok = true;
  value.forEach((item, index) => {
    const name = readName(item, at(path, index), problems);
    if (name === undefined) {
      ok = false;
      return;
    }
    const earlier = firstIndex.get(name);
    if (earlier !== undefined) {
      problems.add(at(path, index), `duplicate name "${name}" (already at ${at(path, earlier)})`);
      ok = false;
      return;
    }
    firstIndex.set(name, index);
    names.push(name);
  });
  return ok ? names : undefined;
}
