/** Simulations (routes/simulations.ts) and the attempt routes (routes/attempts.ts, routes/dispatch.ts, mcp.ts). */
import { z } from "zod";
import { MAX_NAME_LENGTH } from "../../core/simulation/dispatch-request.js";
import { ATTEMPT_STATUSES } from "../../core/simulation/status.js";
import { externalCompletionBody } from "./external-completion-body.js";
import { completeRequest, EVIDENCE_PAGE_MAX } from "./routes.js";
import { stateQuery } from "./state-route.js";
import { inlineEntry, libraryEntry, simulationRequest } from "./simulation-routes.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named, queryParameters } from "../http/openapi/schemas.js";
import { JsonObjectValue, JsonValue, keyId, page, PAGING, Problem, timestamp } from "../http/openapi/common.js";

const RunEvals = { kind: "api_key", permission: "AIManager:RunEvals" } as const;

/** The route reads `tools` as a list of unknowns and checks each entry itself: the document says which two shapes an entry takes. */
named("LibraryToolEntry", libraryEntry);
named("InlineToolEntry", inlineEntry);
const SimulationBody = named(
  "SimulationRequest",
  simulationRequest.extend({
    tools: z
      .array(z.union([libraryEntry, inlineEntry]))
      .min(1)
      .max(50)
      .describe("Library tools by id (one operation or all), or inline tools with their mock definitions."),
  }),
);

const AttemptStatus = z.enum(ATTEMPT_STATUSES);
const Pinned = z.object({
  mode: z
    .literal("real")
    .optional()
    .describe("Present for an operation whose calls go to the tool's real handler (docs/real-tools.md)."),
  tool_id: z.string().nullable(),
  tool_name: z.string(),
  tool: z.string().describe("The function name the agent calls."),
  operation_id: z.string(),
  revision: z.number().int().nullable(),
  variant: z.string().nullable(),
  contract_hash: z.string(),
  dataset: z
    .object({ name: z.string(), version: z.number().int(), content_hash: z.string(), bytes: z.number().int() })
    .optional()
    .describe(
      "Present when the operation's tool starts from a stored dataset version (docs/simulations.md, Datasets).",
    ),
});
const AttemptUrls = {
  dispatch_url: z.string().describe("POST tool calls here."),
  mcp_url: z.string().describe("The same tools over MCP (Streamable HTTP)."),
};

const CreatedSimulation = named(
  "CreatedSimulation",
  z.object({
    id: z.string(),
    lease_seconds: z.number().int(),
    attempts: z.array(
      z.object({
        id: z.string(),
        token: z.string().describe("The attempt's capability token, shown this once."),
        ...AttemptUrls,
        expires_at: timestamp,
      }),
    ),
    pinned: z.array(Pinned),
  }),
);
const SimulationSummary = {
  id: z.string(),
  created_at: timestamp,
  created_by: keyId,
  lease_seconds: z.number().int(),
  pinned: z.array(Pinned),
};
const Simulation = named(
  "Simulation",
  z.object({
    ...SimulationSummary,
    attempts: z.array(
      z.object({ id: z.string(), status: AttemptStatus, may_pass: z.boolean(), expires_at: timestamp, ...AttemptUrls }),
    ),
  }),
);

const Attempt = named(
  "Attempt",
  z.object({
    id: z.string(),
    simulation_id: z.string(),
    status: AttemptStatus,
    may_pass: z
      .boolean()
      .describe("False once a harness error or a refusal makes the attempt unusable as evidence of a pass."),
    state: JsonObjectValue.describe(
      "Per tool name, the state now. A tool that starts from a dataset shows {dataset: {name, version, content_hash, bytes}, changes: [{pointer, value} | {pointer, removed: true}]}: the version it started from and every record changed over it, never the whole dataset (read any record with GET /api/attempts/:id/state).",
    ),
    calls: z.number().int(),
    tool_input_errors: z.number().int(),
    harness_errors: z.number().int(),
    real_calls: z
      .number()
      .int()
      .optional()
      .describe(
        "Attempts with real operations only: calls forwarded to real handlers (counted from the evidence: the same once the attempt is read back from D1).",
      ),
    contract_violations: z
      .number()
      .int()
      .optional()
      .describe(
        "Attempts with real operations only: calls whose real answer broke the output schema (counted from the evidence, like real_calls).",
      ),
    expires_at: timestamp,
    lease_ended: z.boolean(),
    completion: JsonValue.describe("What POST .../complete recorded (output, transcript, metadata), or null."),
  }),
);

