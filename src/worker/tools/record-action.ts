/**
 * POST /api/tools/:id/testing with action "record": the calls one or more real-tools attempts
 * forwarded to an operation's real handler become a draft definition (core/contract/record-draft.ts),
 * checked like any other, and answered with its report for a person to review. Nothing is saved:
 * saving is action "save" with the draft, against the current contract hash, as always.
 */
import { z } from "zod";
import { findAttempt, getSimulation, listEvidence } from "../../adapters/d1/simulations.js";
import { checkDefinition, recordDraft, type RecordedCall } from "../../core/contract/index.js";
import type { OperationContract } from "../../core/contract/types.js";
import { isJsonObject, type Problem } from "../../core/json.js";
import { toEvidenceCall, type EvidenceRow } from "../../core/simulation/evidence.js";
import type { SchemaValidator } from "../../core/ports.js";
import { attemptStub } from "../attempts/access.js";
import type { AppEnv, Env } from "../platform/env.js";
import { ApiError, invalidRequest } from "../http/errors.js";
import { toolName } from "../http/schema-fields.js";

const MAX_ATTEMPTS = 20;
const PAGE = 1000;
const attemptId = z.string().min(1).max(200);

export const recordRequest = z.strictObject({
  action: z.literal("record"),
  operation_id: toolName,
  attempt_ids: z
    .array(attemptId)
    .min(1, "expected at least one attempt id")
    .max(MAX_ATTEMPTS, `expected at most ${MAX_ATTEMPTS} attempts`),
});

interface RecordInputs {
  env: Env;
  db: AppEnv["Variables"]["db"];
  tenantId: string;
  toolId: string;
  contract: OperationContract;
  contractHash: string;
  validator: SchemaValidator;
}

export async function recordAction(body: z.output<typeof recordRequest>, inputs: RecordInputs) {
  const calls: RecordedCall[] = [];
  const problems: Problem[] = [];
  for (const [index, id] of [...new Set(body.attempt_ids)].entries()) {
    const path = `/attempt_ids/${index}`;
    const attempt = await findAttempt(inputs.db, id);
    // Another tenant's attempt reads exactly like one that does not exist.
    const simulation =
      attempt && attempt.tenant_id === inputs.tenantId
        ? await getSimulation(inputs.db, inputs.tenantId, attempt.simulation_id)
        : undefined;
    if (!simulation) {
      problems.push({ path, message: `no attempt "${id}"` });
      continue;
    }
    const pinned = simulation.simulation.pinned.find(
      (p) => p.tool_id === inputs.toolId && p.operation_id === body.operation_id && p.mode === "real",
    );
    if (!pinned) {
      problems.push({
        path,
        message: `attempt "${id}" did not run operation "${body.operation_id}" of this tool in real mode, so it recorded no real answers of it`,
      });
      continue;
    }
    // Copy what the object still holds, so D1 answers every call (an object already gone holds nothing more).
    const flushed = await attemptStub(inputs.env, id).flush();
    if (flushed.kind === "failed")
      throw new ApiError("internal_error", `the evidence of attempt ${id} could not be copied yet; try again shortly`);
    for (const row of await allRows(inputs.db, id)) {
      if (
        row.tool !== pinned.function_name ||
        row.operation_id !== body.operation_id ||
        row.upstream === null ||
        row.outcome !== "result" ||
        row.result === null
      )
        continue;
      const call = toEvidenceCall(row);
      if (isJsonObject(call.arguments))
        calls.push({ attempt_id: id, seq: row.seq, input: call.arguments, answer: call.result ?? null });
    }
  }
  if (problems.length > 0)
    throw new ApiError("not_found", `${problems[0]?.path}: ${problems[0]?.message}`, { problems });
  const drafted = recordDraft(calls, inputs.contract.output_schema);
  if (!drafted.ok) {
    const message =
      calls.length === 0
        ? "these attempts recorded no real answer of this operation (only calls the real handler answered are recorded)"
        : drafted.message;
    throw invalidRequest([{ path: "/attempt_ids", message }]);
  }
  const { definition, sources, volatile, skipped } = drafted.draft;
  const report = await checkDefinition(inputs.contract, definition, inputs.validator);
  return {
    operation_id: body.operation_id,
    contract_hash: inputs.contractHash,
    definition,
    report,
    recorded: { calls: calls.length, sources, volatile, skipped },
  };
}

async function allRows(db: AppEnv["Variables"]["db"], attemptId: string): Promise<EvidenceRow[]> {
  const rows: EvidenceRow[] = [];
  for (let after = 0; ; ) {
    const page = await listEvidence(db, attemptId, after, PAGE);
    rows.push(...page);
    const last = page[page.length - 1];
    if (page.length < PAGE || !last) return rows;
    after = last.seq;
  }
}
