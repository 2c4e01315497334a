/**
 * Which JSON Schema draft a schema document is written in. Both validators (the Workers-safe
 * runtime one and the ajv one) select the draft here, so they can never disagree about it.
 */
import { isJsonObject, type Problem } from "../../core/json.js";

/** The drafts toolproof accepts; the names match @cfworker/json-schema's `SchemaDraft`. */
export type Draft = "7" | "2020-12";

export const DRAFT_07_URI = "http://json-schema.org/draft-07/schema#";
export const DRAFT_2020_12_URI = "https://json-schema.org/draft/2020-12/schema";

/** A schema without "$schema" is read as 2020-12, as the port promises. */
export const DEFAULT_DRAFT: Draft = "2020-12";

const DRAFT_BY_URI: ReadonlyMap<string, Draft> = new Map<string, Draft>([
  // draft-07 is commonly written with and without the empty fragment; both name the same draft.
  [DRAFT_07_URI, "7"],
  ["http://json-schema.org/draft-07/schema", "7"],
  [DRAFT_2020_12_URI, "2020-12"],
]);

type DraftSelection = { draft: Draft } | { problem: Problem };

/**
 * Reads "$schema" from a schema document. Boolean schemas and schemas without "$schema" get
 * `fallback`; any other "$schema" is a problem located at /$schema.
 */
export function selectDraft(schema: unknown, fallback: Draft = DEFAULT_DRAFT): DraftSelection {
  if (!isJsonObject(schema) || !Object.hasOwn(schema, "$schema")) {
    return { draft: fallback };
  }
  const uri = schema.$schema;
  const draft = typeof uri === "string" ? DRAFT_BY_URI.get(uri) : undefined;
  if (draft !== undefined) return { draft };
  return {
    problem: {
      path: "/$schema",
      message: `unsupported $schema ${JSON.stringify(uri)}: use "${DRAFT_2020_12_URI}" (the default) or "${DRAFT_07_URI}"`,
    },
  };
}
