/** The tool library (routes/tools.ts) and mock contracts (routes/tool-testing.ts, routes/inline-testing.ts). */
import { z } from "zod";
import type {
  RecordedDraft,
  SkippedCall as SkippedCallReport,
  VolatileValue as VolatileValueReport,
} from "../../core/contract/record-draft.js";
import { TOOL_KINDS } from "../../core/tools/types.js";
import { request as inlineTestingRequest } from "./inline-testing-routes.js";
import { testingRequest } from "./testing-routes.js";
import { mcpImportBody, platformImportBody } from "./routes.js";
import { toolBody } from "./tool-body.js";
import type { toolView } from "./tool-view.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import {
  assertSameFields,
  JsonSchemaValue,
  JsonValue,
  keyId,
  page,
  PAGING,
  Problem,
  timestamp,
  type SameFields,
} from "../http/openapi/common.js";

const ManageTools = { kind: "api_key", permission: "AIManager:ManageTools" } as const;

named("ToolBody", toolBody);
named("McpImportBody", mcpImportBody);
named("PlatformImportBody", platformImportBody);
named("ToolTestingRequest", testingRequest);
named("InlineTestingRequest", inlineTestingRequest);

const contractHash = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .describe("The operation's contract hash: sha-256 of its contract, 64 hex characters.");

const Tool = named(
  "Tool",
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    kind: z.enum(TOOL_KINDS),
    output_schema: JsonSchemaValue.nullable(),
    operations: z.array(
      z.object({
        operation_id: z.string(),
        description: z.string(),
        input_schema: JsonSchemaValue,
        output_schema: JsonSchemaValue.nullable().describe(
          "The operation's own output schema, or the tool's when it inherits.",
        ),
        output_schema_inherited: z.boolean(),
        annotations: z.record(z.string(), z.unknown()).nullable(),
        contract_hash: contractHash,
      }),
    ),
    source: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("Where an imported tool came from; null for one registered directly."),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);
assertSameFields<SameFields<ReturnType<typeof toolView>, z.input<typeof Tool>>>();

const ArchivedTool = named(
  "ArchivedTool",
  z.object({ id: z.string(), name: z.string(), archived_at: timestamp }).describe("The archived tool."),
);

const example = {
  id: "tool_01HZX3Q4V8KD2M7N5P6R9S0T1U",
  name: "invoices",
  description: "Reads and pays supplier invoices.",
  kind: "http",
  output_schema: null,
  operations: [
    {
      operation_id: "get_invoice",
      description: "Looks up one invoice by its number.",
      input_schema: {
        type: "object",
        properties: { number: { type: "string" } },
        required: ["number"],
        additionalProperties: false,
      },
      output_schema: {
        type: "object",
        properties: { number: { type: "string" }, amount: { type: "number" } },
        required: ["number", "amount"],
      },
      output_schema_inherited: false,
      annotations: null,
      contract_hash: "5f2b9c1e8a7d6b4c3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d",
    },
  ],
  source: null,
  created_at: "2026-12-01T10:00:00.000Z",
  updated_at: "2026-12-01T10:00:00.000Z",
};
const { id: _id, created_at: _c, updated_at: _u, source: _s, ...bodyExample } = example;
const toolBodyExample = {
  ...bodyExample,
  operations: bodyExample.operations.map(
    ({ contract_hash: _h, output_schema_inherited: _i, annotations: _a, ...op }) => op,
  ),
};

const Revision = named(
  "MockRevision",
  z.object({
    operation_id: z.string(),
    revision: z.number().int(),
    contract_hash: contractHash,
    created_at: timestamp,
    created_by: keyId,
  }),
);
const RevisionSummary = z.object({
  revision: z.number().int(),
  contract_hash: contractHash,
  created_at: timestamp,
  created_by: keyId,
});

const ToolTesting = named(
  "ToolTesting",
  z.object({
    tool_id: z.string(),
    operations: z.array(
      z.object({
        operation_id: z.string(),
        contract: z.object({
          description: z.string(),
          input_schema: JsonSchemaValue,
          output_schema: JsonSchemaValue.nullable(),
        }),
        contract_hash: contractHash,
        latest_revision: RevisionSummary.nullable(),
        stale: z
          .boolean()
          .describe("The latest revision was saved against another contract hash than the current one."),
      }),
    ),
  }),
);

