/** ?limit= and ?cursor= for every list route, checked like any other input. */
import type { Context } from "hono";
import { decodeCursor } from "../../adapters/d1/json-column.js";
import { invalidRequest } from "./errors.js";

export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

export function pageLimit(c: Context): number {
  const raw = c.req.query("limit");
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalidRequest([{ path: "/query/limit", message: `expected a whole number from 1 to ${MAX_PAGE_SIZE}` }]);
  }
  return limit;
}

/** The decoded cursor parts, or undefined for the first page; `check` validates their shape. */
export function pageCursor<T>(c: Context, check: (parts: Array<string | number>) => T | undefined): T | undefined {
  const raw = c.req.query("cursor");
  if (raw === undefined || raw === "") return undefined;
  const parts = decodeCursor(raw);
  const value = parts ? check(parts) : undefined;
  if (value === undefined)
    throw invalidRequest([{ path: "/query/cursor", message: "not a cursor this list handed out" }]);
  return value;
}
