/**
 * The fuzz suite's harness: its settings (a fixed seed by default, so CI runs the same requests
 * every time), sending one generated request into the Worker while counting requests per route,
 * and the one verdict every answer gets: no 5xx but a documented harness error, and every error
 * in the documented body with a code of the closed vocabulary at that code's status.
 */
import fc from "fast-check";
import { exports } from "cloudflare:workers";
import { ERROR_STATUS } from "../../src/worker/http/errors.js";

/**
 * Settings: VITE_FUZZ_SEED and VITE_FUZZ_RUNS (Vite hands VITE_* variables to tests in workerd;
 * nothing else from the shell reaches them). FUZZ_RUNS scales every property's run count.
 */
const settings = (import.meta as unknown as { env?: Record<string, unknown> }).env ?? {};
export const FUZZ_SEED = integerSetting(settings.VITE_FUZZ_SEED) ?? 20_260_901;
/** Multiplies each property's default number of runs (1 = the bounded CI suite). */
export const FUZZ_SCALE = integerSetting(settings.VITE_FUZZ_RUNS) ?? 1;
/**
 * VITE_FUZZ_SURVEY=1: record every broken answer instead of stopping at the first, and print one
 * line per distinct failure with its shortest request (for finding everything in one run; the
 * suite still fails at the end).
 */
export const FUZZ_SURVEY = settings.VITE_FUZZ_SURVEY === "1";

function integerSetting(value: unknown): number | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : undefined;
}

/** fast-check parameters for one property: the suite's seed, runs scaled, shrinking kept short. */
export function fuzzParameters<T>(runs: number, examples: T[] = []): fc.Parameters<T> {
  return {
    seed: FUZZ_SEED,
    numRuns: runs * FUZZ_SCALE,
    examples,
    endOnFailure: false,
    interruptAfterTimeLimit: 120_000 * FUZZ_SCALE,
  };
}

// -- sending ------------------------------------------------------------------------------------

const counts = new Map<string, { requests: number; slowest: number }>();

export function requestCounts(): { total: number; byRoute: Record<string, { requests: number; slowest: number }> } {
  const byRoute = Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  return { total: [...counts.values()].reduce((sum, n) => sum + n.requests, 0), byRoute };
}

export function printCounts(suite: string): void {
  const { total, byRoute } = requestCounts();
  const lines = Object.entries(byRoute).map(
    ([route, n]) => `  ${String(n.requests).padStart(6)}  ${route} (slowest ${Math.round(n.slowest)} ms)`,
  );
  console.log(
    `${suite}: seed ${FUZZ_SEED} (VITE_FUZZ_SEED), scale ${FUZZ_SCALE} (VITE_FUZZ_RUNS), ${total} requests\n${lines.join("\n")}`,
  );
}

export interface Sent {
  method: string;
  path: string;
  contentType: string | null;
  body: string | Uint8Array | undefined;
}

export interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  /** Wall time from sending to the last byte of the body. */
  ms: number;
}

/**
 * No single request may take longer than this (VITE_FUZZ_SLOW_MS): a request that stalls the
 * Worker stalls every tenant's calls (one backtracking pattern took seconds per argument).
 */
export const SLOW_MS = integerSetting(settings.VITE_FUZZ_SLOW_MS) ?? 5_000;

/** One request into the Worker's own fetch handler, counted under `route`. */
export async function send(route: string, sent: Sent, headers: Record<string, string> = {}): Promise<Answer> {
  const all: Record<string, string> = { ...headers };
  if (sent.contentType !== null) all["content-type"] = sent.contentType;
  const started = performance.now();
  const response = await exports.default.fetch(
    new Request(`http://toolproof.test${sent.path}`, { method: sent.method, headers: all, body: sent.body }),
  );
  const text = await response.text();
  const ms = performance.now() - started;
  const count = counts.get(route) ?? { requests: 0, slowest: 0 };
  counts.set(route, { requests: count.requests + 1, slowest: Math.max(count.slowest, ms) });
  return { status: response.status, contentType: response.headers.get("content-type"), text, ms };
}

