/**
 * The bounds of a version-1 mock definition. They are product limits (documented in
 * docs/mock-definition.md), so they live in one place that the parser, the docs tests and the
 * draft generator all read.
 */
export const LIMITS = {
  /** Size of the definition serialized as compact UTF-8 JSON. */
  maxDefinitionBytes: 102_400,
  minVariants: 1,
  maxVariants: 30,
  maxRulesPerVariant: 100,
  minConditionsPerRule: 1,
  maxConditionsPerRule: 20,
  minExamples: 1,
  maxExamples: 100,
  minDelayMs: 0,
  maxDelayMs: 30_000,
  minDays: -3660,
  maxDays: 3660,
  minHours: -24,
  maxHours: 24,
  /**
   * Not a product limit but a safety one: every walk over a definition is recursive, and a
   * 100 KB document could otherwise nest deep enough to exhaust the stack.
   */
  maxNesting: 64,
} as const;

export const VARIANT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export const SCHEMA_VERSION = 1;
