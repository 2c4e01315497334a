/**
 * Fixtures for simulation, attempt and MCP tests: inline tools whose definitions exercise the call
 * algorithm and every row of the error table, and small wrappers over the real HTTP routes.
 */
import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { JsonObject } from "../../src/core/json.js";
import type { AttemptObject } from "../../src/worker/attempts/object.js";
import { call, type TestTenant } from "./helpers.js";

/** Mirrors its arguments object: whatever the agent sends comes back. */
export const mirrorTool = {
  name: "echo",
  description: "Answer the arguments as they came.",
  input_schema: { type: "object" },
  output_schema: { type: "object" },
  testing: {
    schema_version: 1,
    default_variant: "mirror",
    variants: { mirror: { result: { $input: "" } } },
    examples: [{ variant: "mirror", input: { a: [1] }, expected: { a: [1] } }],
  },
};

/** Swaps the stored number for the argument and answers the previous one: lost or interleaved updates show at once. */
export const counterTool = {
  name: "counter",
  description: "Store a new number and answer the number stored before it.",
  input_schema: {
    type: "object",
    properties: { n: { type: "integer" } },
    required: ["n"],
    additionalProperties: false,
  },
  output_schema: {
    type: "object",
    properties: { previous: { type: "integer" } },
    required: ["previous"],
    additionalProperties: false,
  },
  testing: {
    schema_version: 1,
    default_variant: "swap",
    initial_state: { last: 0 },
    variants: { swap: { result: { previous: { $state: "last" } }, set_state: { last: { $input: "n" } } } },
    examples: [{ variant: "swap", input: { n: 5 }, expected: { previous: 0 } }],
  },
};

/**
 * One inline tool whose rules reach every row of the error table. Examples cover only the happy
 * rules, so the definition passes its check and the broken rules fail at call time, as a fixture
 * with a mistake in an untested branch would.
 */
export const ledgerTool = {
  name: "ledger",
  description: "Answer one ledger value; the mode picks which rule answers.",
  input_schema: {
    type: "object",
    properties: {
      mode: { type: "string", enum: ["ok", "missing", "literal", "bad_output", "amount", "date"] },
      amount: { type: "string" },
      date: { type: "string" },
    },
    required: ["mode"],
    additionalProperties: false,
  },
  output_schema: {
    type: "object",
    properties: { value: { type: ["string", "number"] } },
    required: ["value"],
    additionalProperties: false,
  },
  testing: {
    schema_version: 1,
    default_variant: "main",
    initial_state: { label: "abc" },
    variants: {
      main: {
        result: { value: "ok" },
        rules: [
          {
            when: [{ source: "input", path: "mode", op: "eq", value: "missing" }],
            result: { value: { $state: "nothing" } },
          },
          {
            when: [{ source: "input", path: "mode", op: "eq", value: "literal" }],
            result: { value: { $number: { $state: "label" } } },
          },
          { when: [{ source: "input", path: "mode", op: "eq", value: "bad_output" }], result: { value: true } },
          {
            when: [{ source: "input", path: "mode", op: "eq", value: "amount" }],
            result: { value: { $number: { $input: "amount" } } },
          },
          {
            when: [{ source: "input", path: "mode", op: "eq", value: "date" }],
            result: { value: { $dateAdd: { value: { $input: "date" }, days: 30 } } },
          },
        ],
      },
    },
    examples: [
      { variant: "main", input: { mode: "ok" }, expected: { value: "ok" } },
      { variant: "main", input: { mode: "amount", amount: "12.50" }, expected: { value: 12.5 } },
      { variant: "main", input: { mode: "date", date: "2026-01-01" }, expected: { value: "2026-01-31T00:00:00.000Z" } },
    ],
  },
};

export interface CreatedAttempt {
  id: string;
  token: string;
  dispatch_url: string;
  mcp_url: string;
  expires_at: string;
}

export interface CreatedSimulation {
  id: string;
  lease_seconds: number;
  attempts: CreatedAttempt[];
  pinned: Array<{
    tool_id: string | null;
    tool_name: string;
    tool: string;
    operation_id: string;
    revision: number | null;
    variant: string;
    contract_hash: string;
  }>;
}

