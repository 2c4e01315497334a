/**
 * The ajv SchemaValidator, for tests and benchmarks only (ajv is a dev dependency): an
 * independent implementation the conformance and differential tests compare the runtime
 * validator with, and the speed reference of the benchmarks. ajv compiles schemas to JavaScript,
 * which a Workers request forbids, so nothing under src/ imports this file.
 *
 * It answers exactly like the runtime validator: same draft selection (drafts.ts), same asserted
 * formats (formats.ts, via ajv-formats; any other format is an annotation), same reference and
 * pattern checks (references.ts, pattern-problems.ts), same messages and order (messages.ts).
 * The conformance and differential tests hold the two to that. Its patterns run on ajv's RegExp,
 * not the linear-time engine: it only ever sees schemas the tests and benchmarks choose.
 *
 * @example
 * const validator = createAjvValidator();
 * validator.validate({ type: "string" }, 3); // [{ path: "", message: "must be string, got number" }]
 */
import Ajv, { type AnySchema, type Options, type ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { isJsonObject, type JsonValue, type Problem } from "../../../src/core/json.js";
import type { JsonSchema } from "../../../src/core/ports.js";
import { ajvProblems, type RefResolver } from "./ajv-problems.js";
import {
  baseLookup,
  copyJson,
  prepareDocument,
  type Lookup,
} from "../../../src/adapters/json-schema/cfworker-prepare.js";
import { createMetaValidator, type MetaValidator } from "./ajv-meta.js";
import { normalizeDraft07 } from "../../../src/adapters/json-schema/draft07.js";
import { DEFAULT_DRAFT, selectDraft, type Draft } from "../../../src/adapters/json-schema/drafts.js";
import { ASSERTED_FORMATS } from "../../../src/adapters/json-schema/formats.js";
import {
  errorMessage,
  notASchemaProblem,
  notJsonValueProblem,
  unusableSchemaProblem,
  valueAt,
} from "../../../src/adapters/json-schema/messages.js";
import type { CachingSchemaValidator, ValidatorOptions } from "../../../src/adapters/json-schema/options.js";
import {
  createPreparedCache,
  DEFAULT_CACHE_SIZE,
  preparedOrUnkeyable,
} from "../../../src/adapters/json-schema/prepared-cache.js";
import { patternProblems } from "../../../src/adapters/json-schema/pattern-problems.js";
import { referenceProblems } from "../../../src/adapters/json-schema/references.js";

type AjvInstance = Ajv | Ajv2020;

/** A JSON copy narrowed to what ajv compiles: an object or a boolean schema. */
function asAjvSchema(value: JsonValue): AnySchema {
  if (typeof value === "boolean" || isJsonObject(value)) return value;
  throw new TypeError("a JSON Schema must be an object or a boolean");
}

type Prepared =
  | {
      draft: Draft;
      /** The instance that compiled it (its "$ref"s resolve there). */
      ajv: AjvInstance;
      /** ajv's own copy: ajv keeps the object it compiled, the caller's stays theirs. */
      copy: AnySchema;
      validate?: ValidateFunction;
      compileError?: string;
      schemaProblems?: Problem[];
    }
  | { unusable: Problem[] };

const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: true,
  // The error objects then carry the keyword's schema value and the data, which the messages need.
  verbose: true,
  // "required": ["constructor"] must not be satisfied by Object.prototype.
  ownProperties: true,
  // Unknown formats are annotations (see formats.ts); ajv would log a warning for each.
  logger: false,
};

/**
 * One ajv instance per prepared schema. A shared instance registers every compiled schema by its
 * "$id" and refuses a second, different schema with the same "$id" (and without registering,
 * ajv cannot resolve "$ref": "#"); tool schemas are independent documents, so each gets its own
 * instance, as each gets its own lookup table in the runtime validator. The schema is not
 * checked against the meta-schema here: checkSchema does that (ajv-meta.ts).
 */
function createAjv(draft: Draft, known: ReadonlyArray<[string, AnySchema]>): AjvInstance {
  const settings: Options = { ...AJV_OPTIONS, validateSchema: false };
  const ajv = draft === "7" ? new Ajv(settings) : new Ajv2020(settings);
  addFormats(ajv, { mode: "full", formats: [...ASSERTED_FORMATS], keywords: false });
  for (const [uri, document] of known) ajv.addSchema(document, uri);
  return ajv;
}

