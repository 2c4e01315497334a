/**
 * Simulations, with an API key holding AIManager:RunEvals:
 *
 * - POST /api/simulations      pin tool operations and start attempts
 * - GET  /api/simulations      the tenant's simulations, newest first
 * - GET  /api/simulations/:id  one simulation: what it pinned, and its attempts with their statuses
 *
 * Creating one: the body's shape is checked here (400 naming each field), the planning (which
 * revision of which operation, variants, names, starting states, and the refusals in between) is
 * src/core/simulation/plan.ts, and this file maps each refusal to its error. Then each attempt
 * object is set up, and only once every one of them holds its setup does D1 record the simulation
 * and its attempts (token hashes only): a failed setup leaves no rows behind, and an object set up
 * for an attempt D1 never recorded is reachable by no one (its token was never handed out) and
 * deletes itself after its lease.
 */
import { Hono } from "hono";
import { z } from "zod";
import { sha256Hex } from "../../adapters/crypto.js";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import {
  getSimulation,
  insertSimulation,
  simulationPinnedText,
  listSimulations,
  toolLibrary,
  type AttemptRow,
  type SimulationRecord,
} from "../../adapters/d1/simulations.js";
import { datasetCatalog } from "../../adapters/d1/dataset-pins.js";
import { DATASET_NAME } from "../../core/datasets/pin.js";
import type { Problem } from "../../core/json.js";
import type { SchemaValidator } from "../../core/ports.js";
import {
  attemptSetup,
  entryProblems,
  pinnedRecords,
  planSimulation,
  type ToolEntry,
} from "../../core/simulation/plan.js";
import type { PinnedRecord } from "../../core/simulation/setup.js";
import { requireSetupFits } from "./setup-size.js";
import { mayPass, statusWithoutObject, type AttemptStatus } from "../../core/simulation/status.js";
import { attemptStub, newAttemptToken } from "./access.js";
import { RETENTION_MS } from "./lifetimes.js";
import type { AppEnv, Env } from "../platform/env.js";
import { invalidRequest, notFound } from "../http/errors.js";
import { planRefusalError } from "../http/plan-refusal.js";
import { hintedProblems, readBodyWithHints } from "../http/field-hints.js";
import { requirePermission } from "../http/auth.js";
import { pageCursor, pageLimit, CREATED_CURSOR } from "../http/pagination.js";
import { clientRecord, description, jsonObject, jsonSchemaField, toolName } from "../http/schema-fields.js";
import { schemaValidator } from "../platform/services.js";
import { realToolContext, requireRealTools } from "./real/context.js";

const MAX_ATTEMPTS = 100;
const MIN_LEASE_SECONDS = 10;
const MAX_LEASE_SECONDS = 24 * 60 * 60;
const DEFAULT_LEASE_SECONDS = 60 * 60;
const MAX_TOOL_ENTRIES = 50;
/** Inline definitions may be 100 KB each. */
const SIMULATION_BODY_LIMIT = 4 * 1024 * 1024;