// -- the verdict --------------------------------------------------------------------------------

/** Which harness errors an answer may legitimately be (by kind), and how lenient the body check is. */
export interface Allowance {
  /** Harness error kinds this request may cause: the fixture or the naming is at fault, not a client's input. */
  harnessKinds?: readonly string[];
  /** MCP: the SDK transport answers its own protocol errors as JSON-RPC bodies, not toolproof's. */
  mcp?: boolean;
  /** Codes this route answers with another status than ERROR_STATUS, as its OpenAPI entry documents. */
  statusOf?: Partial<Record<keyof typeof ERROR_STATUS, number>>;
}

const CODES = new Set<string>(Object.keys(ERROR_STATUS));

export function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Why the answer breaks the contract, or null when it keeps it. */
export function verdict(answer: Answer, allowance: Allowance = {}): string | null {
  if (answer.ms > SLOW_MS) return `an answer that took ${Math.round(answer.ms)} ms (the bound is ${SLOW_MS} ms)`;
  const parsed = parse(answer.text);
  if (answer.status >= 200 && answer.status < 300) {
    if (answer.text === "" && (answer.status === 202 || answer.status === 204)) return null;
    if (!parsed.ok) return `a ${answer.status} answer whose body is not JSON`;
    return allowance.mcp ? mcpVerdict(parsed.value, allowance) : null;
  }
  if (!parsed.ok) return `a ${answer.status} answer whose body is not JSON`;
  if (allowance.mcp && isJsonRpcError(parsed.value)) {
    // The SDK's transport refuses bad HTTP (Accept, content type, parse errors) with JSON-RPC bodies.
    return answer.status >= 400 && answer.status < 500
      ? null
      : `a ${answer.status} JSON-RPC error from the MCP transport`;
  }
  const body = parsed.value;
  if (!isRecord(body) || Object.keys(body).join() !== "error" || !isRecord(body.error))
    return `a ${answer.status} answer not in the documented {"error": {...}} shape`;
  const error = body.error;
  const { code, message } = error;
  if (typeof code !== "string" || !CODES.has(code))
    return `a ${answer.status} answer with code ${JSON.stringify(code)}, which is not in ERROR_STATUS`;
  if (typeof message !== "string" || message === "") return `a ${answer.status} ${code} without a message`;
  const expected =
    allowance.statusOf?.[code as keyof typeof ERROR_STATUS] ?? ERROR_STATUS[code as keyof typeof ERROR_STATUS];
  if (expected !== answer.status)
    return `code ${code} answered with ${answer.status}, but ERROR_STATUS says ${expected}`;
  const allowedKeys =
    code === "harness_error" ? ["code", "kind", "message", "details"] : ["code", "message", "details"];
  const extra = Object.keys(error).filter((key) => !allowedKeys.includes(key));
  if (extra.length > 0) return `a ${code} body with undocumented fields ${extra.join(", ")}`;
  if (answer.status >= 500) {
    if (code !== "harness_error") return `a 5xx that is not a documented harness error (${code}: ${message})`;
    if (!(allowance.harnessKinds ?? []).includes(String(error.kind)))
      return `a harness error of kind ${String(error.kind)} that this input must never cause (${message})`;
  }
  return null;
}

function isJsonRpcError(value: unknown): boolean {
  return (
    isRecord(value) &&
    value.jsonrpc === "2.0" &&
    isRecord(value.error) &&
    typeof value.error.code === "number" &&
    typeof value.error.message === "string"
  );
}

