/** Shared builders for the contract engine tests. */
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import type { CallRequest } from "../../../src/core/contract/call.js";
import type { MockDefinition, OperationContract } from "../../../src/core/contract/index.js";
import { initialState, parseDefinition } from "../../../src/core/contract/index.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import type { JsonSchema, SchemaValidator } from "../../../src/core/ports.js";

export const validator: SchemaValidator = createRuntimeValidator();

/** Accepts every value: for tests about the engine rather than about schemas. */
export const acceptAll: SchemaValidator = { checkSchema: () => [], validate: () => [] };

/** A minimal valid raw definition whose default variant "ok" renders `result`. */
export function rawDefinition(result: JsonValue, extra: Partial<Record<string, JsonValue>> = {}): JsonObject {
  return {
    schema_version: 1,
    default_variant: "ok",
    variants: { ok: { result } },
    examples: [{ variant: "ok", input: {}, expected: null }],
    // SAFETY: callers pass JSON values only; Partial merely makes each optional.
    ...(extra as JsonObject),
  };
}

/** Parses or fails the test with the parser's errors. */
export function parsed(raw: unknown): MockDefinition {
  const result = parseDefinition(raw);
  if (!result.ok) throw new Error(`definition did not parse: ${JSON.stringify(result.errors, null, 2)}`);
  return result.definition;
}

/**
 * A definition built without the parser, for exercising run-time harness errors the parser would
 * have refused at save time.
 */
export function unparsed(raw: JsonObject): MockDefinition {
  // SAFETY: deliberately bypasses parseDefinition; executeCall must cope with any shape.
  return raw as unknown as MockDefinition;
}

export const anyObject: JsonSchema = { type: "object" };

export function request(definition: MockDefinition, args: unknown, overrides: Partial<CallRequest> = {}): CallRequest {
  return {
    input_schema: anyObject,
    output_schema: true,
    definition,
    args,
    state: initialState(definition),
    validator,
    ...overrides,
  };
}

export function contract(
  input_schema: JsonSchema,
  output_schema: JsonSchema,
  overrides: Partial<OperationContract> = {},
): OperationContract {
  return {
    tool: "tool_test",
    operation: "book",
    description: "Books a slot.",
    input_schema,
    output_schema,
    ...overrides,
  };
}
