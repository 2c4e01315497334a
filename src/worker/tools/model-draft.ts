/**
 * `action: "generate"` with instructions, for the library and inline testing routes alike: open
 * the named model connection, let the core draft and check (contract/model-draft.ts), and turn
 * what went wrong into the error vocabulary. Nothing is stored here.
 */
import { draftFromInstructions } from "../../core/contract/index.js";
import type { CheckReport, OperationContract } from "../../core/contract/types.js";
import type { JsonObject } from "../../core/json.js";
import type { Database, Env } from "../platform/env.js";
import { modelClientFor } from "../connections/model-clients.js";
import { ApiError } from "../http/errors.js";
import { schemaValidator } from "../platform/services.js";

interface ModelDraft {
  definition: JsonObject;
  report: CheckReport;
  drafted_by: { connection: string; model: string; prompt_version: string };
}

interface DraftRequestFields {
  instructions?: string | undefined;
  connection?: string | undefined;
}

/**
 * Which draft a generate request asks for: "schema" (no instructions, no connection), "model", or
 * a refusal naming /connection when only one of the two was sent.
 */
export function draftSource(
  body: DraftRequestFields,
): { kind: "schema" } | { kind: "model"; instructions: string; connection: string } {
  if (body.instructions === undefined) {
    if (body.connection !== undefined) {
      throw new ApiError(
        "invalid_request",
        "connection is only used to draft from instructions; send instructions too, or leave connection out for the schema-derived draft",
        {
          problems: [{ path: "/connection", message: "only allowed together with instructions" }],
        },
      );
    }
    return { kind: "schema" };
  }
  if (body.connection === undefined) {
    throw new ApiError(
      "model_connection_required",
      "instructions are turned into a draft by a model: name one of your model connections in connection (PUT /api/connections/:name), or leave out instructions for the schema-derived draft",
      {
        problems: [{ path: "/connection", message: "required with instructions" }],
      },
    );
  }
  return { kind: "model", instructions: body.instructions, connection: body.connection };
}

export async function draftWithModel(
  env: Env,
  db: Database,
  tenantId: string,
  contract: OperationContract,
  source: { instructions: string; connection: string },
): Promise<ModelDraft> {
  const opened = await modelClientFor(env, db, tenantId, source.connection);
  if (!opened.ok) {
    throw new ApiError("model_connection_required", opened.message, {
      problems: [{ path: "/connection", message: opened.message }],
    });
  }
  const { connection } = opened;
  const result = await draftFromInstructions({
    client: opened.client,
    contract,
    instructions: source.instructions,
    structured_output: connection.structured_output,
    validator: schemaValidator(),
  });
  switch (result.kind) {
    case "model_failure":
      throw new ApiError("model_unavailable", result.failure.message, {
        connection: connection.name,
        kind: result.failure.kind,
        status: result.failure.status,
      });
    case "unusable_answer":
      throw new ApiError(
        "unusable_model_answer",
        `the model of connection "${connection.name}" did not answer with a definition: ${result.problem}`,
        {
          connection: connection.name,
          model: connection.model,
          problem: result.problem,
          raw_answer: result.raw_answer,
          prompt_version: result.prompt_version,
        },
      );
    case "draft":
      return {
        definition: result.definition,
        report: result.report,
        drafted_by: { connection: connection.name, model: connection.model, prompt_version: result.prompt_version },
      };
  }
}