/** A 2xx MCP body: JSON-RPC answers; an internal error (-32603) must be a documented harness error. */
function mcpVerdict(value: unknown, allowance: Allowance): string | null {
  const messages = Array.isArray(value) ? value : [value];
  for (const message of messages) {
    if (!isRecord(message) || message.jsonrpc !== "2.0") return "an MCP answer that is not JSON-RPC 2.0";
    if (!isRecord(message.error)) continue;
    if (message.error.code !== -32603) continue;
    const data = message.error.data;
    if (!isRecord(data) || data.code !== "harness_error")
      return `a JSON-RPC internal error that is not a harness error: ${String(message.error.message)}`;
    if (!(allowance.harnessKinds ?? []).includes(String(data.kind)))
      return `a harness error of kind ${String(data.kind)} that this input must never cause (${String(message.error.message)})`;
  }
  return null;
}

/** A short, exact picture of a request and its answer for a failure message. */
export function describeExchange(sent: Sent, answer: Answer): string {
  const body =
    sent.body === undefined
      ? "(no body)"
      : typeof sent.body === "string"
        ? clip(JSON.stringify(sent.body), 600)
        : `bytes [${[...sent.body].join(", ")}]`;
  return `${sent.method} ${clip(sent.path, 200)} content-type ${JSON.stringify(sent.contentType)} body ${body}\n  -> ${answer.status} ${clip(answer.text, 600)}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

const survey = new Map<string, { count: number; shortest: string; size: number }>();

/** Throws (for fast-check to shrink) when the answer breaks the contract; in survey mode, records it. */
export function expectDocumented(
  route: string,
  sent: Sent,
  answer: Answer,
  allowance: Allowance = {},
  generated?: unknown,
): void {
  failOn(route, verdict(answer, allowance), sent, answer, generated);
}

/** Throws (or in survey mode records) `problem` unless it is null. */
export function failOn(route: string, problem: string | null, sent: Sent, answer: Answer, generated?: unknown): void {
  if (problem === null) return;
  const exchange = describeExchange(sent, answer);
  if (!FUZZ_SURVEY) throw new Error(`${problem}\n  ${exchange}`);
  const generatedText = generated === undefined ? "" : `\n    case ${clip(fc.stringify(generated), 700)}`;
  const signature = `${route} | ${problem
    .replace(/"[^"]*"/g, '"…"')
    .replace(/[0-9]+/g, "N")
    .slice(0, 160)} | ${caseTags(generated).join(" ")}`;
  const size = typeof sent.body === "string" ? sent.body.length : (sent.body?.length ?? 0);
  const known = survey.get(signature);
  if (!known) survey.set(signature, { count: 1, shortest: exchange + generatedText, size });
  else {
    known.count++;
    if (size < known.size) Object.assign(known, { shortest: exchange + generatedText, size });
  }
}

/** The odd ingredients of a generated case, so the survey tells failures with different causes apart. */
function caseTags(generated: unknown): string[] {
  if (generated === undefined) return [];
  const text = fc.stringify(generated);
  const tags = new Set<string>();
  for (const match of text.matchAll(/nested ([0-9]+) deep/g))
    tags.add(Number(match[1]) >= 1000 ? "deep>=1000" : `deep${match[1]}`);
  for (const match of text.matchAll(/raw\((-?[0-9.]+[eE][-+]?[0-9]+|[0-9]{16,})\)/g)) tags.add(`number ${match[1]}`);
  if (/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i.test(text))
    tags.add("lone-surrogate");
  if (/x [0-9]{4,}/.test(text)) tags.add("long-string");
  if (/__proto__|constructor|prototype/.test(text)) tags.add("proto-key");
  for (const match of text.matchAll(/raw\(("[^"]{0,40})/g))
    if (!/nested|x [0-9]/.test(match[1] ?? "")) tags.add(`raw ${match[1]}`);
  return [...tags];
}

/** Survey mode: prints every distinct failure and throws when there was any. */
export function reportSurvey(suite: string): void {
  if (!FUZZ_SURVEY) return;
  const lines = [...survey.entries()].map(
    ([signature, { count, shortest }]) => `- ${signature} (x${count})\n    ${shortest}`,
  );
  console.log(`${suite}: ${survey.size} distinct failures\n${lines.join("\n")}`);
  if (survey.size > 0) throw new Error(`${survey.size} distinct failures (see the log)`);
}