const EvidenceCall = z.object({
  seq: z.number().int(),
  call_id: z.string().nullable(),
  tool: z.string(),
  operation_id: z.string(),
  revision: z.number().int().nullable(),
  variant: z.string().nullable(),
  rule: z.number().int().nullable().describe("The index of the mock rule that matched, or null."),
  arguments: JsonValue,
  outcome: z.enum(["result", "tool_input_error", "harness_error"]),
  result: JsonValue.optional(),
  error: z.record(z.string(), z.unknown()).optional(),
  delay_ms: z.number(),
  at: timestamp,
  state_change: z
    .object({
      tool: z.string(),
      before: JsonValue,
      after: JsonValue,
      records: z
        .array(z.string())
        .optional()
        .describe("A dataset tool only: the JSON Pointers of the records the call changed."),
      dataset: z.object({ name: z.string(), version: z.number().int() }).optional(),
    })
    .optional()
    .describe(
      "Present when the call's set_state changed its tool's state: the tool's state just before and just after. For a tool that starts from a dataset, only the records the call changed (a created record is absent from before, a removed one from after).",
    ),
  source: z.literal("real").optional().describe("Present for a call forwarded to a real handler (docs/real-tools.md)."),
  upstream: z
    .object({
      status: z.number().int().nullable().describe("The real handler's HTTP status, or null when no answer came."),
      latency_ms: z.number(),
      contract_violations: z
        .array(Problem)
        .describe("Where the real answer breaks the output schema (empty: it keeps the contract)."),
    })
    .optional()
    .describe(
      "Present for a call forwarded to a real handler (absent, with source still real, when its stored record cannot be read).",
    ),
});
const StateValue = named(
  "AttemptStateValue",
  z.object({
    attempt_id: z.string(),
    tool: z.string(),
    pointer: z.string(),
    value: JsonValue.describe("The value at the pointer, whole."),
  }),
);
const Evidence = named(
  "Evidence",
  z.object({
    attempt_id: z.string(),
    calls: z.array(EvidenceCall),
    next_cursor: z.string().nullable().describe("Pass as ?after= for the next page; null on the last."),
  }),
);

named("SimulationCompleteRequest", completeRequest);
named("ExternalCompleteRequest", externalCompletionBody);
const CompleteBody = named(
  "CompleteRequest",
  z
    .union([completeRequest, externalCompletionBody])
    .describe(
      "A simulation's attempt: output (any JSON), transcript, metadata. An external agent's repetition of a run: output (a string or null), approval_requests, messages, metadata (docs/external-agents.md).",
    ),
);
const ExternalCompleted = named(
  "ExternalCompletion",
  z.object({
    attempt_id: z.string(),
    run_id: z.string(),
    status: z.literal("scoring"),
    completion: JsonValue.describe("The completion as stored."),
  }),
);
const nameField = z.string().min(1).max(MAX_NAME_LENGTH);
/** Read by the core (parseDispatchRequest in the attempt object), not by zod: written here once for the document. */
const DispatchRequest = named(
  "DispatchRequest",
  z
    .strictObject({
      tool: nameField.describe("The function name the agent calls (the pinned tool's)."),
      operation_id: nameField.optional().describe("Needed only when the function name is ambiguous."),
      arguments: z
        .record(z.string(), z.unknown())
        .describe("The call's arguments, as the operation's input_schema describes them ({} when it takes none)."),
      call_id: nameField
        .optional()
        .describe(
          "An idempotency key: the same call_id again replays the first answer; repeated while a real call with it is still out at its real handler, it waits for that answer (never sent twice). Another tool or other arguments under it: 409 call_id_reused (details.seq null while that call is out).",
        ),
    })
    .describe("One tool call (docs/simulations.md)."),
);
const ToolResult = named("ToolResult", z.unknown().describe("The mock's rendered result, exactly, as the whole body."));
const JsonRpc = named(
  "JsonRpcMessage",
  z
    .record(z.string(), z.unknown())
    .describe(
      "A JSON-RPC 2.0 message (or batch) of the MCP Streamable HTTP transport: initialize, tools/list, tools/call.",
    ),
);

