/**
 * POST /api/simulations: pin tool operations and start attempts.
 *
 * Order of refusals (each names every offender of its kind, so one round trip shows them all):
 * 400 malformed entries → 404 unknown tools/operations → 422 invalid inline definitions →
 * 409 operations without a current revision (stale or missing; nothing is ever pinned silently to an
 * old fixture) → 400 unknown variants and name clashes → 422 initial_state conflicts.
 * Then D1 records the simulation and its attempts (token hashes only), and each attempt object is
 * set up with everything it needs to answer calls on its own.
 */
import { Hono } from "hono";
import { z } from "zod";
import { newId, sha256Hex } from "../../adapters/crypto.js";
import { findPinCandidates, insertSimulation, operationKey } from "../../adapters/d1/simulations.js";
import { getTool, type StoredOperation, type StoredTool } from "../../adapters/d1/tools.js";
import { checkDefinition, initialState, parseDefinition } from "../../core/contract/index.js";
import type { CheckReport, MockDefinition, OperationContract } from "../../core/contract/types.js";
import { pointer, type Problem } from "../../core/json.js";
import type { JsonSchema } from "../../core/ports.js";
import { mergeInitialStates } from "../../core/simulation/initial-state.js";
import type { AttemptSetup, PinnedOperation, PinnedRecord, PinnedTool } from "../../core/simulation/setup.js";
import { functionName } from "../../core/simulation/tool-names.js";
import { effectiveOutputSchema } from "../../core/tools/effective-contract.js";
import { attemptStub, newAttemptToken } from "../attempt-access.js";
import type { AppEnv } from "../env.js";
import { ApiError, invalidRequest } from "../http-error.js";
import { requirePermission } from "../middleware/auth.js";
import { readBody } from "../middleware/json-body.js";
import { assertUsableSchemas, description, jsonObject, jsonSchemaField, toolName } from "../schema-fields.js";
import { schemaValidator } from "../services.js";
import { zodProblems } from "../validation.js";

export const MAX_ATTEMPTS = 100;
export const MIN_LEASE_SECONDS = 10;
export const MAX_LEASE_SECONDS = 24 * 60 * 60;
export const DEFAULT_LEASE_SECONDS = 60 * 60;
const MAX_TOOL_ENTRIES = 50;
/** Inline definitions may be 100 KB each. */
const SIMULATION_BODY_LIMIT = 4 * 1024 * 1024;

const variantName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "expected a variant name (1 to 64 letters, digits, '_', '.' or '-')");
const libraryEntry = z.strictObject({
  tool_id: z.string().min(1, "expected a tool id").max(200, "expected at most 200 characters"),
  operation_id: z.string().min(1).max(200).optional(),
  variant: variantName.optional(),
  variants: z.record(z.string(), variantName).optional(),
});
const inlineEntry = z.strictObject({
  inline: z.strictObject({
    name: toolName,
    operation_id: toolName.optional(),
    description,
    input_schema: jsonSchemaField,
    output_schema: jsonSchemaField,
    annotations: jsonObject.optional(),
    testing: z.unknown().refine((value) => value !== undefined, "required: the tool's mock definition"),
  }),
  variant: variantName.optional(),
});
const simulationRequest = z.strictObject({
  tools: z.array(z.unknown()).min(1, "expected at least one tool").max(MAX_TOOL_ENTRIES, `expected at most ${MAX_TOOL_ENTRIES} tools`),
  attempts: z.number().int("expected a whole number").min(1, "expected 1 or more").max(MAX_ATTEMPTS, `expected at most ${MAX_ATTEMPTS}`).default(1),
  lease_seconds: z
    .number()
    .int("expected a whole number of seconds")
    .min(MIN_LEASE_SECONDS, `expected at least ${MIN_LEASE_SECONDS}`)
    .max(MAX_LEASE_SECONDS, `expected at most ${MAX_LEASE_SECONDS}`)
    .default(DEFAULT_LEASE_SECONDS),
});

type LibraryEntry = z.output<typeof libraryEntry>;
type InlineEntry = z.output<typeof inlineEntry>;

/** One operation the request selected, before its definition is known. */
interface Selection {
  /** JSON Pointer of the request entry that selected it. */
  path: string;
  /** Where its variant came from, to name it when the variant is unknown. */
  variantPath: string;
  variant?: string;
  source:
    | { kind: "library"; tool: StoredTool; operation: StoredOperation }
    | { kind: "inline"; entry: InlineEntry["inline"]; operationId: string };
}

export const simulationRoutes = new Hono<AppEnv>();

