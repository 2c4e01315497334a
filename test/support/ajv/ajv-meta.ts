/**
 * Meta-schema validation with ajv that asserts formats. ajv checks schemas against its built-in
 * meta-schemas with format validation switched off (so an invalid "pattern" only shows up as a
 * compile error); the runtime validator asserts them ("pattern" must be a valid regex). Here the
 * official meta-schemas are compiled as ordinary schemas, with the asserted formats, so both
 * validators report the same schema problems. Node only, like the rest of the ajv validator.
 */
import Ajv, { type AnySchema, type Options, type ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Draft } from "../../../src/adapters/json-schema/drafts.js";
import { DRAFT_07_URI, DRAFT_2020_12_URI } from "../../../src/adapters/json-schema/drafts.js";
import { ASSERTED_FORMATS } from "../../../src/adapters/json-schema/formats.js";
import draft07 from "../../../src/adapters/json-schema/meta/draft-07.json" with { type: "json" };
import schema2020 from "../../../src/adapters/json-schema/meta/2020-12/schema.json" with { type: "json" };
import applicator2020 from "../../../src/adapters/json-schema/meta/2020-12/applicator.json" with { type: "json" };
import content2020 from "../../../src/adapters/json-schema/meta/2020-12/content.json" with { type: "json" };
import core2020 from "../../../src/adapters/json-schema/meta/2020-12/core.json" with { type: "json" };
import formatAnnotation2020 from "../../../src/adapters/json-schema/meta/2020-12/format-annotation.json" with {
  type: "json",
};
import metaData2020 from "../../../src/adapters/json-schema/meta/2020-12/meta-data.json" with { type: "json" };
import unevaluated2020 from "../../../src/adapters/json-schema/meta/2020-12/unevaluated.json" with { type: "json" };
import validation2020 from "../../../src/adapters/json-schema/meta/2020-12/validation.json" with { type: "json" };

export interface MetaValidator {
  ajv: Ajv | Ajv2020;
  validate: ValidateFunction;
  /** The meta-schema object, for resolving the "$ref"s inside it when grouping errors. */
  schema: AnySchema;
}

/** Compiles the official meta-schema of `draft` as an ordinary schema (formats asserted). */
export function createMetaValidator(draft: Draft, options: Options): MetaValidator {
  // meta: false — ajv's own meta-schemas would claim the same "$id"s.
  const settings: Options = { ...options, meta: false, validateSchema: false };
  const ajv = draft === "7" ? new Ajv(settings) : new Ajv2020(settings);
  addFormats(ajv, { mode: "full", formats: [...ASSERTED_FORMATS], keywords: false });
  if (draft === "7") {
    ajv.addSchema(structuredClone(draft07));
  } else {
    const vocabularies = [
      applicator2020,
      content2020,
      core2020,
      formatAnnotation2020,
      metaData2020,
      unevaluated2020,
      validation2020,
    ];
    for (const vocabulary of vocabularies) ajv.addSchema(structuredClone(vocabulary));
    ajv.addSchema(structuredClone(schema2020));
  }
  const validate = ajv.getSchema(draft === "7" ? DRAFT_07_URI : DRAFT_2020_12_URI);
  if (validate === undefined) throw new Error(`meta-schema of draft ${draft} did not load`);
  return { ajv, validate, schema: validate.schema };
}
