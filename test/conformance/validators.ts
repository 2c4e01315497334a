/**
 * Both SchemaValidator implementations set up for the suite, and how a suite case is judged.
 */
import { createAjvValidator } from "../support/ajv/ajv-validator.js";
import type { ValidatorOptions } from "../../src/adapters/json-schema/options.js";
import { createRuntimeValidator } from "../../src/adapters/json-schema/runtime-validator.js";
import { isJsonObject, type Problem } from "../../src/core/json.js";
import type { JsonSchema, SchemaValidator } from "../../src/core/ports.js";
import type { SuiteCase, ValidatorName } from "./suite.js";

export const VALIDATOR_FACTORIES = {
  runtime: createRuntimeValidator,
  ajv: createAjvValidator,
} satisfies Record<ValidatorName, (options: ValidatorOptions) => SchemaValidator>;

export const VALIDATOR_NAMES: readonly ValidatorName[] = ["runtime", "ajv"];

function asSchema(value: unknown): JsonSchema {
  if (typeof value === "boolean" || isJsonObject(value)) return value;
  throw new TypeError("a suite schema is neither an object nor a boolean");
}

export interface Verdict {
  valid: boolean;
  problems: Problem[];
}

export function judge(validator: SchemaValidator, c: SuiteCase): Verdict {
  const problems = validator.validate(asSchema(c.schema), c.data);
  return { valid: problems.length === 0, problems };
}
