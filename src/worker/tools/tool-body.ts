/**
 * The body of POST and PUT /api/tools: a tool as a client writes it, which is also the tool as GET
 * shows it, so a client can GET, edit and PUT back. GET's read-only fields (id, contract_hash,
 * source, created_at, updated_at, output_schema_inherited) are accepted when they still say what
 * is true of the tool and refused, naming the field, when they do not; GET's null for an absent
 * output_schema or annotations is read as absent.
 */
import { z } from "zod";
import type { StoredTool } from "../../adapters/d1/tools.js";
import { jsonEqual, pointer, type Problem } from "../../core/json.js";
import type { JsonSchema } from "../../core/ports.js";
import { TOOL_KINDS, type OperationSpec, type ToolSpec } from "../../core/tools/types.js";
import { invalidRequest } from "../http/errors.js";
import { description, jsonObject, jsonSchemaField, toolName } from "../http/schema-fields.js";

export const MAX_OPERATIONS = 100;

const operationBody = z.strictObject({
  operation_id: toolName,
  description,
  input_schema: jsonSchemaField,
  output_schema: jsonSchemaField.nullable().optional(),
  annotations: jsonObject.nullable().optional(),
  output_schema_inherited: z.boolean().optional(),
  contract_hash: z.string().optional(),
});

export const toolBody = z.strictObject({
  name: toolName,
  description,
  kind: z.enum(TOOL_KINDS),
  output_schema: jsonSchemaField.nullable().optional(),
  operations: z
    .array(operationBody)
    .min(1, "expected at least one operation")
    .max(MAX_OPERATIONS, `expected at most ${MAX_OPERATIONS} operations`),
  id: z.string().optional(),
  source: jsonObject.nullable().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});

type ToolBody = z.output<typeof toolBody>;
type OperationBody = z.output<typeof operationBody>;

/**
 * The tool a body describes. `replacing` is the stored tool a PUT replaces (its read-only fields
 * are what the body's must match); without it the body registers a new tool, where toolproof sets
 * every read-only field itself.
 */
export function toolSpecFromBody(body: ToolBody, replacing?: StoredTool): ToolSpec {
  const problems = replacing ? mismatchedReadOnlyFields(body, replacing) : readOnlyFieldsOnCreate(body);
  const outputSchema = body.output_schema ?? undefined;
  const operations = body.operations.map((op, index) =>
    operationSpec(op, pointer("operations", index), outputSchema, replacing, problems),
  );
  if (problems.length > 0) throw invalidRequest(problems);
  return {
    name: body.name,
    description: body.description,
    kind: body.kind,
    ...(outputSchema === undefined ? {} : { output_schema: outputSchema }),
    operations,
    // Where an imported tool came from stays as imported; a plain registration has no source.
    ...(replacing?.source ? { source: replacing.source } : {}),
  };
}

function operationSpec(
  op: OperationBody,
  path: string,
  toolOutput: JsonSchema | undefined,
  replacing: StoredTool | undefined,
  problems: Problem[],
): OperationSpec {
  let output = op.output_schema ?? undefined;
  // GET shows an inheriting operation with the tool's schema filled in; sent back, it still inherits.
  if (op.output_schema_inherited === true && output !== undefined) {
    if (jsonEqual(output, toolOutput) || (replacing && jsonEqual(output, replacing.output_schema))) {
      output = undefined;
    } else {
      problems.push({
        path: `${path}/output_schema_inherited`,
        message:
          "true, but output_schema is not the tool's output_schema: set output_schema_inherited to false to give the operation this output schema of its own, or leave output_schema out to inherit the tool's",
      });
    }
  }
  if (op.contract_hash !== undefined && replacing) {
    const current = replacing.operations.find((stored) => stored.operation_id === op.operation_id)?.contract_hash;
    if (op.contract_hash !== current) {
      const now =
        current === undefined
          ? `the tool has no operation "${op.operation_id}" yet`
          : `operation "${op.operation_id}" has contract hash ${current} now`;
      problems.push({
        path: `${path}/contract_hash`,
        message: `read-only: ${now}; leave contract_hash out (toolproof computes it from the contract)`,
      });
    }
  }
  if (op.contract_hash !== undefined && !replacing) {
    problems.push({
      path: `${path}/contract_hash`,
      message: "read-only: toolproof computes it when the tool is registered; leave it out",
    });
  }
  return {
    operation_id: op.operation_id,
    description: op.description,
    input_schema: op.input_schema,
    ...(output === undefined ? {} : { output_schema: output }),
    ...(op.annotations ? { annotations: op.annotations } : {}),
  };
}

function mismatchedReadOnlyFields(body: ToolBody, stored: StoredTool): Problem[] {
  const problems: Problem[] = [];
  if (body.id !== undefined && body.id !== stored.id) {
    problems.push({
      path: "/id",
      message: `read-only: the body is tool "${body.id}" but the URL names tool "${stored.id}"; PUT it to /api/tools/${body.id}, or leave id out`,
    });
  }
  if (body.created_at !== undefined && body.created_at !== stored.created_at) {
    problems.push({
      path: "/created_at",
      message: `read-only: the tool was created at ${stored.created_at}; send that or leave created_at out`,
    });
  }
  if (body.updated_at !== undefined && body.updated_at !== stored.updated_at) {
    problems.push({
      path: "/updated_at",
      message: `read-only: the tool changed at ${stored.updated_at}, after this copy was read; GET it again and redo the edit, or leave updated_at out to replace it anyway`,
    });
  }
  if (body.source !== undefined && !jsonEqual(body.source, stored.source ?? null)) {
    problems.push({
      path: "/source",
      message: "read-only: where the tool was imported from is kept as it was; send it unchanged or leave source out",
    });
  }
  return problems;
}

function readOnlyFieldsOnCreate(body: ToolBody): Problem[] {
  const problems: Problem[] = [];
  if (body.id !== undefined) {
    problems.push({
      path: "/id",
      message: `read-only: toolproof assigns a new tool's id; to change tool "${body.id}", PUT /api/tools/${body.id}`,
    });
  }
  // source: null is what GET shows for a tool registered this way, so it says nothing untrue.
  for (const field of ["source", "created_at", "updated_at"] as const) {
    if (body[field] !== undefined && body[field] !== null) {
      problems.push({
        path: `/${field}`,
        message: "read-only: toolproof sets it when the tool is registered; leave it out",
      });
    }
  }
  return problems;
}