const DISPATCH_HEADERS = {
  "x-toolproof-seq": { description: "The call's number in the attempt's evidence.", schema: { type: "integer" } },
  "x-toolproof-tool": { description: "The tool (percent-encoded).", schema: { type: "string" } },
  "x-toolproof-operation": { description: "The operation (percent-encoded).", schema: { type: "string" } },
  "x-toolproof-rule": { description: 'The matched rule\'s index, or "none".', schema: { type: "string" } },
  "x-toolproof-delay-ms": { description: "The simulated delay that was waited.", schema: { type: "integer" } },
  "x-toolproof-outcome": { description: "result, tool_input_error or harness_error.", schema: { type: "string" } },
  "x-toolproof-revision": {
    description: "The mock revision that answered (library tools).",
    schema: { type: "integer" },
  },
  "x-toolproof-variant": { description: "The variant that answered, when one is pinned.", schema: { type: "string" } },
  "x-toolproof-replayed": {
    description: "true when a call_id was seen before and its answer is replayed.",
    schema: { type: "string" },
  },
};

/** Refusals of planning tool operations (a simulation's, a suite's): core/simulation planning and real-tools.ts. */
export const PLAN_ERRORS = [
  "not_found",
  "no_current_revision",
  "needs_authored_mock",
  "invalid_definition",
  "initial_state_conflict",
  "upstream_not_configured",
  "upstream_not_allowed",
  "real_write_not_allowed",
  "secret_not_configured",
] as const;

const attemptRead = { kind: "attempt_token", orApiKey: "AIManager:RunEvals" } as const;
const lostAttempt = ["not_found", "harness_error"] as const;

