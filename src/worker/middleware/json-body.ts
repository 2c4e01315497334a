/**
 * Reads a JSON request body defensively: content type, size limit while streaming, parse errors and
 * field validation all become 4xx answers that say what was wrong, never a 500.
 */
import type { Context } from "hono";
import type { z } from "zod";
import { ApiError, invalidRequest } from "../http-error.js";
import { zodProblems } from "../validation.js";

export const DEFAULT_BODY_LIMIT = 256 * 1024;

export async function readJson(c: Context, maxBytes: number = DEFAULT_BODY_LIMIT): Promise<unknown> {
  const contentType = c.req.header("content-type") ?? "";
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType.trim())) {
    throw new ApiError(415, "unsupported_media_type", `expected Content-Type: application/json, got ${contentType ? `"${contentType}"` : "none"}`);
  }
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readTextWithin(c.req.raw, maxBytes);
  if (text.trim() === "") throw new ApiError(400, "malformed_json", "the request body is empty; expected a JSON object");
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ApiError(400, "malformed_json", `the request body is not valid JSON: ${reason}`);
  }
}

/** Reads and validates a JSON body against a zod schema; unknown fields are the schema's concern (strict objects). */
export async function readBody<T extends z.ZodType>(c: Context, schema: T, maxBytes?: number): Promise<z.output<T>> {
  const raw = await readJson(c, maxBytes);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidRequest(zodProblems(parsed.error));
  return parsed.data;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "payload_too_large", `the request body exceeds the limit of ${maxBytes} bytes`, { limit_bytes: maxBytes });
}

// Counting while streaming means a client that lies about (or omits) Content-Length still cannot
// make us buffer more than the limit.
async function readTextWithin(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError(400, "malformed_json", "the request body is not valid UTF-8");
  }
}
