/**
 * Versioned documents a client PUTs by name (policies, suites): the name and version path
 * parameters, and the body in JSON or YAML under one size limit. One reader for both, so a suite
 * and a policy are sent, named and refused the same way.
 */
import type { Context } from "hono";
import type { JsonValue } from "../../core/json.js";
import { RESOURCE_NAME, RESOURCE_NAME_RULE } from "../../core/names.js";
import { isJsonValue } from "../../core/policy/fields.js";
import { parseText } from "../../core/policy/parse-text.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, invalidRequest } from "./errors.js";
import { readBodyText, readJson } from "./json-body.js";

/** The whole media type, ending at its parameters or the header: never application/yaml-foo. */
const YAML_TYPES = /^(application|text)\/(x-)?yaml[ \t]*(;|$)/i;

/** The `:name` path parameter of a stored document. */
export function documentName(raw: string): string {
  if (RESOURCE_NAME.test(raw)) return raw;
  throw invalidRequest([{ path: "/params/name", message: RESOURCE_NAME_RULE }]);
}

/** The `:version` path parameter (1, 2, ...). */
export function versionParam(raw: string): number {
  if (/^[1-9][0-9]{0,8}$/.test(raw)) return Number(raw);
  throw invalidRequest([{ path: "/params/version", message: "expected a version number (1, 2, ...)" }]);
}

/** JSON through the shared reader; YAML (application/yaml) read here under the same size limit. */
export async function readDocumentBody(c: Context<AppEnv>, maxBytes: number, what: string): Promise<JsonValue> {
  const contentType = c.req.header("content-type") ?? "";
  if (!YAML_TYPES.test(contentType.trim())) {
    const value = await readJson(c, maxBytes, ["application/yaml"]);
    // JSON.parse only produces JSON values; the guard gives the value its type without a cast.
    if (isJsonValue(value)) return value;
    throw invalidRequest([{ path: "", message: `expected ${what}` }]);
  }
  const text = await readBodyText(c.req.raw, maxBytes);
  const parsed = parseText(text, "yaml", { maxJsonBytes: maxBytes });
  if (!parsed.ok)
    throw new ApiError(
      "malformed_yaml",
      `the request body is ${parsed.message.startsWith("not") ? parsed.message : `not usable: ${parsed.message}`}`,
    );
  return parsed.value;
}
