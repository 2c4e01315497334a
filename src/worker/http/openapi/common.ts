/** Answer pieces several resources share, and the compile-time check that a view and its schema name the same fields. */
import { z } from "zod";
import { named } from "./schemas.js";

/** Compile-time only: true when A and B have exactly the same top-level fields. */
export type SameFields<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
/** Fails the type check (not the run) when a view gains or loses a field its documented schema does not. */
export function assertSameFields<_Check extends true>(): void {}

export const JsonValue = named("JsonValue", z.unknown().describe("Any JSON value."));
export const JsonObjectValue = named("JsonObject", z.record(z.string(), z.unknown()).describe("A JSON object."));
export const JsonSchemaValue = named(
  "JsonSchema",
  z
    .union([z.boolean(), z.record(z.string(), z.unknown())])
    .describe("A JSON Schema (draft 2020-12 or draft-07): an object or a boolean."),
);

export const Problem = named(
  "Problem",
  z.object({
    path: z
      .string()
      .describe('A JSON Pointer to the field ("" for the whole body; /query/x and /params/x for the URL).'),
    message: z.string(),
  }),
);

/** A list page: items and the cursor of the next page (null on the last), for ?cursor=. */
export function page<T extends z.ZodType>(id: string, item: T, extra: z.ZodRawShape = {}) {
  return named(
    id,
    z.object({
      ...extra,
      items: z.array(item),
      next_cursor: z.string().nullable().describe("Pass as ?cursor= for the next page; null on the last."),
    }),
  );
}

export const timestamp = z.string().describe("An ISO 8601 time (UTC).");
export const keyId = z.string().describe("The id of the API key that made it.");

const LIMIT = {
  name: "limit",
  description: "Items per page: 1 to 200 (default 50).",
  schema: { type: "integer", minimum: 1, maximum: 200, default: 50 },
};
const CURSOR = {
  name: "cursor",
  description: "The next_cursor of the previous page.",
  schema: { type: "string" },
};
export const PAGING = [LIMIT, CURSOR];

export const Deleted = (id: string, field: "id" | "name") =>
  named(id, z.object({ [field]: z.string(), deleted: z.literal(true) }));
