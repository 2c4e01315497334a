/**
 * The Workers-safe SchemaValidator: @cfworker/json-schema, which interprets schemas instead of
 * compiling them to code, so it runs inside a Workers request (where ajv's code generation throws
 * EvalError). No eval, no `new Function`, no node: imports.
 *
 * Formats: asserted. A string with a "format" that cfworker knows (date, time, date-time,
 * duration, email, hostname, ipv4, ipv6, uri, uri-reference, uri-template, url, uuid, regex,
 * json-pointer, json-pointer-uri-fragment, relative-json-pointer) must be valid for it; any
 * other format is an annotation only. Tool contracts use "format" to say what a tool accepts
 * ("date-time", "email"), and a mock that accepted "tomorrow" as a date-time would hide exactly
 * the agent mistakes toolproof exists to catch. The ajv validator asserts the same list (see
 * formats.ts) so the CLI and the Worker agree.
 *
 * Speed: cfworker interprets the schema on every call (~100-200 µs for a tool contract), so a
 * schema validated against more than once also gets a fast path (fast-path.ts), closures
 * compiled once that decide valid or invalid exactly as cfworker does. A value the fast path accepts is valid without cfworker;
 * any other value (invalid ones, or ones the fast path cannot vouch for) goes through cfworker
 * as before, which gives the problems. Schemas the fast path does not implement use cfworker
 * alone. Either way the answer is cfworker's.
 *
 * @example
 * const validator = createRuntimeValidator();
 * validator.checkSchema({ type: 12 }); // [{ path: "/type", message: "must match at least one of …" }]
 * validator.validate({ type: "object", required: ["q"] }, {}); // [{ path: "", message: 'missing required property "q"' }]
 */
import { isJsonObject, type JsonValue, type Problem } from "../../core/json.js";
import type { JsonSchema } from "../../core/ports.js";
import { baseLookup, copyJson, prepareDocument, sharedMetaLookup, type CfworkerDocument } from "./cfworker-prepare.js";
import { cfworkerProblems } from "./cfworker-problems.js";
import { DEFAULT_DRAFT, selectDraft, type Draft } from "./drafts.js";
import { compilePreparedFastPath, type FastPath } from "./fast-path.js";
import { errorMessage, notASchemaProblem, notJsonValueProblem, unusableSchemaProblem } from "./messages.js";
import { META_SCHEMA } from "./meta-schemas.js";
import { patternProblems } from "./pattern-problems.js";
import type { CachingSchemaValidator, ValidatorOptions } from "./options.js";
import { createPreparedCache, DEFAULT_CACHE_SIZE, preparedOrUnkeyable } from "./prepared-cache.js";
import { referenceProblems } from "./references.js";
import { validate as cfworkerValidate } from "./vendor/cfworker-validate.js";

/**
 * A prepared schema: what validate needs, or why the schema cannot be used. `fast` is compiled
 * when the schema is validated against a second time: a schema used once (checkSchema alone, a
 * one-off validation) never pays for compiling, one used twice is a contract about to be used
 * many times. Null when the fast path does not implement the schema or is turned off.
 */
type Prepared =
  | {
      draft: Draft;
      document: CfworkerDocument;
      fast?: FastPath | null;
      validated?: boolean;
      schemaProblems?: Problem[];
    }
  | { unusable: Problem[] };

/** The meta-schemas' lookup table, shared by all validators. */
const metaSchemaLookup = sharedMetaLookup;

export type { CachingSchemaValidator, ValidatorOptions };

export interface RuntimeValidatorOptions extends ValidatorOptions {
  /**
   * Whether valid values may be decided by the compiled fast path (default true). Off, every
   * value goes through cfworker: the reference the fast path's tests and benchmark compare with.
   */
  fastPath?: boolean;
}

/** The fast path's verdict; one that throws (a getter on an odd value) means "ask cfworker". */
function fastAccepts(fast: FastPath, value: unknown): boolean {
  try {
    return fast(value);
  } catch {
    return false;
  }
}

