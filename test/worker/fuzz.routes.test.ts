/**
 * Fuzz over every POST and PUT route, through the real Worker in workerd: near-valid bodies (a
 * valid body with fields dropped, added, retyped, made huge, odd or deep), arbitrary JSON, raw
 * texts, bytes that are not UTF-8, wrong content types and odd path parameters. Whatever arrives,
 * the answer is never a 5xx other than a documented harness error, and every error is in the
 * documented body with a code of the closed vocabulary at the status that table gives it.
 *
 * Deterministic by default (a fixed seed, printed with the request counts); set VITE_FUZZ_SEED
 * and VITE_FUZZ_RUNS (a multiplier) to explore further, VITE_FUZZ_SURVEY=1 to list every distinct
 * failure in one run instead of stopping at the first (docs/fuzzing.md).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import toolsList from "../fixtures/mcp-tools-list.json" with { type: "json" };
import manifest from "../../examples/policy/manifest.json" with { type: "json" };
import openAiTools from "../../examples/policy/openai-tools.json" with { type: "json" };
import policy from "../../examples/policy/policy.json" with { type: "json" };
import called from "../../examples/policy/called.json" with { type: "json" };
import {
  type BodyCase,
  type Doc,
  Raw,
  bodyArb,
  deep,
  bodyPayload,
  contentTypeArb,
  docText,
  mutate,
  mutationArb,
  pathParamArb,
  toDoc,
  yamlArb,
} from "./fuzz-arbitraries.js";
import {
  echoDefinition,
  echoInline,
  type Fixtures,
  makeFixtures,
  orderLibraryTool,
  orderSearchInput,
  orderSearchOutput,
  validArguments,
} from "./fuzz-fixtures.js";
import {
  type Allowance,
  expectDocumented,
  FUZZ_SCALE,
  fuzzParameters,
  printCounts,
  reportSurvey,
  send,
  type Sent,
} from "./fuzz-helpers.js";

/** Harness errors a dispatch may answer because of the name it calls: fail closed, documented (docs/simulations.md). */
const NAMING_HARNESS_KINDS = ["unknown_tool", "unknown_operation", "missing_definition"] as const;
const ATTEMPTS = 6;
const MCP_ACCEPT = "application/json, text/event-stream";

interface Case {
  body: BodyCase;
  contentType: string | null;
  param: string;
  auth: "right" | "none" | "bare" | "basic" | "other";
}

interface RouteSpec {
  name: string;
  method: "POST" | "PUT";
  /** The path with the (possibly odd) parameter; routes without one ignore it. */
  path: (param: string) => string;
  /** The valid path parameter, or undefined for routes without one. */
  param?: (f: Fixtures) => string[];
  valid: (f: Fixtures) => unknown;
  /** Other valid bodies (other actions, formats), sent whole. */
  alternatives?: (f: Fixtures) => unknown[];
  contentType?: string;
  /** The bearer token for a parameter: the tenant's key, or the attempt's token. */
  token: (f: Fixtures, param: string) => string;
  headers?: Record<string, string>;
  allowance?: Allowance;
  /** A body arbitrary replacing the default (YAML). */
  bodies?: (f: Fixtures) => fc.Arbitrary<BodyCase>;
  runs: number;
  /** Reproductions found by this suite, always run first (each names the issue-9 item that fixes it). */
  examples?: (f: Fixtures) => Case[];
}

const apiKey = (f: Fixtures) => f.tenant.key;
const attemptToken = (f: Fixtures, id: string) =>
  f.attempts.find((a) => a.id === id)?.token ?? f.attempts[0]?.token ?? "";
const attemptIds = (f: Fixtures) => f.attempts.map((a) => a.id);

const policyYaml = `tools:
  get_invoice: never_require
  place_invoice_on_hold: always_require
write_verbs: [place_, release_]
min_description_length: 20
allowed_tools: [get_invoice, place_invoice_on_hold]
denied_tools: [pay_invoice]
`;

/** An inline check whose one example makes "^(a+)+$" backtrack: 2^29 steps in a validator that does not bound them. */
const slowPatternCheck = {
  action: "check",
  name: "slow",
  description: "d",
  input_schema: { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } },
  output_schema: { type: "object" },
  testing: {
    schema_version: 1,
    default_variant: "v",
    variants: { v: { result: {} } },
    examples: [{ variant: "v", input: { q: `${"a".repeat(29)}!` }, expected: {} }],
  },
};