const datasetPin = z.strictObject({
  name: z.string().regex(DATASET_NAME, "expected a dataset name (1 to 64 letters, digits, '_', '.' or '-')"),
  version: z.number().int("expected a whole number").min(1, "expected a version number from 1"),
});
const variantName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "expected a variant name (1 to 64 letters, digits, '_', '.' or '-')");
export const libraryEntry = z.strictObject({
  tool_id: z.string().min(1, "expected a tool id").max(200, "expected at most 200 characters"),
  operation_id: z.string().min(1).max(200).optional(),
  variant: variantName.optional(),
  variants: clientRecord(variantName).optional(),
  /** "real": calls go to the tool's real handler (docs/real-tools.md); needs AIManager:RunRealTools. */
  mode: z.enum(["mock", "real"], { error: 'expected "mock" (the default) or "real"' }).optional(),
  /** The stored dataset version the tool starts from (docs/simulations.md, "Datasets"). */
  dataset: datasetPin.optional(),
});
export const inlineEntry = z.strictObject({
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
  dataset: datasetPin.optional(),
});
export const simulationRequest = z.strictObject({
  tools: z
    .array(z.unknown())
    .min(1, "expected at least one tool")
    .max(MAX_TOOL_ENTRIES, `expected at most ${MAX_TOOL_ENTRIES} tools`),
  attempts: z
    .number()
    .int("expected a whole number")
    .min(1, "expected 1 or more")
    .max(MAX_ATTEMPTS, `expected at most ${MAX_ATTEMPTS}`)
    .default(1),
  lease_seconds: z
    .number()
    .int("expected a whole number of seconds")
    .min(MIN_LEASE_SECONDS, `expected at least ${MIN_LEASE_SECONDS}`)
    .max(MAX_LEASE_SECONDS, `expected at most ${MAX_LEASE_SECONDS}`)
    .default(DEFAULT_LEASE_SECONDS),
  /** The policy whose write rules a real-tools run applies (default: the default write verbs); only with a real-mode tool. */
  policy: z.string().min(1).max(200).optional(),
});

export const simulationRoutes = new Hono<AppEnv>();

simulationRoutes.post("/", requirePermission("AIManager:RunEvals"), async (c) => {
  const body = await readBodyWithHints(c, simulationRequest, SIMULATION_BODY_LIMIT);
  const { tenantId, keyId } = c.var.principal;
  const validator = schemaValidator();

  const entries = parseEntries(body.tools, validator);
  if (entries.problems.length > 0) throw invalidRequest(entries.problems);
  const realModes = entries.valid.flatMap((entry, index) =>
    "mode" in entry && entry.mode === "real" ? [`/tools/${index}/mode`] : [],
  );
  if (body.policy !== undefined && realModes.length === 0)
    // Accepted, it would read as a policy that governs these mocks, and nothing would say otherwise.
    throw invalidRequest([
      {
        path: "/policy",
        message:
          "a policy decides which calls of a real-mode tool are writes; no tool here is in real mode, so it would change nothing (leave it out, or set a tool's mode to real)",
      },
    ]);
  requireRealTools(c.var.principal, realModes);
  const real = realModes.length > 0 ? await realToolContext(c.env, c.var.db, tenantId, body.policy) : undefined;
  const planned = await planSimulation(entries.valid, {
    library: toolLibrary(c.var.db, tenantId),
    validator,
    real,
    datasets: datasetCatalog(c.var.db, tenantId),
  });
  if (!planned.ok) throw planRefusalError(planned.refusal);
  const plan = planned.plan;

  const simulationId = c.var.ids.id("sim");
  const expiresAt = Date.now() + body.lease_seconds * 1000;
  const attempts = Array.from({ length: body.attempts }, () => {
    const token = newAttemptToken();
    return {
      id: c.var.ids.id("att"),
      token,
      token_hash: sha256Hex(token),
      expires_at: new Date(expiresAt).toISOString(),
    };
  });
  const records = pinnedRecords(plan);
  // Checked before any object holds a setup: what one stored row cannot hold is refused whole.
  const pinnedText = simulationPinnedText(records);
  requireSetupFits(plan.operations, plan.tools);
  // Objects first, D1 after: see the header.
  const replies = await Promise.all(
    attempts.map((attempt) =>
      attemptStub(c.env, attempt.id).setup(
        attemptSetup(plan, {
          attempt_id: attempt.id,
          simulation_id: simulationId,
          tenant_id: tenantId,
          token_hash: attempt.token_hash,
          expires_at: expiresAt,
        }),
      ),
    ),
  );
  const refused = replies.find((reply) => reply.kind === "conflict");
  if (refused) throw new Error(`attempt object refused its setup: ${refused.message}`);
  await insertSimulation(c.var.db, {
    id: simulationId,
    tenantId,
    createdBy: keyId,
    leaseSeconds: body.lease_seconds,
    pinned: pinnedText,
    attempts,
  });

  const origin = new URL(c.req.url).origin;
  return c.json(
    {
      id: simulationId,
      lease_seconds: body.lease_seconds,
      attempts: attempts.map((attempt) => ({
        id: attempt.id,
        token: attempt.token,
        ...attemptUrls(origin, attempt.id),
        expires_at: attempt.expires_at,
      })),
      pinned: records.map(pinnedView),
    },
    201,
  );
});