export function createRuntimeValidator(options: RuntimeValidatorOptions = {}): CachingSchemaValidator {
  const defaultDraft = options.defaultDraft ?? DEFAULT_DRAFT;
  const base = options.knownSchemas === undefined ? metaSchemaLookup() : baseLookup(options.knownSchemas);
  const useFastPath = options.fastPath ?? true;

  const prepare = (schema: object | boolean): Prepared => {
    const selection = selectDraft(schema, defaultDraft);
    if ("problem" in selection) return { unusable: [selection.problem] };
    let json: JsonValue;
    try {
      json = copyJson(schema);
    } catch (error) {
      return { unusable: [{ path: "", message: `not a JSON document: ${errorMessage(error)}` }] };
    }
    try {
      return {
        draft: selection.draft,
        document: prepareDocument(json, base, selection.draft),
        fast: useFastPath ? undefined : null,
      };
    } catch (error) {
      return { unusable: [{ path: "", message: errorMessage(error) }] };
    }
  };
  const cache = createPreparedCache(prepare, options.cacheSize ?? DEFAULT_CACHE_SIZE);

  const lookUp = (schema: object | boolean): Prepared => preparedOrUnkeyable(cache, schema);

  const schemaProblemsOf = (schema: object | boolean, prepared: Prepared): Problem[] => {
    if ("unusable" in prepared) return prepared.unusable;
    if (prepared.schemaProblems !== undefined) return prepared.schemaProblems;
    const { draft, document } = prepared;
    let problems: Problem[];
    try {
      // A fresh copy as written (the prepared one may be normalized, see draft07.ts); it is plain
      // JSON, which preparing it already proved.
      const written = copyJson(schema);
      const result = cfworkerValidate(written, META_SCHEMA[draft], draft, metaSchemaLookup(), false);
      problems = result.valid
        ? []
        : cfworkerProblems(result.errors, { root: META_SCHEMA[draft], lookup: metaSchemaLookup(), value: written });
    } catch (error) {
      problems = [{ path: "", message: `the schema could not be checked: ${errorMessage(error)}` }];
    }
    problems = [...problems, ...referenceProblems(document), ...patternProblems(document)];
    prepared.schemaProblems = problems;
    return problems;
  };

  return {
    checkSchema(schema) {
      if (typeof schema !== "boolean" && !isJsonObject(schema)) {
        return [notASchemaProblem(schema)];
      }
      return schemaProblemsOf(schema, lookUp(schema));
    },

    validate(schema: JsonSchema, value: unknown): Problem[] {
      const prepared = lookUp(schema);
      if (!("unusable" in prepared)) {
        // Compiled from the very document and lookup table cfworker validates against (null,
        // remembered, when the fast path does not implement the schema).
        if (prepared.fast === undefined && prepared.validated === true) {
          prepared.fast = compilePreparedFastPath(prepared.document, prepared.draft) ?? null;
        }
        prepared.validated = true;
        // The hot path: a valid value, decided without cfworker. The fast path refuses a
        // top-level value that is not JSON, so the check below still answers for one.
        if (prepared.fast !== undefined && prepared.fast !== null && fastAccepts(prepared.fast, value)) return [];
      }
      const notJson = notJsonValueProblem(value);
      if (notJson !== undefined) return [notJson];
      if ("unusable" in prepared) return [unusableSchemaProblem(prepared.unusable)];
      const { draft, document } = prepared;
      let result: ReturnType<typeof cfworkerValidate>;
      try {
        // Not short-circuited: every failing property is reported, and a valid value (the hot
        // path) costs the same either way.
        result = cfworkerValidate(value, document.root, draft, document.lookup, false);
      } catch (error) {
        // cfworker throws on values JSON cannot carry (undefined, functions) and on schemas that
        // should have failed checkSchema (an unresolved $ref, an invalid pattern, a stored
        // pattern pattern-engine.ts will not run).
        return [{ path: "", message: `could not validate: ${errorMessage(error)}` }];
      }
      if (result.valid) return [];
      return cfworkerProblems(result.errors, { root: document.root, lookup: document.lookup, value });
    },

    cachedSchemas: () => cache.size,
  };
}