const CheckReport = named(
  "CheckReport",
  z
    .object({
      valid: z.boolean(),
      errors: z.array(Problem),
      examples: z.array(z.record(z.string(), z.unknown())).describe("Each checked example and what it answered."),
      contract_hash: contractHash,
    })
    .describe("A mock definition checked against its contract (docs/mock-definition.md)."),
);
/** action "record": closed, exactly what core/contract/record-draft.ts reports (checked at compile time below). */
const callRef = {
  attempt_id: z.string(),
  seq: z.number().int().describe("The call's place in its attempt's evidence."),
};
const RecordedSource = named(
  "RecordedSource",
  z.strictObject({
    example: z.number().int().describe("The example (and rule) index."),
    ...callRef,
    calls: z.number().int().describe("How many recorded calls had this input."),
  }),
);
const VolatileValue = named(
  "RecordedVolatileValue",
  z
    .strictObject({
      example: z.number().int(),
      path: z.string().describe("A JSON Pointer into the recorded answer."),
      kind: z.enum(["timestamp", "differs_between_equal_inputs"]),
      value: JsonValue.describe("The value the draft keeps."),
      others: z
        .array(z.strictObject({ ...callRef, value: JsonValue.nullable() }))
        .optional()
        .describe("differs_between_equal_inputs: the other values seen at that path, and where."),
    })
    .describe(
      "A value of a recorded answer that will not hold as recorded: a time, or one that differed between calls with equal inputs.",
    ),
);
const SkippedCall = named(
  "RecordedSkippedCall",
  z.strictObject({ ...callRef, reason: z.string() }).describe("A recorded call left out of the draft, and why."),
);
const Recorded = named(
  "RecordedDraftReport",
  z
    .strictObject({
      calls: z.number().int().describe("Real answers found for the operation."),
      sources: z.array(RecordedSource),
      volatile: z.array(VolatileValue),
      skipped: z.array(SkippedCall),
    })
    .describe(
      'action "record": how many real answers were recorded, which became rules, which fields vary, which were skipped.',
    ),
);
assertSameFields<SameFields<Omit<RecordedDraft, "definition"> & { calls: number }, z.input<typeof Recorded>>>();
assertSameFields<SameFields<VolatileValueReport, z.input<typeof VolatileValue>>>();
assertSameFields<SameFields<SkippedCallReport, z.input<typeof SkippedCall>>>();

const Draft = named(
  "MockDraft",
  z
    .object({
      operation_id: z.string().optional(),
      contract_hash: contractHash.optional(),
      definition: JsonValue,
      report: CheckReport,
      recorded: Recorded.optional().describe(
        'action "record": how many real answers were recorded, which became rules, which fields vary, which were skipped.',
      ),
      revision: z.number().int().optional().describe('action "inject": the revision the variant was derived from.'),
      injection: JsonValue.optional().describe('action "inject": the variant, the payload and where it was placed.'),
    })
    .catchall(z.unknown())
    .describe(
      "A drafted mock definition and its check report (from the contract, or from a model when `instructions` or `connection` is given).",
    ),
);
const ToolTestingAnswer = named(
  "ToolTestingAnswer",
  z.union([Revision, Draft]).describe("A saved revision (save, 201) or a draft (generate, 200)."),
);
const InlineTestingAnswer = named("InlineTestingAnswer", z.union([CheckReport, Draft]));

const Revisions = page("MockRevisionPage", Revision.extend({ definition: JsonValue, stale: z.boolean() }));

const modelErrors = [
  "model_connection_required",
  "model_unavailable",
  "unusable_model_answer",
  "connection_key_unreadable",
  "secret_not_configured",
  "needs_authored_mock",
] as const;

