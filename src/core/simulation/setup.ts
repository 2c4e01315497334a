/**
 * What an attempt object is given when its simulation is created: everything it needs to answer
 * calls without reading anything else (no D1 on the dispatch path).
 */
import type { ResolvedDatasetPin } from "../datasets/pin.js";
import type { JsonObject } from "../json.js";
import type { JsonSchema } from "../ports.js";
import type { MockDefinition } from "../contract/types.js";
import type { RealBinding } from "../tools/upstream.js";

/** One pinned tool operation, with the contract it is simulated under. */
export interface PinnedOperation {
  /** The name agents call it by (see functionName). Unique within the attempt. */
  function_name: string;
  /** The library tool's id; null for an inline tool. */
  tool_id: string | null;
  tool_name: string;
  operation_id: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  /** MCP annotations (readOnlyHint, destructiveHint, ...) when the tool declares them. */
  annotations: JsonObject | null;
  /** The pinned revision of a library operation; null for an inline tool (checked, not saved). */
  revision: number | null;
  contract_hash: string;
  /** The variant this simulation selected (the definition's default_variant unless overridden). */
  variant: string;
  definition: MockDefinition;
  /** Set when the simulation asked for this operation's real handler: calls are forwarded, never answered from `definition`. */
  real?: RealBinding | undefined;
}

/** A tool as the attempt knows it: which of its operations exist at all, to tell "not pinned" from "no such operation". */
export interface PinnedTool {
  tool_id: string | null;
  tool_name: string;
  operation_ids: string[];
  /** The merged initial_state of the pinned operations (see mergeInitialStates); {} when a dataset is pinned. */
  initial_state: JsonObject;
  /**
   * The dataset version the tool starts from instead of initial_state: the attempt reads it through
   * the shared base and keeps only the records its calls change (attempts/dataset-state.ts).
   */
  dataset?: ResolvedDatasetPin | undefined;
}

export interface AttemptSetup {
  attempt_id: string;
  simulation_id: string;
  tenant_id: string;
  /** Lowercase hex SHA-256 of the capability token. */
  token_hash: string;
  /** Lease end, epoch milliseconds. */
  expires_at: number;
  operations: PinnedOperation[];
  tools: PinnedTool[];
}

/**
 * The setup an attempt object is given and stores: each definition without its checked examples.
 * Examples run when a revision is saved, never during an attempt, yet they are most of a
 * definition's size (τ-bench retail's 16 definitions: 680 KB of examples beside 20 KB of
 * variants), and a setup crosses an RPC, is written to the attempt's SQLite and is read whole each
 * time the object loads. The given setup is left unchanged.
 */
export function withoutCheckedExamples(setup: AttemptSetup): AttemptSetup {
  return { ...setup, operations: operationsWithoutCheckedExamples(setup.operations) };
}

/** The operations of withoutCheckedExamples. */
export function operationsWithoutCheckedExamples(operations: readonly PinnedOperation[]): PinnedOperation[] {
  return operations.map((op) => ({ ...op, definition: { ...op.definition, examples: [] } }));
}

/** What the simulation row in D1 records per pinned operation (definitions only for inline tools, which have no revision to point at). */
export interface PinnedRecord {
  tool_id: string | null;
  tool_name: string;
  operation_id: string;
  function_name: string;
  revision: number | null;
  variant: string;
  contract_hash: string;
  /** Real operations only: calls went to the tool's real handler. */
  mode?: "real";
  /** The dataset version the operation's tool started from, when one was pinned. */
  dataset?: ResolvedDatasetPin;
  /** Inline tools only: the contract and definition themselves, since no revision row holds them. */
  inline?: { description: string; input_schema: JsonSchema; output_schema: JsonSchema; definition: MockDefinition };
}
