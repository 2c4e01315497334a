/**
 * Where a library tool's real handler is, for explicit real-tools runs: an HTTP base URL with a
 * method and path template per operation, or an upstream MCP server (Streamable HTTP) whose
 * tools/call answers the operation. Pure: what a request to the real handler looks like, and which
 * addresses and hosts a request may go to. The Worker sends it (src/worker/real/).
 */
import { isJsonObject, pointer, type JsonObject, type JsonValue, type Problem } from "../json.js";
import { specialAddress } from "./upstream-address.js";

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

/** Bounds of one upstream call: defaults, and the most a tool may ask for. */
export const UPSTREAM_LIMITS = {
  defaultTimeoutMs: 10_000,
  maxTimeoutMs: 30_000,
  defaultMaxBodyBytes: 1024 * 1024,
  /**
   * An answer is kept in its call's evidence, one row of the attempt's storage and of D1, which
   * holds at most 1,900,000 bytes of it (worker/attempts/call-records.ts, MAX_EVIDENCE_ROW_BYTES;
   * a test keeps the two equal). A larger answer could be read but never given to the agent.
   */
  maxBodyBytes: 1_900_000,
} as const;

interface HttpOperationUpstream {
  method: HttpMethod;
  /** Path below the base URL; `{name}` is replaced by the argument `name`, percent-encoded. */
  path: string;
  /** Arguments sent as query parameters. Default: every argument not in the path, for GET and DELETE. */
  query?: string[] | undefined;
  /** Arguments sent as the JSON body's members. Default: every argument not in the path or query, for POST, PUT and PATCH. */
  body?: string[] | undefined;
  /** Must be true before a real call to an operation the policy calls a write. */
  allow_writes?: boolean | undefined;
}

interface McpOperationUpstream {
  /** The upstream server's tool name; default: the operation id. */
  tool?: string | undefined;
  allow_writes?: boolean | undefined;
}

export type UpstreamConfig =
  | {
      kind: "http";
      base_url: string;
      operations: Record<string, HttpOperationUpstream>;
      timeout_ms: number;
      max_body_bytes: number;
    }
  | {
      kind: "mcp";
      mcp_url: string;
      operations: Record<string, McpOperationUpstream>;
      timeout_ms: number;
      max_body_bytes: number;
    };

/** One operation's real handler as an attempt holds it; credentials stay sealed until the Worker sends the call. */
export type RealBinding = {
  tool_id: string;
  timeout_ms: number;
  max_body_bytes: number;
  /** The sealed credentials (see secret-box.ts), opened by the Worker only to send the call. */
  sealed: string | null;
} & (
  | { kind: "http"; base_url: string; method: HttpMethod; path: string; query: string[] | null; body: string[] | null }
  | { kind: "mcp"; mcp_url: string; tool: string }
);

/** The names `{name}` in a path template, in order. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1] ?? "");
}

/**
 * Path arguments that would not stay in their segment: a filled segment that is `.` or `..`
 * (a dot segment: the URL parser, and most servers, resolve it, so "/invoices/.." names the
 * parent) or empty ("/invoices/" names the collection). Percent-encoding cannot help: `%2e` is a
 * dot segment to the URL parser too, so such a value is refused, as the agent's tool input error
 * (the object checks it with the input schema, before anything is sent). Empty for mcp bindings.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function pathArgumentProblems(binding: RealBinding | null, args: JsonObject): Problem[] {
  if (binding?.kind !== "http") return [];
  const problems: Problem[] = [];
  for (const segment of binding.path.split("/")) {
    const names = pathParameters(segment);
    if (names.length === 0) continue;
    const values = names.map((name) => (Object.hasOwn(args, name) ? args[name] : undefined));
    // A missing or non-scalar value is httpCall's to report; only scalars can fill the segment.
    if (!values.every((value) => typeof value === "string" || typeof value === "number" || typeof value === "boolean"))
      continue;
    const malformed = names.filter((_, i) => typeof values[i] === "string" && LONE_SURROGATE.test(values[i]));
    for (const name of malformed) {
      problems.push({
        path: pointer(name),
        message: `a lone UTF-16 surrogate has no UTF-8 form, so it cannot be percent-encoded into the path segment ${segment} of ${binding.path}`,
      });
    }
    if (malformed.length > 0) continue;
    let index = 0;
    const filled = segment.replace(/\{([^{}]+)\}/g, () => String(values[index++]));
    if (filled !== "" && filled !== "." && filled !== "..") continue;
    const why = filled === "" ? "an empty value" : `"${filled}"`;
    for (const name of names) {
      problems.push({
        path: pointer(name),
        message: `${why} cannot be sent as the path segment ${segment} of ${binding.path}: the URL would name another resource than the one the argument means (a dot segment moves up or stays, an empty one joins its neighbours)`,
      });
    }
  }
  return problems;
}

type HttpCall = { ok: true; url: string; method: HttpMethod; body: string | null } | { ok: false; message: string };

/**
 * The request for one call: path parameters from the arguments (each must be a string, number or
 * boolean), then the query, then the JSON body, as the binding declares or its method implies.
 */