simulationRoutes.get("/", requirePermission("AIManager:RunEvals"), async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, CREATED_CURSOR);
  const page = await listSimulations(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({
    items: page.items.map((simulation) => ({ ...simulationView(simulation), attempt_count: simulation.attempt_count })),
    next_cursor: page.next ? encodeCursor([page.next.created_at, page.next.id]) : null,
  });
});

simulationRoutes.get("/:id", requirePermission("AIManager:RunEvals"), async (c) => {
  const found = await getSimulation(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  if (!found) throw notFound("simulation");
  const origin = new URL(c.req.url).origin;
  const attempts = await Promise.all(
    found.attempts.map(async (attempt) => {
      const status = await attemptStatus(c.env, attempt);
      return {
        id: attempt.id,
        status,
        may_pass: mayPass(status),
        expires_at: attempt.expires_at,
        ...attemptUrls(origin, attempt.id),
      };
    }),
  );
  return c.json({ ...simulationView(found.simulation), attempts });
});

/** Each entry's shape, and what planning would find wrong with the entries that have it, all at once. */
function parseEntries(
  raw: readonly unknown[],
  validator: SchemaValidator,
): { valid: ToolEntry[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const valid: ToolEntry[] = [];
  raw.forEach((entry, index) => {
    const isInline = typeof entry === "object" && entry !== null && "inline" in entry;
    const schema = isInline ? inlineEntry : libraryEntry;
    const parsed = schema.safeParse(entry);
    if (!parsed.success) {
      for (const problem of hintedProblems(parsed.error, schema))
        problems.push({ path: `/tools/${index}${problem.path}`, message: problem.message });
    } else {
      problems.push(...entryProblems(parsed.data, `/tools/${index}`, validator));
      valid.push(parsed.data);
    }
  });
  return { valid, problems };
}

/**
 * What the attempt's object says, or when it holds nothing, what D1 last recorded (as
 * GET /api/attempts/:id answers it).
 */
async function attemptStatus(env: Env, attempt: AttemptRow): Promise<AttemptStatus> {
  const reply = await attemptStub(env, attempt.id).snapshot();
  if (reply.kind === "ok") return reply.snapshot.status;
  return statusWithoutObject(attempt.status, Date.parse(attempt.expires_at), RETENTION_MS, Date.now());
}

function simulationView(simulation: SimulationRecord) {
  return {
    id: simulation.id,
    created_at: simulation.created_at,
    created_by: simulation.created_by,
    lease_seconds: simulation.lease_seconds,
    pinned: simulation.pinned.map(pinnedView),
  };
}

function pinnedView(record: Omit<PinnedRecord, "inline">) {
  return {
    ...(record.mode === "real" ? { mode: "real" as const } : {}),
    tool_id: record.tool_id,
    tool_name: record.tool_name,
    tool: record.function_name,
    operation_id: record.operation_id,
    revision: record.revision,
    variant: record.variant,
    contract_hash: record.contract_hash,
    ...(record.dataset ? { dataset: record.dataset } : {}),
  };
}

function attemptUrls(origin: string, attemptId: string): { dispatch_url: string; mcp_url: string } {
  return {
    dispatch_url: `${origin}/api/attempts/${attemptId}/dispatch`,
    mcp_url: `${origin}/api/attempts/${attemptId}/mcp`,
  };
}
