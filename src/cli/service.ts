/**
 * The CLI's side of the toolproof HTTP API: where the service is (--url/--key, else
 * TOOLPROOF_URL/TOOLPROOF_API_KEY), and one request helper whose every failure is a ServiceError
 * saying which request failed and why (unreachable, or the API's {"error": {...}} body).
 */
import type { Problem } from "../core/json.js";
import { isRecord } from "../core/policy/fields.js";
import { UnusableInput } from "./io.js";
import { messageOf } from "../core/message-of.js";

export interface Service {
  /** Base URL without a trailing slash. */
  url: string;
  key: string;
}

/** The flags every service command takes. */
export const SERVICE_FLAGS = {
  url: { type: "string" },
  key: { type: "string" },
} as const;

export function serviceOf(
  flags: { url?: string | undefined; key?: string | undefined },
  env: NodeJS.ProcessEnv,
  command: string,
): Service {
  const url = serviceUrl(flags.url, env, command);
  const key = flags.key ?? env.TOOLPROOF_API_KEY;
  if (key === undefined || key.trim() === "")
    throw new UnusableInput(
      "command line",
      `missing --key <key> (or TOOLPROOF_API_KEY): an API key with AIManager:RunEvals; run "toolproof ${command} --help" for the options`,
    );
  return { url, key: key.trim() };
}

/** --url (else TOOLPROOF_URL), checked to be an http(s) URL, without a trailing slash. */
export function serviceUrl(flag: string | undefined, env: NodeJS.ProcessEnv, command: string): string {
  const url = flag ?? env.TOOLPROOF_URL;
  if (url === undefined || url.trim() === "")
    throw new UnusableInput(
      "command line",
      `missing --url <url> (or TOOLPROOF_URL): where toolproof runs; run "toolproof ${command} --help" for the options`,
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnusableInput(
      "--url",
      `--url: expected an http(s) URL such as http://127.0.0.1:8787, got ${JSON.stringify(url)}`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new UnusableInput("--url", `--url: expected an http(s) URL, got ${JSON.stringify(url)}`);
  return url.replace(/\/+$/, "");
}

/**
 * A request that did not get a 2xx answer. `status` is 0 when no answer came at all; `code`,
 * `details` and `problems` are the API error body's, when it had one.
 */
export class ServiceError extends Error {
  constructor(
    readonly request: string,
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    readonly problems: readonly Problem[] = [],
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

interface RequestOptions {
  method?: "GET" | "POST" | "PUT";
  body?: unknown;
  /** Ends the request after this long (a status poll must not hang a pipeline). */
  timeoutMs?: number;
}

/** One API request; the parsed JSON answer, or a ServiceError. */
export async function request(service: Service, path: string, options: RequestOptions = {}): Promise<unknown> {
  const method = options.method ?? "GET";
  const what = `${method} ${path}`;
  let response: Response;
  try {
    response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${service.key}`,
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
  } catch (error) {
    throw new ServiceError(what, 0, `cannot reach toolproof at ${service.url} (${what}): ${networkCause(error)}`);
  }
  const text = await response.text();
  const body = parseJson(text);
  if (response.ok) {
    if (body === undefined)
      throw new ServiceError(
        what,
        response.status,
        `${what} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
      );
    return body;
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (error === undefined)
    throw new ServiceError(
      what,
      response.status,
      `${what} answered ${response.status}${text.trim() === "" ? "" : `: ${text.slice(0, 200)}`}`,
    );
  const code = typeof error.code === "string" ? error.code : null;
  const message = typeof error.message === "string" ? error.message : "";
  const details = isRecord(error.details) ? error.details : undefined;
  const problems = Array.isArray(details?.problems) ? details.problems.filter(isProblem) : [];
  throw new ServiceError(
    what,
    response.status,
    `${what} answered ${response.status} ${code ?? "error"}: ${message}`,
    code,
    problems,
  );
}

function isProblem(value: unknown): value is Problem {
  return isRecord(value) && typeof value.path === "string" && typeof value.message === "string";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function networkCause(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "no answer in time";
  // fetch's own message is "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, a TLS error) is its cause.
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  if (typeof cause === "object" && cause !== null) {
    const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined;
    const message =
      "message" in cause && typeof cause.message === "string" && cause.message !== "" ? cause.message : undefined;
    const reason = message ?? code;
    if (reason !== undefined) return reason;
  }
  return messageOf(error);
}
