/**
 * The functions version-2 expressions get beyond CEL's own: what τ-bench-style tools compute
 * (sums, Python's rounding, counting, sorting, zipping two lists, merging records). Each one
 * charges the call's cost budget for the elements it walks, so no function can be a way around
 * the budget. They take and give values as cel-js hands them: JSON numbers are doubles (JS
 * numbers), CEL integers are bigints, maps are plain objects, lists are arrays.
 */
import { jsonEqual, type JsonValue } from "../json.js";
import { arithmetic, MAX_ARITHMETIC_LENGTH } from "./arithmetic.js";
import { setOwn } from "./values.js";

/** Charges `units` to the budget of the call being evaluated (set by cel.ts around each evaluation). */
type Charge = (units: number, what: string) => void;

/** A refusal from inside a function: cel-js reports it as an evaluation error of the expression. */
function refuse(message: string): never {
  throw new Error(message);
}

function asNumber(value: unknown, what: string): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  return refuse(
    `${what} expects numbers; got ${value === null ? "null" : Array.isArray(value) ? "a list" : typeof value}`,
  );
}

/** Values compared the way JSON compares them: a CEL integer 2 equals the JSON number 2. */
function normalized(value: unknown): unknown {
  return typeof value === "bigint" ? Number(value) : value;
}

function sameValue(a: unknown, b: unknown): boolean {
  const x = normalized(a);
  const y = normalized(b);
  if (x === y) return true;
  if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
  // SAFETY: both are containers read from JSON data or built by CEL from it.
  return jsonEqual(x as JsonValue, y as JsonValue);
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return refuse(`${what} expects a map`);
  // SAFETY: a non-null, non-array object: a CEL map or a JSON object.
  return value as Record<string, unknown>;
}

/**
 * Python's round(x, digits) on a float: the decimal nearest to the exact binary value, and an
 * exact tie goes to the even digit. Number.prototype.toFixed also works on the exact value but
 * sends ties away from zero, so ties are detected from the exact expansion and corrected.
 */
export function pythonRound(x: number, digits: number): number {
  if (!Number.isFinite(x) || !Number.isInteger(digits) || digits < 0 || digits > 15) {
    return refuse(`round expects a finite number and 0 to 15 digits; got ${x} and ${digits}`);
  }
  const magnitude = Math.abs(x);
  if (magnitude >= 1e21) return x;
  const rounded = magnitude.toFixed(digits);
  // toFixed(100) is the exact decimal expansion of any double of this magnitude that can tie.
  const exact = magnitude.toFixed(100);
  const fraction = exact.slice(exact.indexOf(".") + 1);
  const rest = fraction.slice(digits);
  let result = Number(rounded);
  if (rest[0] === "5" && /^0*$/.test(rest.slice(1))) {
    const truncated = `${exact.slice(0, exact.indexOf("."))}.${fraction.slice(0, digits)}`;
    const lastDigit = Number((digits === 0 ? exact.slice(0, exact.indexOf(".")) : fraction.slice(0, digits)).slice(-1));
    if (lastDigit % 2 === 0) result = Number(truncated);
  }
  return x < 0 ? -result : result;
}