/** Resolves "$ref"s for error grouping: inside `root`, else among the schemas ajv knows. */
function refResolver(ajv: AjvInstance, root: unknown): RefResolver {
  const rootId = isJsonObject(root) && typeof root.$id === "string" ? root.$id : "toolproof:/root";
  return (ref) => {
    try {
      const url = new URL(ref, rootId);
      const fragment = decodeURIComponent(url.hash.slice(1));
      url.hash = "";
      const base = new URL(rootId);
      base.hash = "";
      const document = url.href === base.href ? root : ajv.getSchema(url.href)?.schema;
      return valueAt(document, fragment);
    } catch {
      return undefined;
    }
  };
}

const metaValidators: Partial<Record<Draft, MetaValidator>> = {};
/** Built on first use and shared: compiling a meta-schema takes a few milliseconds. */
function metaValidator(draft: Draft): MetaValidator {
  let meta = metaValidators[draft];
  if (meta === undefined) {
    meta = createMetaValidator(draft, AJV_OPTIONS);
    metaValidators[draft] = meta;
  }
  return meta;
}

export function createAjvValidator(options: ValidatorOptions = {}): CachingSchemaValidator {
  const defaultDraft = options.defaultDraft ?? DEFAULT_DRAFT;
  // Copied once and shared by the per-schema instances (ajv does not modify schemas).
  const known = Object.entries(options.knownSchemas ?? {}).map(([uri, document]): [string, AnySchema] => [
    uri,
    asAjvSchema(copyJson(document)),
  ]);
  // The reference check is the runtime validator's own, so both report the same dangling $refs.
  const referenceBase: Lookup = baseLookup(options.knownSchemas ?? {});

  const prepare = (schema: object | boolean): Prepared => {
    const selection = selectDraft(schema, defaultDraft);
    if ("problem" in selection) return { unusable: [selection.problem] };
    let copy: AnySchema;
    try {
      const json = copyJson(schema);
      if (selection.draft === "7") normalizeDraft07(json);
      copy = asAjvSchema(json);
    } catch (error) {
      return { unusable: [{ path: "", message: `not a JSON document: ${errorMessage(error)}` }] };
    }
    const ajv = createAjv(selection.draft, known);
    try {
      return { draft: selection.draft, ajv, copy, validate: ajv.compile(copy) };
    } catch (error) {
      return { draft: selection.draft, ajv, copy, compileError: errorMessage(error) };
    }
  };
  const cache = createPreparedCache(prepare, options.cacheSize ?? DEFAULT_CACHE_SIZE);

  const lookUp = (schema: object | boolean): Prepared => preparedOrUnkeyable(cache, schema);

  const schemaProblemsOf = (schema: object | boolean, prepared: Prepared): Problem[] => {
    if ("unusable" in prepared) return prepared.unusable;
    if (prepared.schemaProblems !== undefined) return prepared.schemaProblems;
    const { draft } = prepared;
    let problems: Problem[] = [];
    // A fresh copy as written (the compiled one may be normalized, see draft07.ts).
    const written = copyJson(schema);
    const meta = metaValidator(draft);
    if (meta.validate(written) !== true) {
      problems = ajvProblems(meta.validate.errors ?? [], written, refResolver(meta.ajv, meta.schema));
    }
    try {
      const document = prepareDocument(written, referenceBase, draft);
      problems = [...problems, ...referenceProblems(document), ...patternProblems(document)];
    } catch (error) {
      problems = [...problems, { path: "", message: errorMessage(error) }];
    }
    if (problems.length === 0 && prepared.compileError !== undefined) {
      problems = [{ path: "", message: prepared.compileError }];
    }
    prepared.schemaProblems = problems;
    return problems;
  };

  return {
    checkSchema(schema) {
      if (typeof schema !== "boolean" && !isJsonObject(schema)) return [notASchemaProblem(schema)];
      return schemaProblemsOf(schema, lookUp(schema));
    },

    validate(schema: JsonSchema, value: unknown): Problem[] {
      const notJson = notJsonValueProblem(value);
      if (notJson !== undefined) return [notJson];
      const prepared = lookUp(schema);
      if ("unusable" in prepared) return [unusableSchemaProblem(prepared.unusable)];
      if (prepared.validate === undefined) {
        return [unusableSchemaProblem([{ path: "", message: prepared.compileError ?? "it did not compile" }])];
      }
      let valid: boolean;
      try {
        valid = prepared.validate(value) === true;
      } catch (error) {
        return [{ path: "", message: `could not validate: ${errorMessage(error)}` }];
      }
      if (valid) return [];
      return ajvProblems(prepared.validate.errors ?? [], value, refResolver(prepared.ajv, prepared.copy));
    },

    cachedSchemas: () => cache.size,
  };
}
