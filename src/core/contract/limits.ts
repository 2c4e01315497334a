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
  /** Version 2: characters in one CEL expression. */
  maxExpressionLength: 2000,
  /** Version 2: syntax-tree nodes in one CEL expression (cel-js checks it while parsing). */
  maxExpressionNodes: 400,
  /** Version 2: macros (map, filter, all, exists, exists_one) nested inside one another. */
  maxMacroNesting: 2,
  /** Version 2: writes in one set_state list, counting those nested in for_each. */
  maxWrites: 50,
  /** Version 2: for_each nested inside for_each. */
  maxForEachNesting: 2,
  /**
   * Version 2: cost units one call may spend. A unit is one element a macro or a function walks,
   * one value an expression hands back, one for_each turn or one write; so the budget bounds the
   * data a call touches, whatever the expressions look like.
   */
  costBudget: 200_000,
} as const;

export const VARIANT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export const SCHEMA_VERSION = 1;
/** The version with computed values (CEL), keyed state and ordered writes. */
export const SCHEMA_VERSION_2 = 2;
