/**
 * Long-lived services of one isolate. The runtime validator caches prepared schemas, so one
 * instance per isolate means a schema is prepared once and reused by every request after it.
 */
import type { SchemaValidator } from "../../core/ports.js";
import { createRuntimeValidator } from "../../adapters/json-schema/runtime-validator.js";

let validator: SchemaValidator | undefined;

export function schemaValidator(): SchemaValidator {
  validator ??= createRuntimeValidator();
  return validator;
}