/** A reproduction: the route's valid body with the value at `path` replaced, sent as is. */
function replaced(valid: unknown, path: ReadonlyArray<string | number>, value: Doc, param = ""): Case {
  const root = toDoc(valid);
  let parent: Doc = root;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, Doc>)[key] ?? null;
  const last = path[path.length - 1];
  if (last === undefined)
    return { body: { kind: "json", value }, contentType: "application/json", param, auth: "right" };
  (parent as Record<string | number, Doc>)[last] = value;
  return { body: { kind: "json", value: root }, contentType: "application/json", param, auth: "right" };
}

function rawBody(text: string, param = "", contentType = "application/json"): Case {
  return { body: { kind: "text", text: new Raw(text) }, contentType, param, auth: "right" };
}

const routes: RouteSpec[] = [
  {
    name: "POST /api/tools",
    method: "POST",
    path: () => "/api/tools",
    valid: () => ({ ...orderLibraryTool, name: "fuzz_tool" }),
    token: apiKey,
    runs: 45,
    // Issue 9 item 3 (helper A): a schema nested 5,000 levels (2,000 is enough) overflows the stack in zod's jsonValue.
    examples: () => [
      replaced(
        { ...orderLibraryTool, name: "deep_tool" },
        ["operations", 0, "input_schema", "properties", "x"],
        deep(5000, "array"),
      ),
    ],
  },
  {
    name: "POST /api/tools/import/mcp",
    method: "POST",
    path: () => "/api/tools/import/mcp",
    valid: () => ({
      name: "fuzz_mcp",
      description: "Weather MCP server",
      tools_list: toolsList,
      allowed_tools: ["get_weather_data"],
    }),
    alternatives: () => [{ name: "fuzz_mcp_all", tools_list: toolsList, output_schema: { type: "object" } }],
    token: apiKey,
    runs: 35,
  },
  {
    name: "POST /api/tools/import/platform",
    method: "POST",
    path: () => "/api/tools/import/platform",
    valid: () => ({
      name: "fuzz_platform",
      description: "Salesforce adapter",
      coerce: { Filter: "object" },
      operations: [
        {
          operation_id: "get_contact",
          description: "Read one contact",
          required: ["Id"],
          parameters: [
            { name: "Id", type: "string", required: true, description: "Contact id" },
            { name: "Limit", type: "integer" },
            { name: "Mode", type: "string", options: ["full", "short"] },
            { name: "Filter", type: "string" },
          ],
          response: {
            status: 200,
            schema: { type: "object", properties: { records: { type: "array" } }, required: ["records"] },
          },
        },
      ],
    }),
    token: apiKey,
    runs: 35,
    // Issue 9 item 3 (helper A): a response schema nested 5,000 levels (1,500 is enough).
    examples: () => [
      replaced(
        {
          name: "deep_platform",
          description: "d",
          operations: [{ operation_id: "o", description: "d", parameters: [], response: { schema: {} } }],
        },
        ["operations", 0, "response", "schema"],
        deep(5000, "object"),
      ),
    ],
  },
  {
    name: "PUT /api/tools/:id",
    method: "PUT",
    path: (id) => `/api/tools/${id}`,
    param: (f) => [f.mutable.id],
    valid: () => ({ ...orderLibraryTool, name: "mutable_orders" }),
    token: apiKey,
    runs: 35,
    // Issue 9 item 3 (helper A).
    examples: (f) => [
      replaced(
        { ...orderLibraryTool, name: "mutable_orders" },
        ["operations", 0, "input_schema", "properties", "x"],
        deep(5000, "array"),
        f.mutable.id,
      ),
    ],
  },
  {
    name: "POST /api/tools/:id/testing",
    method: "POST",
    path: (id) => `/api/tools/${id}/testing`,
    param: (f) => [f.orders.id],
    valid: (f) => ({
      action: "save",
      operation_id: "search_orders",
      contract_hash: f.orders.contract_hash,
      definition: echoDefinition,
    }),
    alternatives: () => [{ action: "generate", operation_id: "search_orders" }],
    token: apiKey,
    runs: 35,
  },
  {
    name: "POST /api/tools/testing",
    method: "POST",
    path: () => "/api/tools/testing",
    valid: () => ({ action: "check", ...echoInline }),
    alternatives: () => [
      {
        action: "generate",
        name: "echo",
        description: "d",
        input_schema: orderSearchInput,
        output_schema: orderSearchOutput,
      },
    ],
    token: apiKey,
    runs: 40,
    examples: () => [
      // Issue 9 item 3 (helper A).
      replaced({ action: "check", ...echoInline }, ["input_schema", "properties", "x"], deep(5000, "array")),
      // Found by this suite, fixed here (src/core/contract/derive.ts): a draft of minLength 1e9 threw RangeError, a 500.
      replaced(
        {
          action: "generate",
          name: "echo",
          description: "d",
          input_schema: orderSearchInput,
          output_schema: orderSearchOutput,
        },
        ["input_schema", "properties", "query"],
        { type: "string", minLength: 1e9 },
      ),
      // Issue 9 item 4 (helper B): a backtracking pattern holds the Worker for seconds on a 29-character example.
      replaced({}, [], toDoc(slowPatternCheck)),
    ],
  },
  {
    name: "POST /api/simulations",
    method: "POST",
    path: () => "/api/simulations",
    valid: (f) => ({
      tools: [{ inline: echoInline }, { tool_id: f.orders.id, variant: "echo" }],
      attempts: 1,
      lease_seconds: 60,
    }),
    alternatives: (f) => [
      { tools: [{ tool_id: f.orders.id, operation_id: "search_orders", variants: { search_orders: "echo" } }] },
    ],
    token: apiKey,
    runs: 40,
    // Issue 9 item 3 (helpers A and E).
    examples: () => [
      replaced(
        { tools: [{ inline: echoInline }] },
        ["tools", 0, "inline", "input_schema", "properties", "x"],
        deep(5000, "array"),
      ),
    ],
  },
  {
    name: "PUT /api/policies/:name (JSON)",
    method: "PUT",
    path: (name) => `/api/policies/${name}`,
    param: () => ["fuzz-json"],
    valid: () => policy,
    token: apiKey,
    runs: 35,
    // Issue 9 item 3 (helper A): 5,000 levels overflow isJsonValue.
    examples: () => [replaced(policy, ["closed_enums"], deep(5000, "array"), "fuzz-json")],
  },
  {
    name: "PUT /api/policies/:name (YAML)",
    method: "PUT",
    path: (name) => `/api/policies/${name}`,
    param: () => ["fuzz-yaml"],
    valid: () => policy,
    contentType: "application/yaml",
    // Issue 9 item 3 (helper A): a YAML alias to itself.
    examples: () => [
      rawBody("&a [*a]", "fuzz-yaml", "application/yaml"),
      rawBody("&a {x: *a}", "fuzz-yaml", "application/yaml"),
    ],
    bodies: () =>
      fc.oneof(
        {
          weight: 1,
          arbitrary: fc.constant<BodyCase>({ kind: "text", text: new Raw(policyYaml, "the valid policy YAML") }),
        },
        { weight: 4, arbitrary: yamlArb.map((text): BodyCase => ({ kind: "text", text })) },
        // JSON is YAML too: the mutated JSON policy, read by the YAML parser.
        {
          weight: 3,
          arbitrary: fc
            .array(mutationArb, { minLength: 1, maxLength: 3 })
            .map((mutations): BodyCase => ({ kind: "mutated", mutations })),
        },
      ),
    token: apiKey,
    runs: 40,
  },
  {
    name: "POST /api/datasets/:name/versions",
    method: "POST",
    path: (name) => `/api/datasets/${name}/versions`,
    param: () => ["fuzz-dataset"],
    valid: () => ({
      orders: { "#W1": { status: "pending", items: [{ id: "i1", price: 10.5 }] } },
      users: [{ id: "u1" }],
    }),
    token: apiKey,
    runs: 35,
    // A dataset is walked by the repeated-key scan as well as the depth check: 5,000 levels, and a key written twice.
    examples: () => [
      replaced({ orders: {} }, ["orders"], deep(5000, "object"), "fuzz-dataset"),
      rawBody('{"orders": {"#W1": 1, "#W1": 2}}', "fuzz-dataset"),
    ],
  },
  {
    name: "PUT /api/connections/:name",
    method: "PUT",
    path: (name) => `/api/connections/${name}`,
    param: () => ["fuzz-connection"],
    // A closed loopback port: nothing here calls it (the test route is not fuzzed: it calls the endpoint).
    valid: () => ({
      base_url: "http://127.0.0.1:9/v1",
      model: "fuzz-model",
      api_key: "sk-fuzz",
      headers: { "x-team": "fuzz" },
      timeout_ms: 5000,
      max_concurrency: 2,
    }),
    alternatives: () => [
      {
        base_url: "https://example-resource.openai.azure.com",
        model: "deployment",
        api_version: "2024-10-21",
        structured_output: false,
      },
    ],
    token: apiKey,
    runs: 30,
  },
  {
    name: "PUT /api/suites/:name",
    method: "PUT",
    path: (name) => `/api/suites/${name}`,
    param: () => ["fuzz-suite"],
    valid: (f) => ({
      agent: {
        connection: "fuzz-model",
        instructions: "Find orders.",
        tools: [
          { tool_id: f.orders.id, approval_mode: "never_require" },
          { inline: echoInline, approval_mode: "always_require" },
        ],
      },
      scenarios: [
        {
          id: "search",
          query: "Which orders are late?",
          expect: "orders",
          forbid: ["echo"],
          variants: { orders: "echo" },
        },
        { id: "quiet", query: "Hello", expect: null, initial_state: { orders: { seen: 1 } } },
      ],
      runs_per_scenario: 2,
      judge: { connection: "fuzz-model", threshold: 3 },
    }),
    token: apiKey,
    runs: 35,
  },
  {
    // The suite saved by the entry above names a connection that does not exist: a valid body is
    // refused with 422 model_connection_required, so no run (and no model call) is ever started.
    name: "POST /api/suites/:name/runs",
    method: "POST",
    path: (name) => `/api/suites/${name}/runs`,
    param: () => ["fuzz-suite"],
    valid: () => ({ runs_per_scenario: 2, label: "fuzz" }),
    alternatives: () => [{}, { version: 1 }],
    token: apiKey,
    runs: 20,
  },
  {
    // The suite saved by the PUT entry above; a webhook is created, never delivered to (no run starts).
    name: "POST /api/webhooks",
    method: "POST",
    path: () => "/api/webhooks",
    valid: () => ({
      suite: "fuzz-suite",
      runs_per_scenario: 1,
      label: "fuzz",
      callback_url: "http://127.0.0.1:9/callback",
    }),
    alternatives: () => [
      {
        suite: "fuzz-suite",
        format: "github",
        events: [
          { event: "pull_request", actions: ["opened", "synchronize"] },
          { event: "deployment_status", states: ["success"] },
        ],
      },
    ],
    token: apiKey,
    runs: 30,
  },
  {
    name: "POST /api/policies/:name/check",
    method: "POST",
    path: (name) => `/api/policies/${name}/check`,
    param: (f) => [f.policyName],
    valid: () => ({ manifest }),
    alternatives: () => [
      { manifest: openAiTools, format: "openai" },
      { manifest: toolsList, format: "mcp", version: 1 },
    ],
    token: apiKey,
    runs: 35,
    // Issue 9 item 3 (helper A).
    examples: (f) => [
      replaced({ manifest }, ["manifest", "tools", 0, "parameters"], deep(5000, "object"), f.policyName),
    ],
  },
  {
    name: "POST /api/metrics/tool-permission",
    method: "POST",
    path: () => "/api/metrics/tool-permission",
    valid: () => ({
      allowed_tools: ["get_invoice", "place_invoice_on_hold"],
      denied_tools: ["pay_invoice"],
      threshold: 0.5,
      include_reason: true,
      tools_called: called.tools_called,
    }),
    alternatives: (f) => [
      {
        policy: f.policyName,
        policy_version: 1,
        strict_mode: true,
        tools_called: [{ name: "pay_invoice", input: {} }],
      },
    ],
    token: apiKey,
    runs: 35,
  },
  {
    name: "POST /api/attempts/:id/dispatch",
    method: "POST",
    path: (id) => `/api/attempts/${id}/dispatch`,
    param: attemptIds,
    valid: () => ({ tool: "echo", arguments: validArguments, call_id: "call-1" }),
    alternatives: () => [{ tool: "orders", operation_id: "search_orders", arguments: { query: "x" } }],
    token: attemptToken,
    allowance: { harnessKinds: NAMING_HARNESS_KINDS },
    runs: 45,
    examples: (f) => [
      // Issue 9 item 1 (helper A): a lone surrogate in tool: encodeURIComponent throws building the header, a 500 internal_error.
      rawBody('{"tool":"\\ud800","arguments":{}}', f.attempts[0]?.id ?? ""),
      // Issue 9 item 3 (helper A): an over-deep argument is a harness error, not the agent's tool input error.
      replaced(
        { tool: "echo", arguments: { query: "q", filters: {} } },
        ["arguments", "filters"],
        deep(8000, "object"),
        f.attempts[0]?.id ?? "",
      ),
    ],
  },
  {
    name: "POST /api/attempts/:id/mcp",
    method: "POST",
    path: (id) => `/api/attempts/${id}/mcp`,
    param: attemptIds,
    valid: () => ({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: validArguments, _meta: { "toolproof/call_id": "mcp-1" } },
    }),
    alternatives: () => [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
      },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: "p", method: "ping" },
      [
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
        { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "orders", arguments: { query: "q" } } },
      ],
    ],
    headers: { accept: MCP_ACCEPT },
    token: attemptToken,
    // A refused token is 403 on the MCP route (docs/simulations.md: MCP clients start OAuth on a 401).
    allowance: { mcp: true, harnessKinds: NAMING_HARNESS_KINDS, statusOf: { unauthorized: 403, token_expired: 403 } },
    runs: 45,
    // Not in issue 9 (MCP, helper C): tools/call params the SDK's schema refuses answer -32603 Internal error, not -32602.
    examples: (f) => [
      rawBody(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":{},"arguments":{}}}',
        f.attempts[0]?.id ?? "",
      ),
      rawBody(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":0}}',
        f.attempts[0]?.id ?? "",
      ),
    ],
  },
  {
    name: "POST /api/attempts/:id/complete",
    method: "POST",
    path: (id) => `/api/attempts/${id}/complete`,
    param: attemptIds,
    valid: () => ({
      output: { answer: "3 late orders" },
      transcript: [{ role: "user", content: "find late orders" }],
      metadata: { model: "fuzz" },
    }),
    token: attemptToken,
    runs: 35,
    // Issue 9 item 3 (helper A): 5,000 levels in output (3,000 is enough).
    examples: (f) => [replaced({ output: 1 }, ["output"], deep(5000, "object"), f.attempts[0]?.id ?? "")],
  },
  {
    // A simulation's attempt takes no turns (409 not_external_repetition): what is fuzzed is the body's checks and the token.
    name: "POST /api/attempts/:id/turns",
    method: "POST",
    path: (id) => `/api/attempts/${id}/turns`,
    param: attemptIds,
    valid: () => ({ turn: 1, message: "Which invoice is it?" }),
    token: attemptToken,
    runs: 25,
  },
];

