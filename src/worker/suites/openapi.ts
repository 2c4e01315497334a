/**
 * Policies (routes/policies.ts), the tool-permission metric (routes/metrics.ts) and suites
 * (routes/suites.ts). Policy and suite documents are read by the core (parsePolicy, parseSuite),
 * not by zod: their schemas here are written once for the document, at the top level, with the
 * nested rules described in docs/policy.md and docs/evals.md.
 */
import { z } from "zod";
import { MANIFEST_FORMATS } from "../../core/policy/types.js";
import { metricBody } from "../policies/metric-routes.js";
import { checkBody } from "../policies/routes.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import { PLAN_ERRORS } from "../attempts/openapi.js";
import { JsonValue, keyId, page, PAGING, Problem, timestamp } from "../http/openapi/common.js";

const ManageTools = { kind: "api_key", permission: "AIManager:ManageTools" } as const;
const RunEvals = { kind: "api_key", permission: "AIManager:RunEvals" } as const;
const DOCUMENT_TYPES = ["application/json", "application/yaml"] as const;
const documentErrors = [...JSON_BODY_ERRORS, "malformed_yaml"] as const;

const nested = (what: string) => z.unknown().describe(what);

const PolicyDocument = named(
  "PolicyDocument",
  z
    .strictObject({
      $schema: z.string().optional(),
      tools: z
        .record(z.string(), z.unknown())
        .describe(
          "The reviewed tools by name, each with its approval mode (never_require or always_require, or an object: docs/policy.md).",
        ),
      mcp_servers: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("Reviewed MCP servers by name: allowed_tools, approval, read_only_tools."),
      write_verbs: z
        .array(z.string())
        .optional()
        .describe(
          "Name prefixes of state-changing tools (default place_, release_, create_, send_, delete_, update_); [] turns the rule off.",
        ),
      min_description_length: z.number().int().min(0).optional(),
      required_description_words: nested("Words every tool's (or a named tool's) description must contain.").optional(),
      closed_enums: nested("Per tool, parameters that must be closed enums.").optional(),
      allowed_tools: z.array(z.string()).optional(),
      denied_tools: z.array(z.string()).optional(),
    })
    .describe("A tool policy (docs/policy.md), as JSON or YAML."),
);

const PolicyVersion = z.object({
  version: z.number().int(),
  document: JsonValue,
  created_by: keyId,
  created_at: timestamp,
});
const DocumentSummary = z.object({
  name: z.string(),
  latest_version: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp.describe("When the latest version was stored."),
});
const SavedPolicy = named(
  "SavedPolicyVersion",
  z.object({ name: z.string(), version: z.number().int(), created_by: keyId, created_at: timestamp }),
);
const Policy = named(
  "Policy",
  z.object({
    name: z.string(),
    latest: PolicyVersion,
    items: z.array(PolicyVersion),
    next_cursor: z.string().nullable(),
  }),
);
const NamedPolicyVersion = named("PolicyVersion", PolicyVersion.extend({ name: z.string() }));

const CheckBodyDoc = named(
  "PolicyCheckBody",
  checkBody.extend({
    manifest: z
      .unknown()
      .describe(
        'The agent\'s tool manifest: toolproof\'s shape, an OpenAI tools array ("format": "openai") or an MCP tools/list result ("format": "mcp"). Required.',
      ),
    format: z.enum(MANIFEST_FORMATS).optional(),
  }),
);
const PolicyReport = named(
  "PolicyCheckReport",
  z.object({
    passed: z.boolean(),
    findings: z.array(z.record(z.string(), z.unknown()).describe("One rule broken: rule, tool, message, severity.")),
    policy: z.object({ name: z.string(), version: z.number().int() }),
  }),
);

named("ToolPermissionRequest", metricBody);
const ToolPermission = named(
  "ToolPermissionResult",
  z.object({
    score: z.number(),
    success: z.boolean(),
    threshold: z.number(),
    reason: z.string().nullable(),
    unauthorized: z.array(z.record(z.string(), z.unknown())),
    total_calls: z.number().int(),
    authorized_calls: z.number().int(),
    steps: z.array(z.string()).optional(),
    policy: z.object({ name: z.string(), version: z.number().int() }).optional(),
  }),
);