simulationRoutes.post("/", requirePermission("AIManager:RunEvals"), async (c) => {
  const body = await readBody(c, simulationRequest, SIMULATION_BODY_LIMIT);
  const { tenantId, keyId } = c.var.principal;
  const db = c.var.db;
  const validator = schemaValidator();

  // 400: each entry's shape.
  const problems: Problem[] = [];
  const libraryEntries: Array<{ path: string; entry: LibraryEntry }> = [];
  const inlineEntries: Array<{ path: string; entry: InlineEntry }> = [];
  body.tools.forEach((raw, index) => {
    const path = pointer("tools", index);
    const isInline = typeof raw === "object" && raw !== null && "inline" in raw;
    const parsed = isInline ? inlineEntry.safeParse(raw) : libraryEntry.safeParse(raw);
    if (!parsed.success) {
      for (const problem of zodProblems(parsed.error)) problems.push({ path: `${path}${problem.path}`, message: problem.message });
    } else if ("inline" in parsed.data) {
      inlineEntries.push({ path, entry: parsed.data });
    } else {
      if (parsed.data.variant !== undefined && parsed.data.variants !== undefined) {
        problems.push({ path: `${path}/variant`, message: "give either variant (one operation) or variants (by operation_id), not both" });
      }
      libraryEntries.push({ path, entry: parsed.data });
    }
  });
  for (const { path, entry } of inlineEntries) {
    for (const problem of schemaProblems(validator, { [`${path}/inline/input_schema`]: entry.inline.input_schema, [`${path}/inline/output_schema`]: entry.inline.output_schema })) {
      problems.push(problem);
    }
  }
  if (problems.length > 0) throw invalidRequest(problems);

  // 404: tools and operations of this tenant only (another tenant's tool is simply not found).
  const toolIds = [...new Set(libraryEntries.map(({ entry }) => entry.tool_id))];
  const tools = new Map<string, StoredTool>();
  for (const tool of await Promise.all(toolIds.map((id) => getTool(db, tenantId, id)))) if (tool) tools.set(tool.id, tool);
  const missing: Problem[] = [];
  const selections: Selection[] = [];
  const seen = new Map<string, string>();
  for (const { path, entry } of libraryEntries) {
    const tool = tools.get(entry.tool_id);
    if (!tool) {
      missing.push({ path: `${path}/tool_id`, message: `no tool "${entry.tool_id}"` });
      continue;
    }
    let operations = tool.operations;
    if (entry.operation_id !== undefined) {
      const operation = tool.operations.find((op) => op.operation_id === entry.operation_id);
      if (!operation) {
        missing.push({ path: `${path}/operation_id`, message: `tool "${tool.name}" has no operation "${entry.operation_id}" (it has ${tool.operations.map((op) => op.operation_id).join(", ")})` });
        continue;
      }
      operations = [operation];
    }
    if (entry.variant !== undefined && operations.length > 1) {
      problems.push({ path: `${path}/variant`, message: `this entry pins ${operations.length} operations; choose their variants with variants: {"<operation_id>": "<variant>"}` });
    }
    for (const key of Object.keys(entry.variants ?? {})) {
      if (!operations.some((op) => op.operation_id === key)) problems.push({ path: `${path}/variants/${key}`, message: `this entry pins no operation "${key}"` });
    }
    for (const operation of operations) {
      const key = operationKey(tool.id, operation.operation_id);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        problems.push({ path, message: `operation "${operation.operation_id}" of tool "${tool.name}" is already pinned by ${earlier}` });
        continue;
      }
      seen.set(key, path);
      const fromMap = entry.variants?.[operation.operation_id];
      const selection: Selection = {
        path,
        variantPath: fromMap !== undefined ? `${path}/variants/${operation.operation_id}` : `${path}/variant`,
        source: { kind: "library", tool, operation },
      };
      const variant = fromMap ?? entry.variant;
      if (variant !== undefined) selection.variant = variant;
      selections.push(selection);
    }
  }
  if (missing.length > 0) throw new ApiError("not_found", summarize(missing), { problems: missing });
  if (problems.length > 0) throw invalidRequest(problems);

  // 422: inline tools are checked exactly as the inline testing route checks them.
  const invalid: Array<{ path: string; report: CheckReport }> = [];
  const inlineDefinitions = new Map<string, { definition: MockDefinition; contract_hash: string }>();
  for (const { path, entry } of inlineEntries) {
    const contract = inlineContract(entry.inline);
    const report = await checkDefinition(contract, entry.inline.testing, validator);
    const parsed = parseDefinition(entry.inline.testing);
    if (!report.valid || !parsed.ok) {
      invalid.push({ path: `${path}/inline/testing`, report });
      continue;
    }
    inlineDefinitions.set(path, { definition: parsed.definition, contract_hash: report.contract_hash });
    const selection: Selection = { path, variantPath: `${path}/variant`, source: { kind: "inline", entry: entry.inline, operationId: contract.operation } };
    if (entry.variant !== undefined) selection.variant = entry.variant;
    selections.push(selection);
  }
  const firstInvalid = invalid[0];
  if (firstInvalid) {
    throw new ApiError("invalid_definition", `the mock definition at ${invalid.map((i) => i.path).join(", ")} does not pass its check`, {
      path: firstInvalid.path,
      ...firstInvalid.report,
      invalid: invalid.map((i) => i.path),
    });
  }

  // 409: every library operation needs a revision checked against its current contract.
  const candidates = await findPinCandidates(db, tenantId, toolIds);
  const offenders: Array<Record<string, string | number | null>> = [];
  const pinned: PinnedOperation[] = [];
  for (const selection of selections) {
    const source = selection.source;
    if (source.kind === "inline") {
      const inline = inlineDefinitions.get(selection.path);
      if (!inline) continue;
      pinned.push(pinnedInline(selection, source.entry, source.operationId, inline.definition, inline.contract_hash));
      continue;
    }
    const { tool, operation } = source;
    const key = operationKey(tool.id, operation.operation_id);
    const revision = candidates.pinnable.get(key);
    const parsed = revision ? parseDefinition(revision.definition) : undefined;
    const output = effectiveOutputSchema(operation, tool);
    if (!revision || !parsed?.ok || output === undefined) {
      const newest = candidates.newest.get(key);
      offenders.push({
        path: selection.path,
        tool_id: tool.id,
        operation_id: operation.operation_id,
        reason: revision ? "unreadable" : newest ? "stale" : "missing",
        current_contract_hash: operation.contract_hash,
        latest_revision: newest?.revision ?? null,
        latest_revision_contract_hash: newest?.contract_hash ?? null,
      });
      continue;
    }
    pinned.push({
      function_name: functionName(tool.name, operation.operation_id, tool.operations.length),
      tool_id: tool.id,
      tool_name: tool.name,
      operation_id: operation.operation_id,
      description: operation.description,
      input_schema: operation.input_schema,
      output_schema: output,
      annotations: operation.annotations ?? null,
      revision: revision.revision,
      contract_hash: revision.contract_hash,
      variant: selection.variant ?? parsed.definition.default_variant,
      definition: parsed.definition,
    });
  }
  if (offenders.length > 0) {
    const names = offenders.map((o) => `${o.tool_id}/${o.operation_id} (${o.reason})`).join(", ");
    throw new ApiError("no_current_revision", `these operations have no mock revision checked against their current contract: ${names}; save one first`, { offenders });
  }

  // 400: variants the pinned definitions do not have, and names agents could not tell apart.
  const clashes: Problem[] = [];
  const byName = new Map<string, PinnedOperation>();
  const toolOwners = new Map<string, string>();
  for (const [index, op] of pinned.entries()) {
    const path = selections.find((s) => sameOperation(s, op))?.path ?? pointer("tools", index);
    const variantPath = selections.find((s) => sameOperation(s, op))?.variantPath ?? `${path}/variant`;
    if (!Object.prototype.hasOwnProperty.call(op.definition.variants, op.variant)) {
      const where = op.revision === null ? "the inline definition" : `revision ${op.revision}`;
      clashes.push({ path: variantPath, message: `unknown variant "${op.variant}": ${where} of ${op.function_name} defines ${Object.keys(op.definition.variants).join(", ")}` });
    }
    const other = byName.get(op.function_name);
    if (other) clashes.push({ path, message: `the tool name "${op.function_name}" is already taken by another pinned operation` });
    byName.set(op.function_name, op);
    const owner = toolOwners.get(op.tool_name);
    const identity = op.tool_id ?? `inline:${path}`;
    if (owner !== undefined && owner !== identity) clashes.push({ path, message: `two different tools are named "${op.tool_name}"; state and evidence are kept by tool name` });
    toolOwners.set(op.tool_name, identity);
  }
  if (clashes.length > 0) throw invalidRequest(clashes);

  // 422: the tools' starting states.
  const pinnedTools: PinnedTool[] = [];
  const conflicts: Problem[] = [];
  for (const toolNameKey of new Set(pinned.map((op) => op.tool_name))) {
    const ops = pinned.filter((op) => op.tool_name === toolNameKey);
    const first = ops[0];
    if (!first) continue;
    const merged = mergeInitialStates(ops.map((op) => ({ operation_id: op.operation_id, state: initialState(op.definition) })));
    if (!merged.ok) {
      for (const conflict of merged.conflicts) conflicts.push({ path: `tool ${toolNameKey}: initial_state${conflict.path}`, message: conflict.message });
      continue;
    }
    const library = first.tool_id === null ? undefined : tools.get(first.tool_id);
    pinnedTools.push({
      tool_id: first.tool_id,
      tool_name: toolNameKey,
      operation_ids: library ? library.operations.map((op) => op.operation_id) : ops.map((op) => op.operation_id),
      initial_state: merged.state,
    });
  }
  if (conflicts.length > 0) throw new ApiError("initial_state_conflict", summarize(conflicts), { problems: conflicts });

  // Record, then set up the objects: D1 is the source of truth for who may use which attempt.
  const simulationId = newId("sim");
  const leaseMs = body.lease_seconds * 1000;
  const expiresAt = Date.now() + leaseMs;
  const attempts = await Promise.all(
    Array.from({ length: body.attempts }, async () => {
      const token = newAttemptToken();
      return { id: newId("att"), token, token_hash: sha256Hex(token), expires_at: new Date(expiresAt).toISOString() };
    }),
  );
  const records: PinnedRecord[] = pinned.map((op) => ({
    tool_id: op.tool_id,
    tool_name: op.tool_name,
    operation_id: op.operation_id,
    function_name: op.function_name,
    revision: op.revision,
    variant: op.variant,
    contract_hash: op.contract_hash,
    ...(op.revision === null ? { inline: { description: op.description, input_schema: op.input_schema, output_schema: op.output_schema, definition: op.definition } } : {}),
  }));
  await insertSimulation(db, { id: simulationId, tenantId, createdBy: keyId, leaseSeconds: body.lease_seconds, pinned: records, attempts });
  const replies = await Promise.all(
    attempts.map((attempt) => {
      const setup: AttemptSetup = {
        attempt_id: attempt.id,
        simulation_id: simulationId,
        tenant_id: tenantId,
        token_hash: attempt.token_hash,
        expires_at: expiresAt,
        operations: pinned,
        tools: pinnedTools,
      };
      return attemptStub(c.env, attempt.id).setup(setup);
    }),
  );
  const failed = replies.find((reply) => reply.kind !== "ok");
  if (failed && failed.kind === "conflict") throw new Error(`attempt object refused its setup: ${failed.message}`);

  const origin = new URL(c.req.url).origin;
  return c.json(
    {
      id: simulationId,
      lease_seconds: body.lease_seconds,
      attempts: attempts.map((attempt) => ({
        id: attempt.id,
        token: attempt.token,
        dispatch_url: `${origin}/api/attempts/${attempt.id}/dispatch`,
        mcp_url: `${origin}/api/attempts/${attempt.id}/mcp`,
        expires_at: attempt.expires_at,
      })),
      pinned: pinned.map((op) => ({
        tool_id: op.tool_id,
        tool_name: op.tool_name,
        tool: op.function_name,
        operation_id: op.operation_id,
        revision: op.revision,
        variant: op.variant,
        contract_hash: op.contract_hash,
      })),
    },
    201,
  );
});

