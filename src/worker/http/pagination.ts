/** ?limit= and ?cursor= for every list route, checked like any other input. */
import type { Context } from "hono";
import { decodeCursor } from "../../adapters/d1/json-column.js";
import { RESOURCE_NAME } from "../../core/names.js";
import { invalidRequest } from "./errors.js";
import { queryParam } from "./query.js";

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

/** ?limit=: digits only, from 1 to `max` (a list with larger pages, such as evidence, says so). */
export function pageLimit(c: Context, max = MAX_PAGE_SIZE, fallback = DEFAULT_PAGE_SIZE): number {
  return wholeNumberQuery(c, "limit", 1, max, `expected a whole number from 1 to ${max}`) ?? fallback;
}

/**
 * ?`name`= as a whole number from `min` to `max`, written in digits only (not `1e2`, `+5` or
 * `0x10`, which Number() would take), or undefined when absent; anything else is a 400 saying `message`.
 */
export function wholeNumberQuery(
  c: Context,
  name: string,
  min: number,
  max: number,
  message: string,
): number | undefined {
  const raw = queryParam(c, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw invalidRequest([{ path: `/query/${name}`, message }]);
  return value;
}

/**
 * What one kind of list's cursor holds: exactly `size` parts, which `read` turns into the value
 * the list's query starts from (undefined: not a cursor such a list hands out).
 */
interface CursorShape<T> {
  readonly size: number;
  read(parts: ReadonlyArray<string | number>): T | undefined;
}

/** The decoded cursor, or undefined for the first page; one of another shape is a 400. */
export function pageCursor<T>(c: Context, shape: CursorShape<T>): T | undefined {
  const raw = queryParam(c, "cursor");
  if (raw === undefined || raw === "") return undefined;
  const parts = decodeCursor(raw);
  const value = parts?.length === shape.size ? shape.read(parts) : undefined;
  if (value === undefined)
    throw invalidRequest([{ path: "/query/cursor", message: "not a cursor this list handed out" }]);
  return value;
}

/** Lists in name order: the name of the last item. */
export const NAME_CURSOR: CursorShape<string> = {
  size: 1,
  read: ([name]) => (typeof name === "string" && RESOURCE_NAME.test(name) ? name : undefined),
};

/** Histories newest first (versions, revisions): the number of the last one, 1 or more. */
export const VERSION_CURSOR: CursorShape<number> = {
  size: 1,
  read: ([version]) =>
    typeof version === "number" && Number.isSafeInteger(version) && version > 0 ? version : undefined,
};

/** Lists by position (a run's repetitions by n, its labels by seq): the last item's, 0 or more. */
export const POSITION_CURSOR: CursorShape<number> = {
  size: 1,
  read: ([n]) => (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined),
};

/** Lists newest first by creation: the (created_at, id) of the last item. */
export const CREATED_CURSOR: CursorShape<{ created_at: string; id: string }> = {
  size: 2,
  read: ([created_at, id]) => (isStoredTime(created_at) && isStoredId(id) ? { created_at, id } : undefined),
};

/** Webhook deliveries, newest first: the (received_at, id) of the last one. */
export const RECEIVED_CURSOR: CursorShape<{ received_at: string; id: string }> = {
  size: 2,
  read: ([received_at, id]) => (isStoredTime(received_at) && isStoredId(id) ? { received_at, id } : undefined),
};

/** A time as D1 stores them (toISOString, or SQLite's strftime('%Y-%m-%dT%H:%M:%fZ')). */
function isStoredTime(part: string | number | undefined): part is string {
  return typeof part === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/.test(part);
}

/** An id as newId makes them: a lowercase prefix, "_" and base64url. */
function isStoredId(part: string | number | undefined): part is string {
  return typeof part === "string" && /^[a-z]+_[A-Za-z0-9_-]{1,100}$/.test(part);
}
