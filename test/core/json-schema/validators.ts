/**
 * Both SchemaValidator implementations, for tests that hold them to the same answers.
 */
import { createAjvValidator } from "../../support/ajv/ajv-validator.js";
import type { CachingSchemaValidator, ValidatorOptions } from "../../../src/adapters/json-schema/options.js";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";

export const IMPLEMENTATIONS: ReadonlyArray<
  [name: string, create: (options?: ValidatorOptions) => CachingSchemaValidator]
> = [
  ["runtime", createRuntimeValidator],
  ["ajv", createAjvValidator],
];
