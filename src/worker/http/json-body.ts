/**
 * Reads request bodies defensively: content type, size limit while streaming, UTF-8, parse errors,
 * nesting depth, non-finite numbers and lone surrogates all become 4xx answers that say what was
 * wrong, never a 500. Field validation against a route's schema is field-hints.ts's readBodyWithHints.
 */
import type { Context } from "hono";
import { jsonTextProblems, jsonInputProblems } from "../../core/json-input.js";
import { otherCharsetProblem } from "./charset.js";
import { ApiError, invalidRequest } from "./errors.js";
import { messageOf } from "../../core/message-of.js";

const DEFAULT_BODY_LIMIT = 256 * 1024;

/** The whole media type (application/json, application/vnd.foo+json), ending at its parameters or the header: never application/json-foo. */
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json[ \t]*(;|$)/i;

/**
 * The body as text, refused with 415 when its Content-Type names a charset other than UTF-8, 413
 * past `maxBytes` (counted while streaming) and 400 when not UTF-8.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const otherCharset = otherCharsetProblem(request.headers.get("content-type") ?? "");
  if (otherCharset !== undefined) throw new ApiError("unsupported_media_type", otherCharset);
  let bytes: Uint8Array;
  try {
    bytes = await readBodyBytes(request, maxBytes);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError("invalid_encoding", "the request body is not valid UTF-8");
  }
  const text = utf8Text(bytes);
  if (text === undefined) throw new ApiError("invalid_encoding", "the request body is not valid UTF-8");
  return text;
}

/** The bytes as UTF-8 text (a leading byte order mark dropped), or undefined when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The body's bytes as received (signatures are over these), refused with 413 past `maxBytes`. */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const length = request.headers.get("content-length");
  const declared = length === null ? Number.NaN : Number(length);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  // The HTTP layer delivers exactly Content-Length bytes, so the body can be read in one piece:
  // a stream reader's round trips cost more than the rest of a small dispatch put together.
  if (Number.isInteger(declared) && declared >= 0) return new Uint8Array(await request.arrayBuffer());
  // Counting while streaming means a client that lies about (or omits) Content-Length still cannot
  // make us buffer more than the limit.
  const bytes = await readCapped(request.body, maxBytes);
  if (bytes === undefined) throw tooLarge(maxBytes);
  return bytes;
}

/**
 * Content types a route takes besides JSON (read by the route itself), named in its 415 answer so
 * a client that forgot the header learns every way in.
 */
type OtherBodyTypes = readonly string[];

/** A JSON body's text, unparsed: for callers that hand it on (the attempt object parses it itself). */
export async function readJsonText(
  c: Context,
  maxBytes: number = DEFAULT_BODY_LIMIT,
  others: OtherBodyTypes = [],
): Promise<string> {
  return readRequestJsonText(c.req.raw, maxBytes, others);
}

/** readJsonText for a plain Request (the dispatch path runs without a Hono context). */
export async function readRequestJsonText(
  request: Request,
  maxBytes: number = DEFAULT_BODY_LIMIT,
  others: OtherBodyTypes = [],
): Promise<string> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!JSON_TYPE.test(contentType.trim())) {
    const accepted = ["application/json", ...others].join(" or ");
    throw new ApiError(
      "unsupported_media_type",
      `expected Content-Type: ${accepted}, got ${contentType ? JSON.stringify(contentType) : "none"}`,
    );
  }
  const text = await readBodyText(request, maxBytes);
  if (text.trim() === "") throw new ApiError("malformed_json", "the request body is empty; expected a JSON object");
  return text;
}

/**
 * The parsed body, refused with 400 invalid_request (naming each place) when it nests past
 * MAX_JSON_DEPTH, holds a number JSON cannot carry (1e400) or would read as another number
 * (9007199254740993), gives a key twice in one object, or holds a string or key that is not
 * well-formed Unicode. Past this point every walk over the body may be recursive.
 */
export async function readJson(
  c: Context,
  maxBytes: number = DEFAULT_BODY_LIMIT,
  others: OtherBodyTypes = [],
): Promise<unknown> {
  const text = await readJsonText(c, maxBytes, others);
  let value: unknown;
  try {
    // JSON.parse itself is iterative in V8: any depth parses, and the check below bounds it.
    value = JSON.parse(text);
  } catch (error) {
    const reason = messageOf(error);
    const hint = others.length > 0 ? ` (a body in another format needs its Content-Type: ${others.join(" or ")})` : "";
    throw new ApiError("malformed_json", `the request body is not valid JSON: ${reason}${hint}`);
  }
  const problems = jsonInputProblems(value, { wellFormed: true, what: "a request body" });
  if (problems.length > 0) throw invalidRequest(problems);
  const lost = jsonTextProblems(text);
  if (lost.length > 0) throw invalidRequest(lost);
  return value;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `the request body exceeds the limit of ${maxBytes} bytes`, {
    limit_bytes: maxBytes,
  });
}

/**
 * A stream's bytes, counted while they arrive: undefined (and the stream cancelled) as soon as
 * they pass `maxBytes`, so no sender can make us buffer more than that. Shared by request bodies
 * and real-tools upstream answers.
 */
export async function readCapped(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
