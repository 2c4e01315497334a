/**
 * The fuzz suite's fixtures: an order-search tool with a realistic input schema whose mock echoes
 * its arguments back (so whatever the agent sends either comes back unchanged or is refused as
 * its own mistake), and the tenant, tools, policy and attempts every fuzzed route needs.
 */
import type { JsonObject } from "../../src/core/json.js";
import { call, newTenant, type TestTenant } from "./helpers.js";
import { createSimulation, libraryTool, type CreatedAttempt } from "./simulation-helpers.js";
import policy from "../../examples/policy/policy.json" with { type: "json" };

export const orderSearchInput: JsonObject = {
  type: "object",
  properties: {
    query: {
      type: "string",
      minLength: 1,
      maxLength: 500,
      description: "Free text, for example: late deliveries in March",
    },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    max_total: { type: "number", minimum: 0 },
    status: { type: "string", enum: ["open", "shipped", "cancelled"] },
    customer_id: { type: "string", pattern: "^C-[0-9]{1,8}$" },
    since: { type: "string", format: "date" },
    tags: { type: "array", items: { type: "string", maxLength: 50 }, maxItems: 20 },
    filters: { type: "object", description: "Free-form field filters, passed through to the search backend" },
    options: {
      type: "object",
      properties: { include_archived: { type: "boolean" }, sort: { type: "string", enum: ["newest", "oldest"] } },
      additionalProperties: false,
    },
  },
  required: ["query"],
  additionalProperties: false,
};

/** The mock answers `{"echo": <the arguments>}`, and its output schema holds exactly what the input schema lets in. */
export const orderSearchOutput: JsonObject = {
  type: "object",
  properties: { echo: orderSearchInput },
  required: ["echo"],
  additionalProperties: false,
};

export const echoDefinition = {
  schema_version: 1,
  default_variant: "echo",
  variants: { echo: { result: { echo: { $input: "" } } } },
  examples: [
    { variant: "echo", input: { query: "late orders" }, expected: { echo: { query: "late orders" } } },
    {
      variant: "echo",
      input: { query: "open", limit: 5, filters: { region: ["EU"], total: { gt: 10 } }, options: { sort: "newest" } },
      expected: {
        echo: { query: "open", limit: 5, filters: { region: ["EU"], total: { gt: 10 } }, options: { sort: "newest" } },
      },
    },
  ],
};

export const echoDescription = "Search orders by free text and filters; this mock answers the request it received.";

/** The inline (agent-local) form, as POST /api/simulations and /api/tools/testing take it. */
export const echoInline = {
  name: "echo",
  description: echoDescription,
  input_schema: orderSearchInput,
  output_schema: orderSearchOutput,
  testing: echoDefinition,
};

/** The library form: one tool, one operation. */
export const orderLibraryTool = {
  name: "orders",
  description: "The order desk's search API.",
  kind: "http",
  operations: [
    {
      operation_id: "search_orders",
      description: echoDescription,
      input_schema: orderSearchInput,
      output_schema: orderSearchOutput,
    },
  ],
};

export const validArguments = {
  query: "late orders",
  limit: 10,
  status: "open",
  tags: ["priority"],
  filters: { region: "EU" },
  options: { sort: "newest" },
};

export interface Fixtures {
  tenant: TestTenant;
  /** A library tool with a saved echo revision: its contract must not change (testing and simulation bodies use its hash). */
  orders: { id: string; contract_hash: string };
  /** A library tool PUT may change at will. */
  mutable: { id: string };
  /** Existing policy, for check and the metric. */
  policyName: string;
  /** Attempts pinning the inline echo tool and the library order tool. */
  attempts: CreatedAttempt[];
}

export async function makeFixtures(attemptCount: number): Promise<Fixtures> {
  const tenant = await newTenant();
  const orders = await libraryTool(tenant, orderLibraryTool, { search_orders: echoDefinition });
  const contractHash = orders.operations[0]?.contract_hash;
  if (!contractHash) throw new Error("the order tool has no operation");
  const mutable = await call("POST", "/api/tools", {
    key: tenant.key,
    body: { ...orderLibraryTool, name: "mutable_orders" },
  });
  if (mutable.status !== 201)
    throw new Error(`could not register the mutable tool: ${mutable.status} ${await mutable.text()}`);
  // SAFETY: the documented 201 Tool shape.
  const mutableTool = (await mutable.json()) as { id: string };
  const saved = await call("PUT", "/api/policies/fuzz-policy", { key: tenant.key, body: policy });
  if (saved.status !== 201) throw new Error(`could not save the policy: ${saved.status} ${await saved.text()}`);
  const simulation = await createSimulation(tenant, {
    tools: [{ inline: echoInline }, { tool_id: orders.id }],
    attempts: attemptCount,
    lease_seconds: 3600,
  });
  return {
    tenant,
    orders: { id: orders.id, contract_hash: contractHash },
    mutable: { id: mutableTool.id },
    policyName: "fuzz-policy",
    attempts: simulation.attempts,
  };
}
