/** How a stored tool is shown to clients: each operation with its effective contract and hash. */
import type { StoredTool } from "../../adapters/d1/tools.js";
import { effectiveOutputSchema } from "../../core/tools/effective-contract.js";

export function toolView(tool: StoredTool) {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    kind: tool.kind,
    output_schema: tool.output_schema ?? null,
    operations: tool.operations.map((op) => ({
      operation_id: op.operation_id,
      description: op.description,
      input_schema: op.input_schema,
      output_schema: effectiveOutputSchema(op, tool) ?? null,
      output_schema_inherited: op.output_schema === undefined,
      annotations: op.annotations ?? null,
      contract_hash: op.contract_hash,
    })),
    source: tool.source ?? null,
    created_at: tool.created_at,
    updated_at: tool.updated_at,
  };
}

/**
 * Whether a mock revision was checked against another contract than the operation's current one;
 * null when the operation has no revision.
 */
export function revisionIsStale(
  revision: { contract_hash: string } | null | undefined,
  operation: { contract_hash: string },
): boolean | null {
  return revision ? revision.contract_hash !== operation.contract_hash : null;
}
