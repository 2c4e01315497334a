/**
 * POST /api/tools/testing — check or draft the mock of an agent-local (inline) tool.
 * Nothing is stored: this is the same engine the library uses, answered in place.
 */
import { Hono } from "hono";
import { z } from "zod";
import { checkDefinition, generateDraft } from "../../core/contract/index.js";
import type { OperationContract } from "../../core/contract/types.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError } from "../http/errors.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { requirePermission } from "../http/auth.js";
import { draftSource, draftWithModel } from "./model-draft.js";
import {
  assertUsableSchemas,
  connectionNameField,
  description,
  draftInstructions,
  jsonSchemaField,
  toolName,
} from "../http/schema-fields.js";
import { schemaValidator } from "../platform/services.js";

/** A definition may be 100 KB; schemas and the rest of the tool fit comfortably in the remainder. */
const INLINE_TESTING_BODY_LIMIT = 512 * 1024;

const inlineTool = {
  name: toolName,
  operation_id: toolName.optional(),
  description,
  input_schema: jsonSchemaField,
  output_schema: jsonSchemaField,
};

const checkRequest = z.strictObject({ action: z.literal("check"), ...inlineTool, testing: z.unknown() });
const generateRequest = z.strictObject({
  action: z.literal("generate"),
  ...inlineTool,
  instructions: draftInstructions.optional(),
  connection: connectionNameField.optional(),
});
export const request = z.discriminatedUnion("action", [checkRequest, generateRequest], {
  error: 'expected "action" to be "check" or "generate"',
});

export const inlineTestingRoutes = new Hono<AppEnv>();

inlineTestingRoutes.post("/", requirePermission("AIManager:ManageTools"), async (c) => {
  const body = await readBodyWithHints(c, request, INLINE_TESTING_BODY_LIMIT);
  const validator = schemaValidator();
  assertUsableSchemas(validator, { "/input_schema": body.input_schema, "/output_schema": body.output_schema });
  const contract: OperationContract = {
    tool: body.name,
    operation: body.operation_id ?? body.name,
    description: body.description,
    input_schema: body.input_schema,
    output_schema: body.output_schema,
  };
  if (body.action === "check") {
    return c.json(await checkDefinition(contract, body.testing, validator));
  }
  const source = draftSource(body);
  if (source.kind === "model")
    return c.json(await draftWithModel(c.env, c.var.db, c.var.principal.tenantId, contract, source));
  const draft = await generateDraft(contract, validator);
  if (!draft.ok) {
    throw new ApiError("needs_authored_mock", draft.message, { construct: draft.construct });
  }
  return c.json({ definition: draft.definition, report: draft.report });
});
