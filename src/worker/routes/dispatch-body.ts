/**
 * Reads a dispatch body as text: the attempt object parses it, so the arguments cross the RPC
 * boundary once, as one string. Same refusals as every JSON route (415, 413, 400), never a 500.
 */
import type { Context } from "hono";
import { ApiError } from "../http-error.js";

/** Arguments of one tool call; far above any real call, far below what could hurt the object. */
export const DISPATCH_BODY_LIMIT = 256 * 1024;

export async function readDispatchText(c: Context): Promise<string> {
  const contentType = c.req.header("content-type") ?? "";
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType.trim())) {
    throw new ApiError(415, "unsupported_media_type", `expected Content-Type: application/json, got ${contentType ? `"${contentType}"` : "none"}`);
  }
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > DISPATCH_BODY_LIMIT) throw tooLarge();
  const request = c.req.raw;
  // A declared length within the limit lets the runtime buffer the body in one step (the common
  // case); without one, count while streaming so a body that lies cannot make us buffer more.
  const text = Number.isFinite(declared) && c.req.header("content-length") !== undefined ? await request.text() : await readWithin(request);
  if (text.length > DISPATCH_BODY_LIMIT) throw tooLarge();
  if (text.trim() === "") throw new ApiError(400, "malformed_json", "the request body is empty; expected {tool, operation_id?, arguments, call_id?}");
  return text;
}

async function readWithin(request: Request): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  let total = 0;
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > DISPATCH_BODY_LIMIT) {
        await reader.cancel();
        throw tooLarge();
      }
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(400, "malformed_json", "the request body is not valid UTF-8");
  }
}

function tooLarge(): ApiError {
  return new ApiError(413, "payload_too_large", `the request body exceeds the limit of ${DISPATCH_BODY_LIMIT} bytes`, { limit_bytes: DISPATCH_BODY_LIMIT });
}
