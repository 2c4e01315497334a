/** Mock definitions for planning tests (simulations and suites). */
import type { JsonObject } from "../../../src/core/json.js";

/** A definition whose variants all answer {}, each with a passing example. */
export function definition(variants: string[], initial_state?: JsonObject): JsonObject {
  return {
    schema_version: 1,
    default_variant: variants[0] ?? "ok",
    ...(initial_state ? { initial_state } : {}),
    variants: Object.fromEntries(variants.map((v) => [v, { result: {} }])),
    examples: variants.map((variant) => ({ variant, input: {}, expected: {} })),
  };
}
