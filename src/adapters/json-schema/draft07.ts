/**
 * Draft-07 semantics both validators get wrong on their own, fixed on their private copy of a
 * draft-07 document before either sees it:
 * - cfworker applies 2019-09/2020-12 keywords ("prefixItems", "unevaluatedProperties",
 *   "$anchor", ...) whatever the draft; in draft-07 they are unknown keywords.
 * - Draft-07 ignores every keyword beside "$ref"; ajv applies them, and cfworker lets a sibling
 *   "$id" move the base URI the "$ref" resolves against.
 * Both validators then read the same document, so they agree on draft-07 by construction.
 */
import type { JsonObject, JsonValue } from "../../core/json.js";
import { walkSchemas } from "./schema-walk.js";

const LATER_DRAFT_KEYWORDS = [
  "prefixItems",
  "dependentRequired",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  "minContains",
  "maxContains",
  "$anchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$dynamicRef",
  "$dynamicAnchor",
] as const;

/**
 * Kept beside "$ref": annotations, and the containers other "$ref"s may point into (a JSON
 * Pointer may address any location of the document).
 */
const KEPT_BESIDE_REF: ReadonlySet<string> = new Set([
  "$ref",
  "$comment",
  "$schema",
  "definitions",
  "$defs",
  "title",
  "description",
  "default",
  "examples",
]);

function normalizeSchema(schema: JsonObject): void {
  for (const keyword of LATER_DRAFT_KEYWORDS) delete schema[keyword];
  if (typeof schema.$ref !== "string") return;
  for (const keyword of Object.keys(schema)) if (!KEPT_BESIDE_REF.has(keyword)) delete schema[keyword];
}

/** Rewrites a private copy of a draft-07 document in place (see the file comment). */
export function normalizeDraft07(root: JsonValue): void {
  walkSchemas(root, normalizeSchema);
}
