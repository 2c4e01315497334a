// The types of @cfworker/json-schema's validate, which cfworker-validate.js is a copy of.
import type { Schema, SchemaDraft, ValidationResult } from "@cfworker/json-schema";
export type Evaluated = Record<string | number, boolean>;
export declare function validate(
  instance: unknown,
  schema: Schema | boolean,
  draft?: SchemaDraft,
  lookup?: Record<string, Schema | boolean>,
  shortCircuit?: boolean,
  recursiveAnchor?: Schema | null,
  instanceLocation?: string,
  schemaLocation?: string,
  evaluated?: Evaluated,
): ValidationResult;