export const simulationOperations: OperationDoc[] = [
  {
    method: "post",
    path: "/api/simulations",
    tag: "Simulations",
    summary: "Start a simulation",
    description:
      "Pins tool operations (library revisions or inline definitions) and starts `attempts` attempts, each with its own token.",
    access: RunEvals,
    body: {
      schema: SimulationBody,
      example: { tools: [{ tool_id: "tool_01HZX3Q4V8KD2M7N5P6R9S0T1U" }], attempts: 1, lease_seconds: 3600 },
    },
    responses: {
      201: {
        description: "The simulation, its attempts and their tokens (shown this once).",
        schema: CreatedSimulation,
      },
    },
    errors: [...JSON_BODY_ERRORS, ...PLAN_ERRORS],
  },
  {
    method: "get",
    path: "/api/simulations",
    tag: "Simulations",
    summary: "List the tenant's simulations",
    description: "Newest first, paged.",
    access: RunEvals,
    query: PAGING,
    responses: {
      200: {
        description: "A page of simulations.",
        schema: page("SimulationPage", z.object({ ...SimulationSummary, attempt_count: z.number().int() })),
      },
    },
    errors: ["invalid_request"],
  },
  {
    method: "get",
    path: "/api/simulations/:id",
    tag: "Simulations",
    summary: "Read a simulation",
    description: "What it pinned, and its attempts with their statuses.",
    access: RunEvals,
    responses: { 200: { description: "The simulation.", schema: Simulation } },
    errors: ["not_found"],
  },
  {
    method: "post",
    path: "/api/attempts/:id/dispatch",
    tag: "Attempts",
    summary: "Dispatch one tool call",
    description:
      "The hot path. The body is the call's arguments; the answer's body is the mock's result exactly, and everything else is in x-toolproof-* headers. A tool input error (422) is the agent's to fix; a harness error (500) is not.",
    access: { kind: "attempt_token" },
    params: { id: "The attempt's id." },
    body: {
      schema: DispatchRequest,
      example: { tool: "invoices__get_invoice", arguments: { invoice_id: "INV-10423" } },
    },
    responses: {
      200: {
        description: "The tool's result.",
        schema: ToolResult,
        headers: DISPATCH_HEADERS,
        example: { invoice_id: "INV-10423", supplier: "Contoso Freight", amount: 18450, status: "open" },
      },
    },
    errors: [...JSON_BODY_ERRORS, "tool_input_error", "call_limit", "call_id_reused", ...lostAttempt],
  },
  {
    method: "post",
    path: "/api/attempts/:id/mcp",
    tag: "Attempts",
    summary: "The attempt's tools over MCP",
    description:
      "MCP Streamable HTTP, stateless, JSON answers (docs/simulations.md). Other methods on this path answer 405 method_not_allowed. A refused token (missing, wrong, an API key) is 403 with code unauthorized here, not 401: MCP clients answer a 401 by starting OAuth, which this server does not offer. After the lease, initialize and tools/list are JSON-RPC errors (-32600, data.code token_expired).",
    access: { kind: "attempt_token", refusedWith403: true },
    params: { id: "The attempt's id." },
    body: { schema: JsonRpc, example: { jsonrpc: "2.0", id: 1, method: "tools/list" } },
    responses: { 200: { description: "The JSON-RPC answer.", schema: JsonRpc } },
    errors: ["method_not_allowed", "payload_too_large", "unsupported_media_type", "malformed_json", ...lostAttempt],
  },
  {
    method: "get",
    path: "/api/attempts/:id",
    tag: "Attempts",
    summary: "Read an attempt",
    description: "Status, state and counts.",
    access: attemptRead,
    params: { id: "The attempt's id." },
    responses: { 200: { description: "The attempt.", schema: Attempt } },
    errors: ["not_found"],
  },
  {
    method: "get",
    path: "/api/attempts/:id/evidence",
    tag: "Attempts",
    summary: "An attempt's evidence",
    description: "Every call in order, paged by `after` (the seq of the last call seen).",
    access: attemptRead,
    params: { id: "The attempt's id." },
    query: [
      {
        name: "after",
        description: "Only calls after this seq: the next_cursor of the previous page (default 0, the first call on).",
        schema: { type: "integer", minimum: 0, default: 0 },
      },
      {
        name: "limit",
        description: `Calls per page: 1 to ${EVIDENCE_PAGE_MAX} (default ${EVIDENCE_PAGE_MAX}).`,
        schema: { type: "integer", minimum: 1, maximum: EVIDENCE_PAGE_MAX, default: EVIDENCE_PAGE_MAX },
      },
    ],
    responses: { 200: { description: "A page of calls.", schema: Evidence } },
    errors: ["invalid_request", "not_found", "internal_error"],
  },
  {
    method: "get",
    path: "/api/attempts/:id/state",
    tag: "Attempts",
    summary: "Read one value of a tool's state",
    description:
      "Any value of a tool's current state by JSON Pointer, whole: for a tool that starts from a dataset, any record (changed by this attempt or read from the shared base), e.g. ?tool=retail&pointer=/orders/%23W123. 404 naming the pointer when nothing is there, or naming the tool when the attempt has none of that name.",
    access: attemptRead,
    params: { id: "The attempt's id." },
    query: queryParameters(stateQuery, {
      tool: "The tool's name (state is kept per tool).",
      pointer: 'A JSON Pointer (RFC 6901) into its state: "/orders/#W123" (URL-encoded), "" for the whole state.',
    }),
    responses: { 200: { description: "The value.", schema: StateValue } },
    errors: ["invalid_request", "not_found", "internal_error"],
  },
  {
    method: "post",
    path: "/api/attempts/:id/complete",
    tag: "Attempts",
    summary: "Complete an attempt",
    description:
      "The agent's final output (any JSON), with an optional transcript and metadata. Once only. An external agent's repetition of a run (its job carried this attempt) completes with its own body instead: the answer is 202 and the repetition is scored by the queue.",
    access: { kind: "attempt_token" },
    params: { id: "The attempt's id." },
    body: { schema: CompleteBody, example: { output: "Invoice INV-1001 is paid." } },
    responses: {
      200: { description: "The attempt, completed.", schema: Attempt },
      202: {
        description: "An external agent's completion, stored; its repetition is being scored.",
        schema: ExternalCompleted,
      },
    },
    errors: [
      ...JSON_BODY_ERRORS,
      "already_completed",
      "not_external_repetition",
      "repetition_timed_out",
      ...lostAttempt,
    ],
  },
];
