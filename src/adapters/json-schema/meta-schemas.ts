/**
 * The official meta-schemas (draft-07 and 2020-12 with its vocabularies), prepared for
 * @cfworker/json-schema so that checkSchema can validate a schema document against the
 * meta-schema of its draft without any code generation.
 */
import type { Schema } from "@cfworker/json-schema";
import { isJsonObject, type JsonValue } from "../../core/json.js";
import { DRAFT_2020_12_URI, type Draft } from "./drafts.js";
import draft07 from "./meta/draft-07.json" with { type: "json" };
import schema2020 from "./meta/2020-12/schema.json" with { type: "json" };
import applicator2020 from "./meta/2020-12/applicator.json" with { type: "json" };
import content2020 from "./meta/2020-12/content.json" with { type: "json" };
import core2020 from "./meta/2020-12/core.json" with { type: "json" };
import formatAnnotation2020 from "./meta/2020-12/format-annotation.json" with { type: "json" };
import metaData2020 from "./meta/2020-12/meta-data.json" with { type: "json" };
import unevaluated2020 from "./meta/2020-12/unevaluated.json" with { type: "json" };
import validation2020 from "./meta/2020-12/validation.json" with { type: "json" };

/**
 * cfworker does not implement "$dynamicRef", and the 2020-12 vocabulary meta-schemas reach every
 * subschema through `{"$dynamicRef": "#meta"}`: left as is, nested subschemas (inside
 * "properties", "items", ...) would never be checked. When the meta-schema is used directly (not
 * extended by another meta-schema), "#meta" always resolves to the 2020-12 schema itself, so a
 * plain "$ref" to it is equivalent. This rewrites the in-memory copy only.
 */
function staticDynamicRefs(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(staticDynamicRefs);
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return value;
  if (!isJsonObject(value)) throw new TypeError("a meta-schema must be JSON");
  const out: Record<string, JsonValue> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === "$dynamicAnchor") continue;
    if (key === "$dynamicRef" && child === "#meta") {
      out.$ref = DRAFT_2020_12_URI;
      continue;
    }
    out[key] = staticDynamicRefs(child);
  }
  return out;
}

function asSchema(value: JsonValue): Schema {
  if (!isJsonObject(value)) throw new TypeError("a meta-schema must be a JSON object");
  // SAFETY: cfworker's `Schema` is an open record of JSON keywords; every meta-schema here is a
  // JSON object checked just above.
  return value as Schema;
}

/** The meta-schema each draft's schemas are checked against (its "$id" is the draft URI). */
export const META_SCHEMA: Readonly<Record<Draft, Schema>> = {
  "7": asSchema(staticDynamicRefs(draft07)),
  "2020-12": asSchema(staticDynamicRefs(schema2020)),
};

/** Documents the meta-schemas reference by URI ($ref to the vocabulary meta-schemas). */
export const META_SCHEMA_DOCUMENTS: readonly Schema[] = [
  META_SCHEMA["7"],
  META_SCHEMA["2020-12"],
  ...[applicator2020, content2020, core2020, formatAnnotation2020, metaData2020, unevaluated2020, validation2020].map(
    (document) => asSchema(staticDynamicRefs(document)),
  ),
];
