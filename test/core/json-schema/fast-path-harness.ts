/**
 * The fast path as the runtime validator builds it, and the slow path (cfworker alone) it must
 * agree with, for the fast-path tests.
 */
import {
  baseLookup,
  copyJson,
  prepareDocument,
  sharedMetaLookup,
  type Lookup,
} from "../../../src/adapters/json-schema/cfworker-prepare.js";
import { selectDraft, type Draft } from "../../../src/adapters/json-schema/drafts.js";
import {
  compilePreparedFastPath,
  type FallbackListener,
  type FastPath,
} from "../../../src/adapters/json-schema/fast-path.js";
import {
  createRuntimeValidator,
  type RuntimeValidatorOptions,
} from "../../../src/adapters/json-schema/runtime-validator.js";
import { isJsonObject, type Problem } from "../../../src/core/json.js";
import type { JsonSchema, SchemaValidator } from "../../../src/core/ports.js";

export function asSchema(value: unknown): JsonSchema {
  if (typeof value === "boolean" || isJsonObject(value)) return value;
  throw new TypeError("not a schema: neither an object nor a boolean");
}

/** The lookup table a validator with these known documents starts from. */
export function lookupFor(knownSchemas?: Readonly<Record<string, unknown>>): Lookup {
  return knownSchemas === undefined ? sharedMetaLookup() : baseLookup(knownSchemas);
}

/**
 * The fast path the runtime validator would compile for `schema` (same draft selection, same
 * prepared document), or undefined where it has none (unusable schema or not implemented).
 */
export function fastPathFor(
  schema: unknown,
  defaultDraft: Draft = "2020-12",
  base: Lookup = sharedMetaLookup(),
  onFallback?: FallbackListener,
): FastPath | undefined {
  const selection = selectDraft(schema, defaultDraft);
  if ("problem" in selection) {
    onFallback?.("unusable: unsupported $schema");
    return undefined;
  }
  try {
    return compilePreparedFastPath(
      prepareDocument(copyJson(schema), base, selection.draft),
      selection.draft,
      onFallback,
    );
  } catch (error) {
    onFallback?.(`unusable: ${String(error)}`);
    return undefined;
  }
}

/**
 * The runtime validator's answer once its fast path is in use: the validator compiles it when a
 * schema is validated against a second time, so the first call only warms it up.
 */
export function validateWarm(validator: SchemaValidator, schema: JsonSchema, value: unknown): Problem[] {
  validator.validate(schema, value);
  return validator.validate(schema, value);
}

/** cfworker alone: the runtime validator with its fast path turned off. */
export function slowValidator(options: RuntimeValidatorOptions = {}): SchemaValidator {
  return createRuntimeValidator({ ...options, fastPath: false });
}
