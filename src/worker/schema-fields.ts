/** Request-field schemas shared by several routes (zod, strict objects so unknown fields are refused). */
import { z } from "zod";
import type { JsonObject, JsonValue, Problem } from "../core/json.js";
import type { JsonSchema, SchemaValidator } from "../core/ports.js";
import { invalidRequest } from "./http-error.js";

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);
export const jsonObject: z.ZodType<JsonObject> = z.record(z.string(), jsonValue);
export const jsonSchemaField: z.ZodType<JsonSchema> = z.union([z.boolean(), jsonObject], {
  error: "expected a JSON Schema (an object or a boolean)",
});

export const toolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "expected 1 to 64 letters, digits, '_' or '-'");
export const description = z.string().max(4000, "expected at most 4000 characters");

/** Refuses schemas that are not valid JSON Schema, naming the field and the place inside it. */
export function assertUsableSchemas(validator: SchemaValidator, fields: Record<string, unknown>): void {
  const problems: Problem[] = [];
  for (const [field, schema] of Object.entries(fields)) {
    if (schema === undefined) continue;
    for (const problem of validator.checkSchema(schema)) {
      problems.push({ path: `${field}${problem.path}`, message: `not a valid JSON Schema: ${problem.message}` });
    }
  }
  if (problems.length > 0) throw invalidRequest(problems);
}
