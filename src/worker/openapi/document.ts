/**
 * GET /openapi.json: the OpenAPI 3.1 document of every API route, assembled at request time (once
 * per isolate) from the OperationDocs of ./paths and the zod schemas they name. Nothing is
 * generated ahead: a route's schema change shows in the document on the next start.
 */
import { ERROR_STATUS } from "../http/errors.js";
import { errorBodySchema, errorResponses } from "../http/openapi/errors.js";
import type { AnswerDoc, OperationDoc, ParameterDoc } from "../http/openapi/operation.js";
import { ALL_OPERATIONS } from "./paths.js";
import { componentRef, componentSchemas, schemaId } from "../http/openapi/schemas.js";
import { accessDescription, accessErrors, SECURITY_SCHEMES, securityOf } from "../http/openapi/security.js";

type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

/** Path parameters by name, worded once; an operation's `params` can say more. */
const PATH_PARAMETERS: Record<string, string> = {
  id: "The resource's id, as its create answer gave it.",
  name: "The resource's name: 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit.",
  version: "A version number (1, 2, ...).",
  n: "A repetition number (1, 2, ...), as the repetitions list gives it.",
  operation_id: "One of the tool's operation ids.",
};

/** /api/tools/:id → /api/tools/{id}. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function pathParameterNames(honoPath: string): string[] {
  return [...honoPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? "");
}

const TAGS = [
  {
    name: "Tools",
    description: "The tool library: register, import, read, change and archive tools (docs: README, Tools).",
  },
  {
    name: "Mock contracts",
    description:
      "Mock definitions of library and inline tools: check, draft, save revisions (docs/mock-definition.md).",
  },
  { name: "Simulations", description: "Pin tool operations and start attempts (docs/simulations.md)." },
  {
    name: "Attempts",
    description: "One attempt: dispatch tool calls, MCP, status, evidence, completion. Opened by the attempt's token.",
  },
  { name: "Policies", description: "Reviewed tool policies and manifest checks (docs/policy.md)." },
  { name: "Metrics", description: "Deterministic metrics on a list of called tools." },
  { name: "Suites", description: "Eval suites, versioned (docs/evals.md)." },
  {
    name: "Datasets",
    description: "JSON datasets that tools start from: versioned, content-hashed, append-only (docs/datasets.md).",
  },
  {
    name: "Runs",
    description:
      "Eval runs of a suite, their repetitions, labels and the judge's calibration (docs/evals.md, docs/scoring.md).",
  },
  {
    name: "Connections",
    description: "Model connections: OpenAI-compatible endpoints stored per tenant (docs/connections.md).",
  },
  { name: "Webhooks", description: "Webhooks that start runs, and their signed deliveries (docs/webhooks.md)." },
  {
    name: "Real tools",
    description: "Real handlers of library tools and the hosts real-tools runs may call (docs/real-tools.md).",
  },
  {
    name: "External agents",
    description: "The secrets that sign jobs sent to external agents (docs/external-agents.md).",
  },
  { name: "Service", description: "Health, the first Admin key of a deployment, and this reference itself." },
  { name: "API keys", description: "Mint, list and revoke a tenant's API keys over HTTP (README, Deploy)." },
];

let cached: OpenApiDocument | undefined;

export function openApiDocument(): OpenApiDocument {
  cached ??= buildDocument(ALL_OPERATIONS);
  return cached;
}

function buildDocument(operations: readonly OperationDoc[]): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  for (const operation of operations) {
    const path = openApiPath(operation.path);
    const entry = paths[path] ?? {};
    paths[path] = entry;
    if (entry[operation.method])
      throw new Error(`${operation.method.toUpperCase()} ${operation.path} is documented twice`);
    entry[operation.method] = operationObject(operation);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "toolproof API",
      version: "0.1.0",
      description:
        "Prove that a tool-using AI agent's limits hold: tool mocks as contracts, simulations, policy checks and behavioural evals. " +
        'Every error answers one body, {"error": {"code", "message", "details"?}} (components.schemas.ErrorBody); its status follows from its code. ' +
        "A path asked with a method it does not take answers 405 method_not_allowed with an Allow header, before any key or token is checked. " +
        "This document and its viewer (GET /docs) are public: no key needed.",
    },
    servers: [{ url: "/", description: "This toolproof instance" }],
    tags: TAGS,
    paths,
    components: {
      schemas: { ...componentSchemas(), ErrorBody: errorBodySchema(), ErrorStatus: errorStatusSchema() },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** The code → status table itself, for clients that map codes. */
