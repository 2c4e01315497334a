/**
 * Mock contracts of library tools: the testing view, drafting and saving revisions, and the
 * append-only revision history. A save is accepted only against the operation's current contract
 * hash (else 409) and only when every checked example passes (else 422 with the full report).
 */
import { Hono } from "hono";
import { z } from "zod";
import { type StoredTool, appendRevision, getTool, latestRevisions, listRevisions } from "../../adapters/d1/tools.js";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { checkDefinition, generateDraft } from "../../core/contract/index.js";
import { refuseUnknownDatasetPin } from "./dataset-pin-check.js";
import type { OperationContract } from "../../core/contract/types.js";
import type { JsonValue } from "../../core/json.js";
import { operationContract } from "../../core/tools/effective-contract.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { toolNotFound } from "./missing-tool.js";
import { pageCursor, pageLimit, VERSION_CURSOR } from "../http/pagination.js";
import { draftSource, draftWithModel } from "./model-draft.js";
import { connectionNameField, draftInstructions, toolName } from "../http/schema-fields.js";
import { schemaValidator } from "../platform/services.js";
import { revisionIsStale } from "./tool-view.js";
import { recordAction, recordRequest } from "./record-action.js";
import { injectionDraft, injectRequest } from "./injection-draft.js";

/** A definition is at most 100 KB; the envelope around it is small. */
const TESTING_BODY_LIMIT = 256 * 1024;

const contractHashField = z.string().regex(/^[0-9a-f]{64}$/, "expected a contract hash: 64 lowercase hex characters");

const saveRequest = z.strictObject({
  action: z.literal("save"),
  operation_id: toolName,
  contract_hash: contractHashField,
  definition: z.unknown(),
});
const generateRequest = z.strictObject({
  action: z.literal("generate"),
  operation_id: toolName,
  instructions: draftInstructions.optional(),
  connection: connectionNameField.optional(),
});
const testingRequest = z.discriminatedUnion("action", [saveRequest, generateRequest, recordRequest, injectRequest], {
  error: 'expected "action" to be "save", "generate", "record" or "inject"',
});

export const toolTestingRoutes = new Hono<AppEnv>();
toolTestingRoutes.use("*", requirePermission("AIManager:ManageTools"));

toolTestingRoutes.get("/:id/testing", async (c) => {
  const tenantId = c.var.principal.tenantId;
  const tool = await ownTool(c.var.db, tenantId, c.req.param("id"));
  const latest = await latestRevisions(c.var.db, tenantId, tool.id);
  return c.json({
    tool_id: tool.id,
    operations: tool.operations.map((op) => {
      const contract = operationContract(tool.id, op, tool);
      const revision = latest.get(op.operation_id) ?? null;
      return {
        operation_id: op.operation_id,
        contract: {
          description: op.description,
          input_schema: op.input_schema,
          output_schema: contract?.output_schema ?? null,
        },
        contract_hash: op.contract_hash,
        latest_revision: revision,
        stale: revisionIsStale(revision, op) ?? false,
      };
    }),
  });
});

toolTestingRoutes.post("/:id/testing", async (c) => {
  const tenantId = c.var.principal.tenantId;
  const body = await readBodyWithHints(c, testingRequest, TESTING_BODY_LIMIT);
  const tool = await ownTool(c.var.db, tenantId, c.req.param("id"));
  const { contract, currentHash } = contractOf(tool, body.operation_id);
  const validator = schemaValidator();

  if (body.action === "record") {
    return c.json(
      await recordAction(body, {
        env: c.env,
        db: c.var.db,
        tenantId,
        toolId: tool.id,
        contract,
        contractHash: currentHash,
        validator,
      }),
    );
  }
  if (body.action === "inject")
    return c.json(await injectionDraft(c.var.db, tenantId, tool, contract, currentHash, body));

  if (body.action === "generate") {
    const source = draftSource(body);
    if (source.kind === "model") {
      const draft = await draftWithModel(c.env, c.var.db, tenantId, contract, source);
      return c.json({ operation_id: body.operation_id, contract_hash: currentHash, ...draft });
    }
    const draft = await generateDraft(contract, validator);
    if (!draft.ok) throw new ApiError("needs_authored_mock", draft.message, { construct: draft.construct });
    return c.json({
      operation_id: body.operation_id,
      contract_hash: currentHash,
      definition: draft.definition,
      report: draft.report,
    });
  }

  if (body.contract_hash !== currentHash) throw staleContract(body.contract_hash, currentHash);
  const report = await checkDefinition(contract, body.definition, validator);
  if (!report.valid) {
    throw new ApiError(
      "invalid_definition",
      "the definition does not pass its check; see details for every problem",
      report,
    );
  }
  await refuseUnknownDatasetPin(c.var.db, tenantId, body.definition, "/definition/dataset");
  const saved = await appendRevision(c.var.db, {
    tenantId,
    toolId: tool.id,
    operationId: body.operation_id,
    contractHash: currentHash,
    // SAFETY: checkDefinition accepted it, so it is a JSON document (it came from JSON.parse).
    definition: body.definition as JsonValue,
    createdBy: c.var.principal.keyId,
  });
  if (!saved) {
    // The contract changed between our read and the insert: the same answer as a stale hash.
    const fresh = await ownTool(c.var.db, tenantId, tool.id);
    throw staleContract(
      body.contract_hash,
      fresh.operations.find((op) => op.operation_id === body.operation_id)?.contract_hash ?? null,
    );
  }
  return c.json({ operation_id: body.operation_id, ...saved }, 201);
});

toolTestingRoutes.get("/:id/operations/:operation_id/revisions", async (c) => {
  const tenantId = c.var.principal.tenantId;
  const tool = await ownTool(c.var.db, tenantId, c.req.param("id"));
  const operationId = c.req.param("operation_id");
  const operation = tool.operations.find((op) => op.operation_id === operationId);
  if (!operation) throw notFound("operation");
  const limit = pageLimit(c);
  const before = pageCursor(c, VERSION_CURSOR);
  const page = await listRevisions(c.var.db, tenantId, tool.id, operationId, { limit, before });
  return c.json({
    items: page.items.map((item) => ({ ...item, stale: revisionIsStale(item, operation) ?? false })),
    next_cursor: page.next === undefined ? null : encodeCursor([page.next]),
  });
});

async function ownTool(db: AppEnv["Variables"]["db"], tenantId: string, id: string): Promise<StoredTool> {
  const tool = await getTool(db, tenantId, id);
  if (!tool) throw await toolNotFound(db, tenantId, id);
  return tool;
}

function contractOf(tool: StoredTool, operationId: string): { contract: OperationContract; currentHash: string } {
  const operation = tool.operations.find((op) => op.operation_id === operationId);
  if (!operation) {
    throw new ApiError("not_found", `the tool has no operation "${operationId}"`, {
      problems: [
        {
          path: "/operation_id",
          message: `expected one of: ${tool.operations.map((op) => op.operation_id).join(", ")}`,
        },
      ],
    });
  }
  const contract = operationContract(tool.id, operation, tool);
  if (!contract) throw new Error("stored operation without an output schema");
  return { contract, currentHash: operation.contract_hash };
}

function staleContract(sent: string, current: string | null): ApiError {
  return new ApiError(
    "stale_contract",
    "the contract changed since this hash was read: check the definition against the current contract and save again",
    {
      sent_contract_hash: sent,
      current_contract_hash: current,
    },
  );
}

// The request schema, for the API reference (src/worker/tools/openapi.ts).
export { testingRequest };
