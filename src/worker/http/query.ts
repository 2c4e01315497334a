/**
 * Query parameters, the one way the API's routes read them. Hono's own reader (c.req.query) hands
 * back a value's raw text when its percent-escapes are not UTF-8 (`%ED%A0%80`, `%FF`, `%zz`), so
 * a route would store or compare "%ED%A0%80" verbatim; here such a value is a 400 naming the
 * parameter, like any other bad input. Otherwise the same reading as Hono's: the first occurrence
 * of the name counts, `+` is a space, a name without `=` is the empty string, and parameters no
 * route reads are never looked at.
 */
import type { Context } from "hono";
import { invalidRequest } from "./errors.js";

/** The decoded value of ?`name`=, or undefined when the query does not hold it. */
export function queryParam(c: Context, name: string): string | undefined {
  const url = c.req.url;
  const start = url.indexOf("?");
  if (start === -1) return undefined;
  const hash = url.indexOf("#", start);
  for (const pair of url.slice(start + 1, hash === -1 ? undefined : hash).split("&")) {
    const equals = pair.indexOf("=");
    if (formDecoded(equals === -1 ? pair : pair.slice(0, equals)) !== name) continue;
    if (equals === -1) return "";
    const value = formDecoded(pair.slice(equals + 1));
    if (value === undefined)
      throw invalidRequest([{ path: `/query/${name}`, message: "not a valid percent-encoded UTF-8 value" }]);
    return value;
  }
  return undefined;
}

/** application/x-www-form-urlencoded text decoded, or undefined when its escapes are not UTF-8. */
function formDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}