function errorStatusSchema(): Record<string, unknown> {
  return {
    description: "Each error code's HTTP status (src/worker/http/errors.ts ERROR_STATUS).",
    type: "object",
    properties: Object.fromEntries(Object.entries(ERROR_STATUS).map(([code, status]) => [code, { const: status }])),
    examples: [ERROR_STATUS],
  };
}

function operationObject(operation: OperationDoc): Record<string, unknown> {
  const parameters = [
    ...pathParameterNames(operation.path).map((name) => ({
      name,
      in: "path",
      required: true,
      description: operation.params?.[name] ?? PATH_PARAMETERS[name] ?? name,
      schema: { type: "string" },
    })),
    ...(operation.query ?? []).map((parameter) => parameterObject(parameter, "query")),
    ...(operation.headers ?? []).map((parameter) => parameterObject(parameter, "header")),
  ];
  const permission = operation.access.kind === "api_key" ? operation.access.permission : undefined;
  const result: Record<string, unknown> = {
    operationId: operationId(operation),
    tags: [operation.tag],
    summary: operation.summary,
    description: [operation.description, accessDescription(operation.access)].filter(Boolean).join("\n\n"),
    security: securityOf(operation.access),
    ...(permission ? { "x-toolproof-permission": permission } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
  };
  if (operation.body) {
    const media = {
      schema: componentRef(schemaId(operation.body.schema, `${operation.method.toUpperCase()} ${operation.path} body`)),
      ...(operation.body.example === undefined ? {} : { example: operation.body.example }),
    };
    result.requestBody = {
      required: operation.body.required ?? true,
      ...(operation.body.description ? { description: operation.body.description } : {}),
      content: Object.fromEntries((operation.body.contentTypes ?? ["application/json"]).map((type) => [type, media])),
    };
  }
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(operation.responses)) {
    responses[status] =
      "schema" in answer
        ? answerObject(answer, `${operation.method.toUpperCase()} ${operation.path} ${status}`)
        : { description: answer.description };
  }
  const refusedWith403 = operation.access.kind === "attempt_token" && operation.access.refusedWith403 === true;
  Object.assign(
    responses,
    errorResponses(
      [...accessErrors(operation.access), ...(operation.errors ?? [])],
      refusedWith403 ? { unauthorized: 403, token_expired: 403 } : {},
    ),
  );
  result.responses = responses;
  return result;
}

function answerObject(answer: AnswerDoc, usedBy: string): Record<string, unknown> {
  return {
    description: answer.description,
    ...(answer.headers ? { headers: answer.headers } : {}),
    content: {
      [answer.contentType ?? "application/json"]: {
        schema: componentRef(schemaId(answer.schema, usedBy)),
        ...(answer.example === undefined ? {} : { example: answer.example }),
      },
    },
  };
}

function parameterObject(parameter: ParameterDoc, location: "query" | "header"): Record<string, unknown> {
  return {
    name: parameter.name,
    in: location,
    required: parameter.required ?? false,
    description: parameter.description,
    schema: parameter.schema,
  };
}

/** getApiToolsById-style ids are unreadable; method + path words are unique and stable. */
function operationId(operation: OperationDoc): string {
  const words = operation.path
    .split("/")
    .filter((part) => part !== "" && part !== "api")
    .map((part) => (part.startsWith(":") ? `by_${part.slice(1)}` : part.replace(/[^A-Za-z0-9]+/g, "_")));
  return [operation.method, ...words].join("_");
}