export async function createSimulation(
  tenant: TestTenant,
  body: JsonObject | Record<string, unknown>,
): Promise<CreatedSimulation> {
  const response = await call("POST", "/api/simulations", { key: tenant.key, body });
  const answer: unknown = await response.json();
  expect({ status: response.status, answer }).toMatchObject({ status: 201 });
  // SAFETY: a 201 answer has the documented Simulation shape (checked field by field in simulations.happy).
  return answer as CreatedSimulation;
}

export function dispatch(
  attempt: Pick<CreatedAttempt, "id" | "token">,
  body: unknown,
  token = attempt.token,
): Promise<Response> {
  return call("POST", `/api/attempts/${attempt.id}/dispatch`, { key: token, body });
}

export async function dispatchJson(
  attempt: Pick<CreatedAttempt, "id" | "token">,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await dispatch(attempt, body);
  return { status: response.status, body: await response.json() };
}

export interface EvidenceCallView {
  seq: number;
  call_id: string | null;
  tool: string;
  operation_id: string;
  revision: number | null;
  variant: string | null;
  rule: number | null;
  arguments: unknown;
  outcome: string;
  result?: unknown;
  error?: { code: string; kind?: string; message: string; details: unknown };
  delay_ms: number;
  at: string;
}

export async function evidence(
  attempt: Pick<CreatedAttempt, "id" | "token">,
  key = attempt.token,
): Promise<EvidenceCallView[]> {
  const calls: EvidenceCallView[] = [];
  let after = 0;
  for (;;) {
    const response = await call("GET", `/api/attempts/${attempt.id}/evidence?after=${after}`, { key });
    expect(response.status).toBe(200);
    // SAFETY: documented evidence shape.
    const page = (await response.json()) as { calls: EvidenceCallView[]; next_cursor: string | null };
    calls.push(...page.calls);
    if (page.next_cursor === null) return calls;
    after = Number(page.next_cursor);
  }
}

export async function readAttempt(
  attempt: Pick<CreatedAttempt, "id" | "token">,
  key = attempt.token,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await call("GET", `/api/attempts/${attempt.id}`, { key });
  // SAFETY: JSON object answers (the attempt view or an error body).
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Registers a library tool through the real route and saves a revision per given definition. */
export async function libraryTool(
  tenant: TestTenant,
  spec: JsonObject | Record<string, unknown>,
  definitions: Record<string, unknown>,
): Promise<{ id: string; operations: Array<{ operation_id: string; contract_hash: string }> }> {
  const created = await call("POST", "/api/tools", { key: tenant.key, body: spec });
  expect(created.status).toBe(201);
  // SAFETY: documented Tool shape.
  const tool = (await created.json()) as {
    id: string;
    operations: Array<{ operation_id: string; contract_hash: string }>;
  };
  for (const [operationId, definition] of Object.entries(definitions)) {
    const op = tool.operations.find((o) => o.operation_id === operationId);
    const saved = await call("POST", `/api/tools/${tool.id}/testing`, {
      key: tenant.key,
      body: { action: "save", operation_id: operationId, contract_hash: op?.contract_hash, definition },
    });
    expect({ operationId, status: saved.status, body: await saved.json() }).toMatchObject({ status: 201 });
  }
  return tool;
}

/** The attempt's Durable Object, for runInDurableObject and runDurableObjectAlarm. */
export function stubOf(attempt: Pick<CreatedAttempt, "id">): DurableObjectStub<AttemptObject> {
  // SAFETY: wrangler.toml binds ATTEMPTS to AttemptObject; the test env types the namespace untyped.
  const namespace = env.ATTEMPTS as unknown as DurableObjectNamespace<AttemptObject>;
  return namespace.get(namespace.idFromName(attempt.id));
}

/**
 * The 413 answer to a completion that would not fit the attempt's D1 row beside its state:
 * `bytes` together, `fields` the completion's fields the message names ("output, transcript or metadata").
 */
export function completionTooLarge(bytes: number, fields: string) {
  return {
    status: 413,
    body: {
      error: {
        code: "payload_too_large",
        message: `the completion beside the attempt's state would be ${bytes} bytes; the state and the completion may be at most 1900000 bytes together (the attempt's D1 row): send a shorter ${fields}`,
        details: { bytes, limit_bytes: 1_900_000 },
      },
    },
  };
}