export function httpCall(binding: Extract<RealBinding, { kind: "http" }>, args: JsonObject): HttpCall {
  const inPath = new Set<string>();
  let path = "";
  let last = 0;
  for (const match of binding.path.matchAll(/\{([^{}]+)\}/g)) {
    const name = match[1] ?? "";
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      return {
        ok: false,
        message: `the path template ${binding.path} needs the argument "${name}" as a string, number or boolean, and the call ${value === undefined ? "has none" : "gives another type"}`,
      };
    }
    path += binding.path.slice(last, match.index) + encodeURIComponent(String(value));
    last = (match.index ?? 0) + match[0].length;
    inPath.add(name);
  }
  path += binding.path.slice(last);
  // Checked by the attempt's object first; here again so that no stored binding or object can send one.
  const [moved] = pathArgumentProblems(binding, args);
  if (moved) return { ok: false, message: `${moved.path}: ${moved.message}` };
  const rest = Object.keys(args).filter((name) => !inPath.has(name));
  const readsBody = binding.method === "POST" || binding.method === "PUT" || binding.method === "PATCH";
  const queryNames = binding.query ?? (readsBody ? [] : rest);
  const bodyNames = binding.body ?? (readsBody ? rest.filter((name) => !queryNames.includes(name)) : []);
  const url = new URL(joinPath(binding.base_url, path));
  for (const name of queryNames) {
    if (!Object.hasOwn(args, name)) continue;
    const value = args[name];
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, queryText(item));
    else url.searchParams.append(name, queryText(value ?? null));
  }
  let body: string | null = null;
  if (readsBody || bodyNames.length > 0) {
    const members: JsonObject = {};
    for (const name of bodyNames) if (Object.hasOwn(args, name)) members[name] = args[name] ?? null;
    body = JSON.stringify(members);
  }
  return { ok: true, url: url.toString(), method: binding.method, body };
}

function joinPath(base: string, path: string): string {
  const trimmed = base.endsWith("/") ? base.slice(0, -1) : base;
  return path.startsWith("/") ? trimmed + path : `${trimmed}/${path}`;
}

function queryText(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Why a request to `url` must not be sent from a deployed instance, or null when it may be. */
export function addressRefusal(url: string, allowLoopback: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return `only http and https upstreams are allowed, not ${parsed.protocol}`;
  if (parsed.username !== "" || parsed.password !== "")
    return "an upstream URL must not carry credentials; store them as the tool's upstream credentials";
  const special = specialAddress(parsed.hostname);
  if (special === null) return null;
  if (special.loopback && allowLoopback) return null;
  const hint = special.loopback
    ? " (a local instance allows loopback with TOOLPROOF_ALLOW_LOOPBACK_UPSTREAMS=1, which npm start sets)"
    : "";
  return `the host ${parsed.hostname} is a${/^[aeiou]/i.test(special.range) ? "n" : ""} ${special.range} address, which a deployed instance never calls${hint}`;
}

/** Whether `hostname` is on the tenant's allowlist: exact names, or `*.example.com` for its subdomains. */
export function hostAllowed(hostname: string, allowlist: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return allowlist.some((entry) => {
    const allowed = entry.toLowerCase();
    return allowed.startsWith("*.") ? host.endsWith(allowed.slice(1)) : host === allowed;
  });
}

/**
 * Why an allowlist entry (lower-cased, without `*.`) can never equal a URL's host, or null when it
 * can. The allowlist compares the host as the URL parser spells it, so an entry must be that
 * spelling: `127.1` is read as 127.0.0.1 and would never match, `0:0:0:0:0:0:0:1` is `::1`.
 */
export function allowlistEntryProblem(entry: string): string | null {
  const host = entry.startsWith("*.") ? entry.slice(2) : entry;
  let parsed: string;
  try {
    parsed = new URL(`http://${host.includes(":") ? `[${host}]` : host}/`).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return `"${entry}" can never be the host of a URL: a name whose last label is a number is read as an IPv4 address, and this one is not one`;
  }
  if (parsed === host) return null;
  const canonical = entry.startsWith("*.") ? `*.${parsed}` : parsed;
  return `the URL parser reads "${entry}" as ${canonical}, and the allowlist compares hosts as URLs spell them: write "${canonical}"`;
}

/** The host of an upstream URL, as the allowlist names it. */
export function upstreamHost(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, "");
}

/** The URL a binding sends to, for the address and allowlist checks. */
export function bindingUrl(binding: RealBinding): string {
  return binding.kind === "http" ? binding.base_url : binding.mcp_url;
}

/** A real handler's answer to an MCP tools/call, as the agent receives it: structuredContent, else the text parsed as JSON, else the text. */
export function mcpAnswer(result: unknown): JsonValue {
  if (!isJsonObject(result)) return null;
  if (isJsonObject(result.structuredContent)) return result.structuredContent;
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.flatMap((part) =>
    isJsonObject(part) && part.type === "text" && typeof part.text === "string" ? [part.text] : [],
  );
  const text = texts.join("");
  try {
    const parsed: unknown = JSON.parse(text);
    // SAFETY: JSON.parse answers JSON values only.
    return parsed as JsonValue;
  } catch {
    return text;
  }
}
