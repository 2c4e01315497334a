/**
 * What every way of registering a tool (plain, MCP import, platform import, replacement) shares:
 * the checks a stored tool must pass, and the contract hash of each operation.
 */
import { contractHash } from "../../core/contract/index.js";
import { pointer, type Problem } from "../../core/json.js";
import type { SchemaValidator } from "../../core/ports.js";
import { schemaFieldProblem, schemaProblemMessage } from "../../core/schema-problems.js";
import { operationContract } from "../../core/tools/effective-contract.js";
import type { ToolSpec } from "../../core/tools/types.js";
import { invalidRequest } from "../http/errors.js";

type OperationField = "operation_id" | "input_schema" | "output_schema";

/**
 * Where `inner` (a JSON Pointer into the stored field, "" for the field itself) of operation
 * `index` sits in the request body. Imports say so themselves: an MCP tools/list spells the fields
 * `name`, `inputSchema` and `outputSchema`; a platform operation's output schema is its response
 * schema, possibly wrapped in the native envelope.
 */
export type LocateOperationField = (index: number, field: OperationField, inner: string) => string;

const inOperationsArray: LocateOperationField = (index, field, inner) =>
  `${pointer("operations", index, field)}${inner}`;

/** Problem paths are relative to the request body, located by `locate`. */
export async function prepareTool(
  toolId: string,
  spec: ToolSpec,
  validator: SchemaValidator,
  locate: LocateOperationField = inOperationsArray,
): Promise<string[]> {
  const problems: Problem[] = [];
  for (const problem of validator.checkSchema(spec.output_schema ?? true)) {
    problems.push(schemaFieldProblem("/output_schema", problem));
  }
  const seen = new Map<string, number>();
  spec.operations.forEach((operation, index) => {
    const at = (field: OperationField, inner = "") => locate(index, field, inner);
    const earlier = seen.get(operation.operation_id);
    if (earlier !== undefined) {
      problems.push({
        path: at("operation_id"),
        message: `duplicate operation_id "${operation.operation_id}" (also at index ${earlier})`,
      });
    }
    seen.set(operation.operation_id, index);
    for (const problem of validator.checkSchema(operation.input_schema)) {
      problems.push({ path: at("input_schema", problem.path), message: schemaProblemMessage(problem) });
    }
    if (operation.output_schema === undefined) {
      if (spec.output_schema === undefined) {
        problems.push({
          path: at("output_schema"),
          message: "required: a mock needs an output schema, and the tool declares no output_schema to fall back to",
        });
      }
    } else {
      for (const problem of validator.checkSchema(operation.output_schema)) {
        problems.push({ path: at("output_schema", problem.path), message: schemaProblemMessage(problem) });
      }
    }
  });
  if (problems.length > 0) throw invalidRequest(problems);
  return Promise.all(
    spec.operations.map((operation) => {
      const contract = operationContract(toolId, operation, spec);
      if (!contract) throw new Error("unreachable: output schema presence was checked above");
      return contractHash(contract);
    }),
  );
}