export const toolOperations: OperationDoc[] = [
  {
    method: "post",
    path: "/api/tools",
    tag: "Tools",
    summary: "Register a tool",
    description: "Its operations' schemas are checked and each operation's contract hash is computed.",
    access: ManageTools,
    body: { schema: toolBody, example: toolBodyExample },
    responses: { 201: { description: "The registered tool.", schema: Tool, example } },
    errors: [...JSON_BODY_ERRORS, "tool_name_taken"],
  },
  {
    method: "post",
    path: "/api/tools/import/mcp",
    tag: "Tools",
    summary: "Import a tool from an MCP tools/list result",
    access: ManageTools,
    body: {
      schema: mcpImportBody,
      example: {
        name: "crm",
        tools_list: {
          tools: [{ name: "find_contact", description: "Finds a contact by email.", inputSchema: { type: "object" } }],
        },
      },
    },
    responses: { 201: { description: "The registered tool (kind mcp).", schema: Tool } },
    errors: [...JSON_BODY_ERRORS, "tool_name_taken"],
  },
  {
    method: "post",
    path: "/api/tools/import/platform",
    tag: "Tools",
    summary: "Import a tool from platform parameter lists",
    access: ManageTools,
    body: { schema: platformImportBody },
    responses: { 201: { description: "The registered tool (kind platform).", schema: Tool } },
    errors: [...JSON_BODY_ERRORS, "tool_name_taken"],
  },
  {
    method: "get",
    path: "/api/tools",
    tag: "Tools",
    summary: "List the tenant's tools",
    description: "Oldest first, paged.",
    access: ManageTools,
    query: PAGING,
    responses: {
      200: {
        description: "A page of tools.",
        schema: page("ToolPage", Tool),
        example: { items: [example], next_cursor: null },
      },
    },
    errors: ["invalid_request"],
  },
  {
    method: "get",
    path: "/api/tools/:id",
    tag: "Tools",
    summary: "Read a tool",
    access: ManageTools,
    responses: { 200: { description: "The tool.", schema: Tool, example } },
    errors: ["not_found"],
  },
  {
    method: "put",
    path: "/api/tools/:id",
    tag: "Tools",
    summary: "Replace a tool",
    description:
      "Takes what GET answers, edited. Read-only fields (id, contract_hash, source, created_at, updated_at) may be sent back unchanged; a changed one is refused, naming it.",
    access: ManageTools,
    body: { schema: toolBody, example: toolBodyExample },
    responses: { 200: { description: "The tool as it is now.", schema: Tool, example } },
    errors: [...JSON_BODY_ERRORS, "not_found", "tool_name_taken"],
  },
  {
    method: "delete",
    path: "/api/tools/:id",
    tag: "Tools",
    summary: "Archive a tool",
    description: "It leaves the library and its name is free again; simulations that pinned it keep working.",
    access: ManageTools,
    responses: { 200: { description: "The archived tool.", schema: ArchivedTool } },
    errors: ["not_found"],
  },
  {
    method: "get",
    path: "/api/tools/:id/testing",
    tag: "Mock contracts",
    summary: "A tool's testing view",
    description: "Each operation's contract, contract hash and latest mock revision, with a stale flag.",
    access: ManageTools,
    responses: { 200: { description: "The testing view.", schema: ToolTesting } },
    errors: ["not_found"],
  },
  {
    method: "post",
    path: "/api/tools/:id/testing",
    tag: "Mock contracts",
    summary: "Save or draft an operation's mock definition",
    description:
      'action "save": stores a new revision when the definition passes its check and contract_hash is the current one (409 stale_contract otherwise). action "generate": drafts a definition, from the contract or with a model. action "record": drafts one from the real answers that real-tools attempts (attempt_ids) recorded for the operation (docs/real-tools.md). action "inject": derives an injection variant from the current revision, a catalogue style or your payload (docs/injection.md). Drafts are never saved: save one with action "save".',
    access: ManageTools,
    body: { schema: testingRequest, example: { action: "generate", operation_id: "get_invoice" } },
    responses: {
      200: { description: "A draft (generate).", schema: ToolTestingAnswer },
      201: { description: "The saved revision (save).", schema: ToolTestingAnswer },
    },
    errors: [
      ...JSON_BODY_ERRORS,
      "not_found",
      "stale_contract",
      "invalid_definition",
      "no_current_revision",
      "not_injectable",
      "internal_error",
      ...modelErrors,
    ],
  },
  {
    method: "get",
    path: "/api/tools/:id/operations/:operation_id/revisions",
    tag: "Mock contracts",
    summary: "An operation's mock revisions",
    description: "Newest first, paged; each with its definition and whether it is stale.",
    access: ManageTools,
    query: PAGING,
    responses: { 200: { description: "A page of revisions.", schema: Revisions } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "post",
    path: "/api/tools/testing",
    tag: "Mock contracts",
    summary: "Check or draft an inline tool's mock",
    description: 'Nothing is stored. action "check": the definition\'s report; action "generate": a draft.',
    access: ManageTools,
    body: { schema: inlineTestingRequest },
    responses: { 200: { description: "The check report, or a draft.", schema: InlineTestingAnswer } },
    errors: [...JSON_BODY_ERRORS, ...modelErrors],
  },
];