/** Registers every function on a cel-js environment (its registerFunction signature strings). */
export function functionTable(charge: Charge): Array<[string, (...args: never[]) => unknown]> {
  const list = (value: unknown, what: string): unknown[] => {
    if (!Array.isArray(value)) return refuse(`${what} expects a list`);
    charge(value.length, what);
    return value;
  };
  return [
    [
      "sum(list): double",
      (items: unknown[]) => {
        // Left to right from 0, as Python's sum() adds, so the float result is the same.
        let total = 0;
        for (const item of list(items, "sum")) total += asNumber(item, "sum");
        return total;
      },
    ],
    ["round(double, int): double", (x: number, digits: bigint) => pythonRound(x, Number(digits))],
    ["round(int, int): double", (x: bigint, digits: bigint) => pythonRound(Number(x), Number(digits))],
    ["abs(double): double", (x: number) => Math.abs(x)],
    ["abs(int): int", (x: bigint) => (x < 0n ? -x : x)],
    [
      "min(list): dyn",
      (items: unknown[]) => {
        const values = list(items, "min");
        if (values.length === 0) return refuse("min of an empty list");
        return values.reduce((best, item) => (asNumber(item, "min") < asNumber(best, "min") ? item : best));
      },
    ],
    [
      "max(list): dyn",
      (items: unknown[]) => {
        const values = list(items, "max");
        if (values.length === 0) return refuse("max of an empty list");
        return values.reduce((best, item) => (asNumber(item, "max") > asNumber(best, "max") ? item : best));
      },
    ],
    [
      "sorted(list): list",
      (items: unknown[]) => {
        const values = [...list(items, "sorted")];
        if (values.every((v) => typeof v === "string")) {
          // SAFETY: every value is a string (checked on the line above).
          return (values as string[]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        }
        return values.map((v) => asNumber(v, "sorted")).sort((a, b) => a - b);
      },
    ],
    [
      "count(list, dyn): int",
      (items: unknown[], value: unknown) => {
        let found = 0n;
        for (const item of list(items, "count")) if (sameValue(item, value)) found++;
        return found;
      },
    ],
    [
      "index_of(list, dyn): int",
      (items: unknown[], value: unknown) => {
        const values = list(items, "index_of");
        for (let i = 0; i < values.length; i++) if (sameValue(values[i], value)) return BigInt(i);
        return -1n;
      },
    ],
    [
      "zip(list, list): list",
      (a: unknown[], b: unknown[]) => {
        // Python's zip: pairs up to the shorter list.
        const left = list(a, "zip");
        const right = list(b, "zip");
        const out: unknown[][] = [];
        for (let i = 0; i < Math.min(left.length, right.length); i++) out.push([left[i], right[i]]);
        return out;
      },
    ],
    [
      "merge(map, map): map",
      (a: unknown, b: unknown) => {
        const left = asRecord(a, "merge");
        const right = asRecord(b, "merge");
        const out: Record<string, JsonValue> = {};
        const leftKeys = Object.keys(left);
        const rightKeys = Object.keys(right);
        charge(leftKeys.length + rightKeys.length, "merge");
        // SAFETY: map values are JSON values (read from JSON data or built by CEL from it).
        for (const key of leftKeys) setOwn(out, key, left[key] as JsonValue);
        for (const key of rightKeys) setOwn(out, key, right[key] as JsonValue);
        return out;
      },
    ],
    [
      "keys(map): list",
      (a: unknown) => {
        const keys = Object.keys(asRecord(a, "keys"));
        charge(keys.length, "keys");
        return keys;
      },
    ],
    [
      "values(map): list",
      (a: unknown) => {
        const record = asRecord(a, "values");
        const keys = Object.keys(record);
        charge(keys.length, "values");
        return keys.map((key) => record[key]);
      },
    ],
    [
      "object(list): map",
      (pairs: unknown[]) => {
        const out: Record<string, JsonValue> = {};
        for (const pair of list(pairs, "object")) {
          if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string")
            return refuse("object expects a list of [key, value] pairs with string keys");
          // SAFETY: as in merge, the value is JSON.
          setOwn(out, pair[0], pair[1] as JsonValue);
        }
        return out;
      },
    ],
    [
      "arithmetic(string): map",
      (expression: string) => {
        // The length up front (what tokenizing reads), then one unit per syntax-tree node evaluated.
        charge(Math.min(expression.length, MAX_ARITHMETIC_LENGTH + 1), "arithmetic");
        return { ...arithmetic(expression, () => charge(1, "arithmetic")) };
      },
    ],
    ["lower(string): string", (text: string) => text.toLowerCase()],
    ["upper(string): string", (text: string) => text.toUpperCase()],
  ];
}
