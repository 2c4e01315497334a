/** The secrets that sign jobs sent to external agents (routes/agent-secrets.ts); docs/external-agents.md. */
import { z } from "zod";
import { agentSecretBody } from "./routes.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import { Deleted, keyId, page, PAGING, timestamp } from "../http/openapi/common.js";

const Admin = { kind: "api_key", permission: "AIManager:Admin" } as const;
const secretName = {
  name: "The secret's name, as a suite's agent.secret names it: 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit.",
};

named("AgentSecretRequest", agentSecretBody);
const AgentSecretSummary = { name: z.string(), created_by: keyId, created_at: timestamp };
const AgentSecret = named(
  "AgentSecret",
  z.object({
    ...AgentSecretSummary,
    secret: z
      .string()
      .optional()
      .describe("A generated secret (whsec_...), shown this once; absent when the body gave one."),
  }),
);

export const agentSecretOperations: OperationDoc[] = [
  {
    method: "put",
    path: "/api/agent-secrets/:name",
    tag: "External agents",
    summary: "Store (or rotate) an agent secret",
    description:
      '{} generates a Standard Webhooks secret and answers it this once; {"secret": "whsec_..."} stores yours, not answered back. Putting a name again replaces its secret: jobs sent after carry the new signature.',
    access: Admin,
    params: secretName,
    body: { schema: agentSecretBody, example: {} },
    responses: {
      201: {
        description: "A new name: the stored secret's name and dates (and a generated secret).",
        schema: AgentSecret,
        headers: { location: { description: "The secret's URL.", schema: { type: "string" } } },
      },
      200: {
        description: "The name's secret replaced (the rotation): as for 201.",
        schema: AgentSecret,
        headers: { location: { description: "The secret's URL.", schema: { type: "string" } } },
      },
    },
    errors: [...JSON_BODY_ERRORS, "secret_not_configured"],
  },
  {
    method: "get",
    path: "/api/agent-secrets",
    tag: "External agents",
    summary: "List the tenant's agent secrets",
    description: "By name, paged; never a secret.",
    access: Admin,
    query: PAGING,
    responses: {
      200: { description: "A page of agent secrets.", schema: page("AgentSecretPage", z.object(AgentSecretSummary)) },
    },
    errors: ["invalid_request"],
  },
  {
    method: "delete",
    path: "/api/agent-secrets/:name",
    tag: "External agents",
    summary: "Delete an agent secret",
    description: "Runs of suites that name it refuse to start.",
    access: Admin,
    params: secretName,
    responses: { 200: { description: "Deleted.", schema: Deleted("DeletedAgentSecret", "name") } },
    errors: ["invalid_request", "not_found"],
  },
];
