/** The contract a mock is checked against: what the contract hash covers for one operation. */
import type { OperationContract } from "../contract/types.js";
import type { JsonSchema } from "../ports.js";
import type { OperationSpec, ToolSpec } from "./types.js";

export function effectiveOutputSchema(
  operation: OperationSpec,
  tool: Pick<ToolSpec, "output_schema">,
): JsonSchema | undefined {
  return operation.output_schema ?? tool.output_schema;
}

/**
 * The operation's contract, or undefined when neither the operation nor the tool declares an output
 * schema (a mock needs both schemas; registration refuses such tools, so this is a guard only).
 */
export function operationContract(
  toolId: string,
  operation: OperationSpec,
  tool: Pick<ToolSpec, "output_schema">,
): OperationContract | undefined {
  const output = effectiveOutputSchema(operation, tool);
  if (output === undefined) return undefined;
  return {
    tool: toolId,
    operation: operation.operation_id,
    description: operation.description,
    input_schema: operation.input_schema,
    output_schema: output,
  };
}