const SuiteDocument = named(
  "SuiteDocument",
  z
    .strictObject({
      $schema: z.string().optional(),
      description: z.string().optional(),
      agent: nested(
        'The agent under test: built-in (connection, instructions, tools as a simulation\'s, each may have mode "real", policy) or kind "external" (endpoint, secret naming an agent secret, timeout; docs/external-agents.md).',
      ),
      scenarios: z
        .array(z.unknown())
        .describe("Each scenario: id, task, expectations (expected and forbidden calls, judge criteria)."),
      runs_per_scenario: z.number().int().optional(),
      pass_rate: z.number().optional(),
      scenario_pass_rate: z.number().optional(),
      misfire_rate: z.number().optional(),
      judge: nested("The judge: connection, criteria, require_calibration.").optional(),
      attacks: z
        .array(
          z.object({
            id: z.string(),
            function: z.string().describe("The function whose injection variant carries the payload."),
            variant: z.string().describe("The injection variant (saved through the testing route's action inject)."),
            target: z
              .object({ function: z.string(), arguments: z.record(z.string(), z.unknown()).optional() })
              .describe("The call the payload asks for: added to each attacked scenario's forbid."),
            scenarios: z
              .array(z.string())
              .optional()
              .describe("The scenarios it covers (absent: every scenario that does not expect the target)."),
          }),
        )
        .optional()
        .describe("Prompt-injection attacks run beside the scenarios (docs/injection.md)."),
      user_model: nested(
        "The model that plays the user of the conversation scenarios (those with `user` instead of `query`): connection, parameters, max_turns (docs/evals.md, Conversations with a simulated user).",
      ).optional(),
    })
    .describe("An eval suite (docs/evals.md), as JSON or YAML."),
);
const SavedSuite = named(
  "SavedSuiteVersion",
  z.object({
    name: z.string(),
    version: z.number().int(),
    created_by: keyId,
    created_at: timestamp,
    changed: z.boolean().describe("False when the suite was identical to the latest version (no version added)."),
    policy: JsonValue.describe("The policy the agent's tools were checked against, or null."),
    functions: z.array(
      z.object({
        name: z.string(),
        tool_id: z.string().nullable(),
        tool_name: z.string(),
        operation_id: z.string(),
        revision: z.number().int().nullable(),
        variant: z.string().nullable(),
        approval_mode: z.string().nullable(),
      }),
    ),
    warnings: z.array(Problem).describe("Connections the suite names that are not stored yet."),
  }),
);
const SuiteVersion = named(
  "SuiteVersion",
  z.object({ name: z.string(), version: z.number().int(), suite: JsonValue, created_by: keyId, created_at: timestamp }),
);
const VersionSummary = z.object({ version: z.number().int(), created_by: keyId, created_at: timestamp });

const policyName = {
  name: "The policy's name: 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit.",
};
const suiteName = {
  name: "The suite's name: 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit.",
};

