/** Request-field schemas shared by several routes (zod, strict objects so unknown fields are refused). */
import { z } from "zod";
import { isJsonObject, type JsonObject, type JsonValue, type Problem } from "../../core/json.js";
import type { JsonSchema, SchemaValidator } from "../../core/ports.js";
import { RESOURCE_NAME, RESOURCE_NAME_RULE } from "../../core/names.js";
import { schemaFieldProblem } from "../../core/schema-problems.js";
import { invalidRequest } from "./errors.js";
import { describeType } from "./validation.js";

/**
 * A JSON object field, handed on exactly as parsed. The body reader has already checked the whole
 * body is JSON (bounded depth, finite numbers, well-formed strings), so only the shape is checked
 * here. Deliberately not z.record: zod rebuilds a record by assignment, and assigning "__proto__"
 * sets a prototype instead of storing the key, which silently dropped a schema's "__proto__"
 * property and hashed the contract without it.
 */
export const jsonObject: z.ZodType<JsonObject> = z.custom<JsonObject>(isJsonObject, {
  error: (issue) => (issue.input === undefined ? "required" : `expected object, got ${describeType(issue.input)}`),
});
/**
 * A record of `value` from client JSON, handed on as parsed (same reason as jsonObject: z.record
 * would drop a "__proto__" key). Each value is checked with `value`, which must not transform
 * it, and a bad one is reported at its own key. Read it with Object.hasOwn: a client's key may be
 * called "constructor".
 */
export function clientRecord<T extends z.ZodType<JsonValue, JsonValue>>(
  value: T,
): z.ZodType<Record<string, z.output<T>>> {
  return z
    .custom<Record<string, z.output<T>>>(isJsonObject, {
      error: (issue) => (issue.input === undefined ? "required" : `expected object, got ${describeType(issue.input)}`),
    })
    .superRefine((record, ctx) => {
      if (!isJsonObject(record)) return;
      for (const [key, item] of Object.entries(record)) {
        const parsed = value.safeParse(item);
        if (parsed.success) continue;
        for (const issue of parsed.error.issues)
          ctx.addIssue({ code: "custom", message: issue.message, path: [key, ...issue.path] });
      }
    });
}

/**
 * A string toolproof sends as an HTTP header value (an API key, a bearer token, a header's value)
 * cannot hold CR, LF or NUL: fetch refuses the request ("Invalid header value") and every later
 * call would fail, so such a value is refused when it is given, by this one rule.
 */
const HEADER_VALUE = /^[^\r\n\0]*$/;
export const HEADER_VALUE_RULE =
  "cannot contain CR, LF or NUL: it is sent as an HTTP header value, which cannot hold them";
export const isHeaderValue = (value: string): boolean => HEADER_VALUE.test(value);
/** `value` refusing what a header value cannot hold (HEADER_VALUE_RULE), e.g. headerValue(z.string().max(8000)). */
export const headerValue = (value: z.ZodString): z.ZodString => value.regex(HEADER_VALUE, HEADER_VALUE_RULE);

export const jsonSchemaField: z.ZodType<JsonSchema> = z.union([z.boolean(), jsonObject], {
  error: (issue) => (issue.input === undefined ? "required" : "expected a JSON Schema (an object or a boolean)"),
});

export const toolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "expected 1 to 64 letters, digits, '_' or '-'");
export const description = z.string().max(4000, "expected at most 4000 characters");
/** The name of a stored model connection (PUT /api/connections/:name), by the one rule for stored names. */
export const connectionNameField = z.string().regex(RESOURCE_NAME, `expected a connection name: ${RESOURCE_NAME_RULE}`);
/** What a model-drafted mock should do (action "generate"), in the author's words. */
export const draftInstructions = z
  .string()
  .min(1, "expected at least 1 character")
  .max(8000, "expected at most 8000 characters");

/** Refuses schemas that are not valid JSON Schema, naming the field and the place inside it. */
export function assertUsableSchemas(validator: SchemaValidator, fields: Record<string, unknown>): void {
  const problems: Problem[] = [];
  for (const [field, schema] of Object.entries(fields)) {
    if (schema === undefined) continue;
    for (const problem of validator.checkSchema(schema)) {
      problems.push(schemaFieldProblem(field, problem));
    }
  }
  if (problems.length > 0) throw invalidRequest(problems);
}

/**
 * An http(s) URL a client gives toolproof to call (a model endpoint, a callback receiver), or the
 * problem at `path`: not a URL, another scheme, or credentials in it (`credentials` says where they
 * belong instead: the URL is shown in the clear).
 */
export function httpUrlProblems(
  raw: string,
  path: string,
  guidance: { example: string; credentials: string },
): { url: URL; problems: [] } | { url: null; problems: Problem[] } {
  const problem = (message: string) => ({ url: null, problems: [{ path, message }] });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return problem(`expected an http or https URL, such as ${guidance.example}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return problem(`expected an http or https URL, got the scheme ${url.protocol.slice(0, -1)}`);
  if (url.username !== "" || url.password !== "")
    return problem(`must not carry credentials (user:password@): ${guidance.credentials}`);
  return { url, problems: [] };
}
