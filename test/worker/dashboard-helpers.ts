/**
 * Dashboard test helpers: sign in through the real form (as a browser would: the sign-in page's
 * cookie and hidden token, an Origin header), then read pages as a person would see them.
 */
import { exports } from "cloudflare:workers";

export const ORIGIN = "http://toolproof.test";

export interface Browser {
  /** The cookies the app set, as a Cookie header. */
  cookie: string;
  /** The session's CSRF token, read from a page's hidden field. */
  csrf: string;
}

/** One request with cookies and, for POSTs, a form body and the page's origin. */
export function fetchPage(
  method: "GET" | "POST",
  path: string,
  options: { cookie?: string; form?: Record<string, string>; origin?: string | null; base?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  let body: string | undefined;
  if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  const base = options.base ?? ORIGIN;
  if (method === "POST" && options.origin !== null) headers.origin = options.origin ?? base;
  return exports.default.fetch(new Request(`${base}${path}`, { method, headers, body, redirect: "manual" }));
}

/** name=value pairs of every Set-Cookie, for the next request's Cookie header. */
export function cookiesOf(response: Response, previous = ""): string {
  const jar = new Map(
    previous
      .split("; ")
      .filter(Boolean)
      .map((pair) => [pair.split("=")[0] ?? "", pair] as const),
  );
  for (const header of response.headers.getSetCookie()) {
    const pair = header.split(";")[0] ?? "";
    const [name = "", value = ""] = pair.split("=");
    if (value === "") jar.delete(name);
    else jar.set(name, pair);
  }
  return [...jar.values()].join("; ");
}

/** The value of the hidden input `name` on a page. */
export function hiddenField(html: string, name: string): string | undefined {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  return match?.[1];
}

/** What a person reads: the body's text without tags, entities decoded, whitespace collapsed. */
export function visibleText(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/.exec(html)?.[1] ?? html;
  return body
    .replace(/<(script|style|title|desc)[^>]*>[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

/** The visible text of each row of the table whose caption is `caption`, cells joined by " | ". */
export function tableRows(html: string, caption: string): string[] {
  const tables = html.split("<table").slice(1);
  const table = tables.find((t) => visibleText(/<caption>([\s\S]*?)<\/caption>/.exec(t)?.[1] ?? "") === caption);
  if (!table) return [];
  const rows = table.split("</table>")[0]?.match(/<tr(?:\s[^>]*)?>[\s\S]*?<\/tr>/g) ?? [];
  return rows.map((row) =>
    (row.match(/<t[hd][^>]*>[\s\S]*?<\/t[hd]>/g) ?? []).map((cell) => visibleText(cell)).join(" | "),
  );
}

/** Signs in with `key` through the form and answers the browser state after it. */
export async function signInWith(key: string): Promise<Browser> {
  const form = await fetchPage("GET", "/sign-in");
  let cookie = cookiesOf(form);
  const token = hiddenField(await form.text(), "csrf_token");
  if (!token) throw new Error("the sign-in page has no token field");
  const signedIn = await fetchPage("POST", "/sign-in", {
    cookie,
    form: { csrf_token: token, api_key: key, next: "/tools" },
  });
  if (signedIn.status !== 303)
    throw new Error(`sign-in answered ${signedIn.status}: ${visibleText(await signedIn.text())}`);
  cookie = cookiesOf(signedIn, cookie);
  const home = await fetchPage("GET", "/tools", { cookie });
  const csrf = hiddenField(await home.text(), "csrf_token");
  if (!csrf) throw new Error("a signed-in page has no CSRF field");
  return { cookie, csrf };
}

/** A page read by a signed-in browser: status and the text a person sees. */
export async function readPage(
  browser: Browser,
  path: string,
): Promise<{ status: number; text: string; html: string }> {
  const response = await fetchPage("GET", path, { cookie: browser.cookie });
  const html = await response.text();
  return { status: response.status, text: visibleText(html), html };
}