export const documentOperations: OperationDoc[] = [
  {
    method: "get",
    path: "/api/policies",
    tag: "Policies",
    summary: "List the tenant's policies",
    access: ManageTools,
    query: PAGING,
    responses: { 200: { description: "A page of policies by name.", schema: page("PolicyPage", DocumentSummary) } },
    errors: ["invalid_request"],
  },
  {
    method: "put",
    path: "/api/policies/:name",
    tag: "Policies",
    summary: "Save a policy version",
    description: "Every PUT keeps a new version (author key and time).",
    access: ManageTools,
    params: policyName,
    body: {
      schema: PolicyDocument,
      contentTypes: DOCUMENT_TYPES,
      example: { tools: { get_invoice: "never_require" }, allowed_tools: ["get_invoice"] },
    },
    responses: {
      201: {
        description: "The saved version.",
        schema: SavedPolicy,
        headers: { location: { description: "The policy's URL.", schema: { type: "string" } } },
      },
    },
    errors: documentErrors,
  },
  {
    method: "get",
    path: "/api/policies/:name",
    tag: "Policies",
    summary: "Read a policy",
    description: "The latest version and the history, newest first, paged.",
    access: ManageTools,
    params: policyName,
    query: PAGING,
    responses: { 200: { description: "The policy.", schema: Policy } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "get",
    path: "/api/policies/:name/versions/:version",
    tag: "Policies",
    summary: "Read one policy version",
    access: ManageTools,
    params: policyName,
    responses: { 200: { description: "The version.", schema: NamedPolicyVersion } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "post",
    path: "/api/policies/:name/check",
    tag: "Policies",
    summary: "Check a tool manifest against a policy",
    description: "The same check as the offline CLI. `version` picks a version (default the latest).",
    access: ManageTools,
    params: policyName,
    body: {
      schema: CheckBodyDoc,
      example: { manifest: { tools: [{ name: "get_invoice", description: "Looks up one invoice by its number." }] } },
    },
    responses: { 200: { description: "The report.", schema: PolicyReport } },
    errors: [...JSON_BODY_ERRORS, "not_found", "stored_policy_invalid"],
  },
  {
    method: "post",
    path: "/api/metrics/tool-permission",
    tag: "Metrics",
    summary: "The tool-permission metric",
    description:
      "On one list of called tools, with allow/deny lists in the body or from a stored policy. Deterministic, no model.",
    access: ManageTools,
    body: {
      schema: metricBody,
      example: { allowed_tools: ["get_invoice"], tools_called: [{ name: "get_invoice" }, { name: "pay_invoice" }] },
    },
    responses: { 200: { description: "The score and what was unauthorized.", schema: ToolPermission } },
    errors: [...JSON_BODY_ERRORS, "not_found", "stored_policy_invalid"],
  },
  {
    method: "get",
    path: "/api/suites",
    tag: "Suites",
    summary: "List the tenant's suites",
    access: RunEvals,
    query: PAGING,
    responses: { 200: { description: "A page of suites by name.", schema: page("SuitePage", DocumentSummary) } },
    errors: ["invalid_request"],
  },
  {
    method: "put",
    path: "/api/suites/:name",
    tag: "Suites",
    summary: "Save a suite version",
    description:
      "201 for version 1, 200 after; a suite identical to the latest version adds none (changed: false). Its tools are planned as a simulation's, so refusals keep the simulation's codes, under /agent/tools, except that a tool or policy that does not exist is a 400 invalid_request naming the field (a mistake in the document), not a 404.",
    access: RunEvals,
    params: suiteName,
    body: { schema: SuiteDocument, contentTypes: DOCUMENT_TYPES },
    responses: {
      200: { description: "A later version (or none added).", schema: SavedSuite },
      201: { description: "The suite's first version.", schema: SavedSuite },
    },
    errors: [...documentErrors, ...PLAN_ERRORS, "stored_policy_invalid"],
  },
  {
    method: "get",
    path: "/api/suites/:name",
    tag: "Suites",
    summary: "Read a suite's latest version",
    access: RunEvals,
    params: suiteName,
    responses: { 200: { description: "The latest version.", schema: SuiteVersion } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "get",
    path: "/api/suites/:name/versions",
    tag: "Suites",
    summary: "A suite's history",
    description: "Newest first, paged.",
    access: RunEvals,
    params: suiteName,
    query: PAGING,
    responses: {
      200: {
        description: "A page of versions.",
        schema: page("SuiteVersionPage", VersionSummary, { name: z.string() }),
      },
    },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "get",
    path: "/api/suites/:name/versions/:version",
    tag: "Suites",
    summary: "Read one suite version",
    access: RunEvals,
    params: suiteName,
    responses: { 200: { description: "The version.", schema: SuiteVersion } },
    errors: ["invalid_request", "not_found"],
  },
];