let fixtures: Fixtures;

beforeAll(async () => {
  fixtures = await makeFixtures(ATTEMPTS);
}, 60_000);

afterAll(() => {
  printCounts("fuzz.routes");
  reportSurvey("fuzz.routes");
});

function caseArb(route: RouteSpec, f: Fixtures): fc.Arbitrary<Case> {
  const alternatives = (route.alternatives?.(f) ?? []).map((value) => fc.constant<Doc>(toDoc(value)));
  const params = route.param?.(f) ?? [""];
  return fc.record({
    body: route.bodies ? route.bodies(f) : bodyArb(alternatives),
    contentType: contentTypeArb(route.contentType ?? "application/json"),
    param: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...params) },
      { weight: 1, arbitrary: pathParamArb(params[0] ?? "") },
    ),
    auth: fc.oneof(
      { weight: 20, arbitrary: fc.constant("right" as const) },
      { weight: 1, arbitrary: fc.constantFrom("none" as const, "bare" as const, "basic" as const, "other" as const) },
    ),
  });
}

function authorization(route: RouteSpec, f: Fixtures, c: Case): Record<string, string> {
  const token = route.token(f, c.param);
  switch (c.auth) {
    case "right":
      return { authorization: `Bearer ${token}` };
    case "none":
      return {};
    case "bare":
      return { authorization: token };
    case "basic":
      return { authorization: `Basic ${btoa(`x:${token}`)}` };
    case "other":
      // An API key where a token belongs and a token where a key belongs.
      return { authorization: `Bearer ${token.startsWith("tpa_") ? f.tenant.key : (f.attempts[0]?.token ?? "")}` };
  }
}

function payloadOf(route: RouteSpec, f: Fixtures, body: BodyCase): string | Uint8Array | undefined {
  if (body.kind === "mutated") return docText(mutate(route.valid(f), body.mutations));
  return bodyPayload(body, route.valid(f));
}

describe("fuzz: every POST and PUT route answers a client's input without a 5xx, in the documented error body", () => {
  for (const route of routes) {
    it(
      route.name,
      async () => {
        const f = fixtures;
        await fc.assert(
          fc.asyncProperty(caseArb(route, f), async (c) => {
            const sent: Sent = {
              method: route.method,
              path: route.path(c.param),
              contentType: c.contentType,
              body: payloadOf(route, f, c.body),
            };
            const answer = await send(route.name, sent, { ...route.headers, ...authorization(route, f, c) });
            expectDocumented(route.name, sent, answer, route.allowance, c);
          }),
          fuzzParameters(
            route.runs,
            (route.examples?.(f) ?? []).map((example) => [example] as [Case]),
          ),
        );
      },
      120_000 * FUZZ_SCALE,
    );
  }
});
