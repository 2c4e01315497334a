/**
 * The version-1 mock definition and the results of using it. The exact semantics live in
 * docs/mock-definition.md; these types are the shapes every layer (routes, attempt objects,
 * MCP, CLI) passes around.
 */
import type { DatasetPin } from "../datasets/pin.js";
import type { JsonObject, JsonValue, Problem } from "../json.js";
import type { JsonSchema } from "../ports.js";

export type ConditionSource = "input" | "state";
export type ConditionOp = "eq" | "ne" | "in" | "exists";

/** Version 2: a condition written as a CEL expression over input, state and before. */
interface ExpressionCondition {
  expr: string;
}

export interface Condition {
  source: ConditionSource;
  /** Dot-separated keys; an all-digit segment indexes an array; "" is the whole value. */
  path: string;
  op: ConditionOp;
  value: JsonValue;
}

/** Paths (dot-separated) mapped to value templates. */
type SetState = Record<string, JsonValue>;

/**
 * Version 2: one write of an ordered set_state list. The path is a dotted string or a list of
 * segments (strings, indices, or templates computing them); docs/mock-definition.md has the rules.
 */
export type Write =
  | { set: WritePath; value: JsonValue; if?: string }
  | { merge: WritePath; value: JsonValue; if?: string }
  | { append: WritePath; value: JsonValue; if?: string }
  | { remove: WritePath; if?: string }
  | { for_each: string; as: string; writes: Write[]; if?: string };

type WritePath = string | JsonValue[];

export interface Rule {
  when: Array<Condition | ExpressionCondition>;
  result?: JsonValue;
  set_state?: SetState | Write[];
  delay_ms?: number;
}

export interface Variant {
  result: JsonValue;
  set_state?: SetState | Write[];
  delay_ms?: number;
  rules?: Rule[];
}

export interface Example {
  variant: string;
  input: JsonObject;
  state?: JsonObject;
  expected: JsonValue;
}

export interface MockDefinition {
  /** 1: the original format; 2: adds CEL expressions, keyed state and ordered writes. */
  schema_version: 1 | 2;
  default_variant: string;
  initial_state?: JsonObject;
  /** Version 2: the stored dataset version the tool starts from, instead of initial_state (core/datasets/pin.ts). */
  dataset?: DatasetPin;
  variants: Record<string, Variant>;
  examples: Example[];
}

/** What a mock stands in for: the parts of an operation that the contract hash covers. */
export interface OperationContract {
  /** Library tool id, or the inline tool's name. */
  tool: string;
  operation: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
}

export type HarnessErrorKind =
  | "unknown_tool"
  | "unknown_operation"
  | "missing_definition"
  | "unknown_variant"
  | "missing_reference"
  | "bad_literal"
  | "output_schema"
  /** Version 2: a CEL expression failed for a reason other than a missing key (a type mismatch, a non-boolean condition). */
  | "expression_error"
  /** Version 2: the call spent more than the cost budget. */
  | "cost_budget"
  | "lease_expired"
  /** A real-tools call whose real handler gave no usable answer (unreachable, timed out, too large, refused address). */
  | "upstream"
  /** The call's evidence (arguments, result, the state before and after) is more than one stored row holds. */
  | "evidence_too_large"
  /** Every tool's state after the call, with the agent's completion, is more than the attempt's D1 row holds. */
  | "state_too_large"
  | "internal";

/** The outcome of one call through the call algorithm. Never thrown: always returned. */
export type CallOutcome =
  | {
      kind: "result";
      result: JsonValue;
      /** The state after set_state was applied (the pre-call state itself when nothing was set). */
      state: JsonObject;
      state_changed: boolean;
      variant: string;
      /** Index of the matched rule in the variant's rules, or null when none matched. */
      rule: number | null;
      delay_ms: number;
    }
  | {
      kind: "tool_input_error";
      message: string;
      details: Problem[];
      variant: string;
      rule: number | null;
    }
  | {
      kind: "harness_error";
      harness_kind: HarnessErrorKind;
      message: string;
      details: Problem[];
      variant: string;
      rule: number | null;
    };

export interface ExampleReport {
  index: number;
  variant: string;
  passed: boolean;
  /**
   * Present when the example failed: where (a JSON Pointer) and why, led by the first problem;
   * `details` holds every problem (an output that breaks two fields of the schema lists both).
   */
  error?: {
    kind: "input_schema" | "output_schema" | "mismatch" | "tool_input_error" | "harness_error";
    path: string;
    message: string;
    details: Problem[];
  };
}

/** The full check report, as POST /api/tools/testing and refused saves answer it. */
export interface CheckReport {
  valid: boolean;
  errors: Problem[];
  examples: ExampleReport[];
  contract_hash: string;
}
