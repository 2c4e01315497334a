/**
 * Checks a real answer against what /openapi.json declares for it: the operation is found by
 * method and concrete path, the response by status, and the body validated against its schema
 * with every declared object closed (additionalProperties: false where the document leaves it
 * open), so a field an answer has and the document does not is caught too. @cfworker/json-schema
 * interprets schemas (no code generation), so this runs inside workerd as well as in Node.
 */
import { Validator } from "@cfworker/json-schema";

type Json = Record<string, unknown>;

export interface OpenApiDoc {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, unknown> };
}

/** The document's path template that `path` (no query) is an instance of. */
export function templateOf(doc: OpenApiDoc, path: string): string | undefined {
  const exact = Object.keys(doc.paths).find((template) => template === path);
  if (exact) return exact;
  return Object.keys(doc.paths).find((template) =>
    new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path),
  );
}

export function declaredSchema(doc: OpenApiDoc, method: string, path: string, status: number): unknown {
  const template = templateOf(doc, path.split("?")[0] ?? path);
  if (!template) throw new Error(`no documented path for ${path}`);
  const operation = doc.paths[template]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${method} ${template} is not documented`);
  const responses = operation.responses as Record<string, Json>;
  const response = responses[String(status)];
  if (!response)
    throw new Error(
      `${method} ${template} documents no ${status} answer (it documents ${Object.keys(responses).join(", ")})`,
    );
  const content = response.content as Record<string, Json>;
  return content["application/json"]?.schema;
}

/** The problems of `body` against the declared schema ([] when it conforms). */
export function answerProblems(doc: OpenApiDoc, method: string, path: string, status: number, body: unknown): string[] {
  const schema = closed(declaredSchema(doc, method, path, status));
  const defs = closed(doc.components.schemas);
  const root = rewriteRefs({ ...(schema as Json), $defs: defs });
  const result = new Validator(root as never, "2020-12", false).validate(body);
  return result.valid ? [] : result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

/** Objects the document leaves open are closed for the check: an undocumented field is drift. */
function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (typeof value !== "object" || value === null) return value;
  const copy: Json = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, closed(inner)]));
  if (copy.type === "object" && copy.properties !== undefined && copy.additionalProperties === undefined)
    copy.additionalProperties = false;
  return copy;
}

/** The document's component refs pointed at `$defs` under `base` ("" for the same schema, "doc" for a schema added as "doc"). */
export function rewriteRefs(schema: unknown, base = ""): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${base}#/$defs/`));
}