function inlineContract(inline: InlineEntry["inline"]): OperationContract {
  return {
    tool: inline.name,
    operation: inline.operation_id ?? inline.name,
    description: inline.description,
    input_schema: inline.input_schema,
    output_schema: inline.output_schema,
  };
}

function pinnedInline(selection: Selection, inline: InlineEntry["inline"], operationId: string, definition: MockDefinition, contractHash: string): PinnedOperation {
  return {
    function_name: functionName(inline.name, operationId, 1),
    tool_id: null,
    tool_name: inline.name,
    operation_id: operationId,
    description: inline.description,
    input_schema: inline.input_schema,
    output_schema: inline.output_schema,
    annotations: inline.annotations ?? null,
    revision: null,
    contract_hash: contractHash,
    variant: selection.variant ?? definition.default_variant,
    definition,
  };
}

function sameOperation(selection: Selection, op: PinnedOperation): boolean {
  const source = selection.source;
  if (source.kind === "library") return source.tool.id === op.tool_id && source.operation.operation_id === op.operation_id;
  return op.tool_id === null && source.entry.name === op.tool_name && source.operationId === op.operation_id;
}

function schemaProblems(validator: ReturnType<typeof schemaValidator>, fields: Record<string, JsonSchema>): Problem[] {
  try {
    assertUsableSchemas(validator, fields);
    return [];
  } catch (error) {
    if (error instanceof ApiError && isProblemList(error.details)) return error.details.problems;
    throw error;
  }
}

function isProblemList(details: unknown): details is { problems: Problem[] } {
  return typeof details === "object" && details !== null && "problems" in details && Array.isArray(details.problems);
}

function summarize(problems: Problem[]): string {
  const first = problems[0];
  if (!first) return "invalid request";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  return `${first.path}: ${first.message}${more}`;
}

