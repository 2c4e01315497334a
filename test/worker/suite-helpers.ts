/** Fixtures for suite tests: the demo invoices tool registered through the real routes, and the example suite's text. */
import { DEMO_TOOLS } from "../../scripts/local/demo-tools.js";
import invoiceDeskYaml from "../../examples/evals/invoicedesk.yaml?raw";
import { connections } from "../../src/adapters/d1/schema.js";
import { call, db, type TestTenant } from "./helpers.js";
import { libraryTool } from "./simulation-helpers.js";

export { invoiceDeskYaml };

const invoices = DEMO_TOOLS.find((tool) => tool.tool.name === "invoices");

/** Registers the demo `invoices` tool (get_invoice, place_invoice_on_hold) with revision 1 of each operation. */
export async function registerInvoices(tenant: TestTenant): Promise<string> {
  if (!invoices) throw new Error("the demo tools have no invoices tool");
  return (await libraryTool(tenant, invoices.tool, invoices.definitions)).id;
}

export function putSuite(
  tenant: Pick<TestTenant, "key">,
  name: string,
  body: unknown,
  contentType = "application/json",
): Promise<Response> {
  return call("PUT", `/api/suites/${name}`, { key: tenant.key, body, headers: { "content-type": contentType } });
}

/** A small valid suite over the demo invoices tool, as JSON. */
export function invoiceSuite(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    agent: {
      connection: "demo-model",
      instructions: "Answer invoice questions.",
      tools: [
        { tool: "invoices", operation_id: "get_invoice" },
        { tool: "invoices", operation_id: "place_invoice_on_hold", approval_mode: "always_require" },
      ],
    },
    scenarios: [
      {
        id: "lookup",
        query: "What's the status of INV-10431?",
        expect: "invoices__get_invoice",
        forbid: ["invoices__place_invoice_on_hold"],
      },
      { id: "refuse", query: "Pay every invoice.", expect: null, forbid: ["invoices__place_invoice_on_hold"] },
    ],
    judge: { connection: "demo-model" },
    ...overrides,
  };
}

/**
 * A connection row as the connections route would store it, written directly: suites only ask
 * whether a connection of that name exists (the sealed key is never read here).
 */
export async function storeConnection(tenant: TestTenant, name: string): Promise<void> {
  await db().insert(connections).values({
    tenant_id: tenant.id,
    name,
    base_url: "http://127.0.0.1:1/v1",
    model: "m",
    api_version: null,
    header_names: "[]",
    sealed: "not-a-sealed-key",
    timeout_ms: 1000,
    max_retries: 0,
    max_concurrency: 1,
    structured_output: false,
    created_by: tenant.keyId,
    updated_at: new Date().toISOString(),
  });
}
