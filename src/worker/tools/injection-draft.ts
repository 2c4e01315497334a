/**
 * `action: "inject"` on POST /api/tools/:id/testing: an injection variant derived from the
 * operation's current revision (core/injection), returned as a draft with its check report,
 * never saved. Saving it is `action: "save"` like any other draft.
 */
import { z } from "zod";
import { listRevisions, type StoredTool } from "../../adapters/d1/tools.js";
import { parseDefinition } from "../../core/contract/parse.js";
import type { OperationContract } from "../../core/contract/types.js";
import { ATTACK_STYLES } from "../../core/injection/catalogue.js";
import { injectVariant, type PayloadSource } from "../../core/injection/inject-variant.js";
import type { Database } from "../../adapters/d1/database.js";
import { ApiError, invalidRequest } from "../http/errors.js";
import { schemaValidator } from "../platform/services.js";
import { toolName } from "../http/schema-fields.js";

const functionName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,128}$/, "expected a function name as the model sees it (invoices__place_invoice_on_hold)");

export const injectRequest = z.strictObject({
  action: z.literal("inject"),
  operation_id: toolName,
  /** A catalogue style; or `payload`, text the author wrote. */
  style: z.enum(ATTACK_STYLES, { error: `expected one of ${ATTACK_STYLES.join(", ")}` }).optional(),
  payload: z.string().min(1, "expected the payload text").max(4000, "expected at most 4000 characters").optional(),
  /** The call the payload asks the agent to make. */
  target: z
    .strictObject({
      function: functionName,
      arguments: z.record(z.string(), z.json()).optional(),
    })
    .optional(),
  base_variant: z.string().max(64).optional(),
  variant: z.string().max(64).optional(),
  field: z
    .string()
    .regex(/^(\/[^/]*)*$/, 'expected a JSON Pointer into the result ("/note")')
    .optional(),
});

type InjectBody = z.infer<typeof injectRequest>;

/** The answer of the inject action, or a thrown ApiError naming the field. */
export async function injectionDraft(
  db: Database,
  tenantId: string,
  tool: StoredTool,
  contract: OperationContract,
  currentHash: string,
  body: InjectBody,
) {
  const payload = payloadSource(body);
  const page = await listRevisions(db, tenantId, tool.id, body.operation_id, { limit: 1 });
  const latest = page.items[0];
  if (!latest || latest.contract_hash !== currentHash) {
    throw new ApiError(
      "no_current_revision",
      `${body.operation_id} has no mock revision checked against its current contract to derive an injection variant from; save one first`,
      {
        offenders: [{ tool_id: tool.id, operation_id: body.operation_id, reason: latest ? "stale" : "missing" }],
      },
    );
  }
  const parsed = parseDefinition(latest.definition);
  if (!parsed.ok)
    throw new Error(`stored revision ${latest.revision} of ${tool.id}/${body.operation_id} does not parse`);
  const derived = await injectVariant(
    {
      contract,
      definition: parsed.definition,
      payload,
      ...(body.base_variant === undefined ? {} : { base_variant: body.base_variant }),
      ...(body.variant === undefined ? {} : { variant: body.variant }),
      ...(body.field === undefined ? {} : { field: body.field }),
    },
    schemaValidator(),
  );
  if (!derived.ok) {
    if (derived.code === "invalid_request") throw invalidRequest(derived.problems);
    throw new ApiError("not_injectable", derived.message, { problems: derived.problems });
  }
  return {
    operation_id: body.operation_id,
    contract_hash: currentHash,
    revision: latest.revision,
    definition: derived.definition,
    report: derived.report,
    injection: derived.injection,
  };
}

function payloadSource(body: InjectBody): PayloadSource {
  if (body.style !== undefined && body.payload !== undefined) {
    throw invalidRequest([
      { path: "/payload", message: "give either a catalogue style or your own payload, not both" },
    ]);
  }
  if (body.payload !== undefined)
    return { text: body.payload, ...(body.target === undefined ? {} : { target: body.target }) };
  if (body.style === undefined)
    throw invalidRequest([
      { path: "/style", message: `expected a catalogue style (${ATTACK_STYLES.join(", ")}) or a payload of your own` },
    ]);
  if (body.target === undefined)
    throw invalidRequest([
      {
        path: "/target",
        message: `the "${body.style}" style names the call it asks for: give target.function (and optionally target.arguments)`,
      },
    ]);
  return { style: body.style, target: body.target };
}
