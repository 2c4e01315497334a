/**
 * τ-bench's retail environment in a fresh tenant, loaded through the public API in the steps
 * `npm run load:tau-retail` takes (scripts/load-tau-retail.ts, which reads the files with node:fs
 * and so cannot run in workerd): the dataset as version 1 of `retail`, the tool `retail`, and one
 * revision per operation pinned to that version. Then the test split as `npm run import:tau-retail
 * -- --split test` writes it (the same retailSuite), saved as a suite, with connections for the
 * agent and the user model on the shared model server.
 */
import { expect } from "vitest";
import datasetText from "../../../examples/environments/tau-retail/dataset.json?raw";
import calculate from "../../../examples/environments/tau-retail/definitions/calculate.json?raw";
import cancelPendingOrder from "../../../examples/environments/tau-retail/definitions/cancel_pending_order.json?raw";
import exchangeDeliveredOrderItems from "../../../examples/environments/tau-retail/definitions/exchange_delivered_order_items.json?raw";
import findUserIdByEmail from "../../../examples/environments/tau-retail/definitions/find_user_id_by_email.json?raw";
import findUserIdByNameZip from "../../../examples/environments/tau-retail/definitions/find_user_id_by_name_zip.json?raw";
import getOrderDetails from "../../../examples/environments/tau-retail/definitions/get_order_details.json?raw";
import getProductDetails from "../../../examples/environments/tau-retail/definitions/get_product_details.json?raw";
import getUserDetails from "../../../examples/environments/tau-retail/definitions/get_user_details.json?raw";
import listAllProductTypes from "../../../examples/environments/tau-retail/definitions/list_all_product_types.json?raw";
import modifyPendingOrderAddress from "../../../examples/environments/tau-retail/definitions/modify_pending_order_address.json?raw";
import modifyPendingOrderItems from "../../../examples/environments/tau-retail/definitions/modify_pending_order_items.json?raw";
import modifyPendingOrderPayment from "../../../examples/environments/tau-retail/definitions/modify_pending_order_payment.json?raw";
import modifyUserAddress from "../../../examples/environments/tau-retail/definitions/modify_user_address.json?raw";
import returnDeliveredOrderItems from "../../../examples/environments/tau-retail/definitions/return_delivered_order_items.json?raw";
import think from "../../../examples/environments/tau-retail/definitions/think.json?raw";
import transferToHumanAgents from "../../../examples/environments/tau-retail/definitions/transfer_to_human_agents.json?raw";
import testSplit from "../../../examples/environments/tau-retail/reference/test.json?raw";
import toolText from "../../../examples/environments/tau-retail/tool.json?raw";
import { DEFAULT_IMPORT_OPTIONS, type ReferenceSplit, retailSuite } from "../../../scripts/tau-bench/retail-suite.js";
import type { GoldScenario } from "../../support/model-server/gold-agent.js";
import { uniqueModel } from "../../support/model-server/in-tests.js";
import { call, newTenant, type TestTenant } from "../helpers.js";
import { type InvoiceWorld, server } from "../run-helpers.js";

const DEFINITIONS: Record<string, string> = {
  calculate,
  cancel_pending_order: cancelPendingOrder,
  exchange_delivered_order_items: exchangeDeliveredOrderItems,
  find_user_id_by_email: findUserIdByEmail,
  find_user_id_by_name_zip: findUserIdByNameZip,
  get_order_details: getOrderDetails,
  get_product_details: getProductDetails,
  get_user_details: getUserDetails,
  list_all_product_types: listAllProductTypes,
  modify_pending_order_address: modifyPendingOrderAddress,
  modify_pending_order_items: modifyPendingOrderItems,
  modify_pending_order_payment: modifyPendingOrderPayment,
  modify_user_address: modifyUserAddress,
  return_delivered_order_items: returnDeliveredOrderItems,
  think,
  transfer_to_human_agents: transferToHumanAgents,
};

/** The imported test split's suite document, as `npm run import:tau-retail -- --split test` writes it. */
export type RetailSuite = Record<string, unknown> & {
  agent: Record<string, unknown> & { max_iterations: number };
  scenarios: GoldScenario[];
};

/** The run helpers' world (run-helpers.ts): `model` is the agent's, behind the connection `agent`. */
export interface RetailWorld extends InvoiceWorld {
  datasetVersion: number;
  suite: RetailSuite;
  /** The model behind the connection `user-model`. */
  userModel: string;
}

async function ok(response: Promise<Response>, what: string): Promise<Record<string, unknown>> {
  const answered = await response;
  const body = (await answered.json()) as Record<string, unknown>;
  expect(answered.status, `${what}: ${JSON.stringify(body).slice(0, 2000)}`).toBeLessThan(300);
  return body;
}

/**
 * A tenant with the retail environment loaded, the connections the imported suite names (`agent`
 * and `user-model`, models not yet scripted) and the test split imported (not yet saved).
 */
export async function retailWorld(): Promise<RetailWorld> {
  const tenant = await newTenant();
  const key = tenant.key;
  const stored = await ok(call("POST", "/api/datasets/retail/versions", { key, body: datasetText }), "the dataset");
  const datasetVersion = Number(stored.version);
  const tool = await ok(call("POST", "/api/tools", { key, body: toolText }), "the tool");
  const operations = tool.operations as Array<{ operation_id: string; contract_hash: string }>;
  expect(operations.map((op) => op.operation_id).sort()).toEqual(Object.keys(DEFINITIONS).sort());
  for (const { operation_id, contract_hash } of operations) {
    const definition = JSON.parse(DEFINITIONS[operation_id] as string) as Record<string, unknown>;
    await ok(
      call("POST", `/api/tools/${String(tool.id)}/testing`, {
        key,
        body: {
          action: "save",
          operation_id,
          contract_hash,
          definition: { ...definition, dataset: { name: "retail", version: datasetVersion } },
        },
      }),
      `the mock of ${operation_id}`,
    );
  }
  const reference = JSON.parse(testSplit) as ReferenceSplit;
  // SAFETY: retailSuite's document, whose scenarios carry user, end_state.gold_calls and outputs.
  const suite = retailSuite([reference], { ...DEFAULT_IMPORT_OPTIONS, dataset_version: datasetVersion }) as RetailSuite;
  const model = await connection(tenant, DEFAULT_IMPORT_OPTIONS.agent_connection);
  const userModel = await connection(tenant, DEFAULT_IMPORT_OPTIONS.user_model);
  return {
    tenant,
    toolId: String(tool.id),
    model,
    connection: DEFAULT_IMPORT_OPTIONS.agent_connection,
    userModel,
    datasetVersion,
    suite,
  };
}

/** A stored connection `name` to a fresh model of the shared model server; answers the model's name. */
export async function connection(tenant: TestTenant, name: string): Promise<string> {
  const model = uniqueModel(name);
  await ok(
    call("PUT", `/api/connections/${name}`, {
      key: tenant.key,
      // A scripted model answers at once: the connection's bound, not the model, would pace the run.
      body: { base_url: server.openaiBaseUrl, model, api_key: "sk-test", max_retries: 0, max_concurrency: 32 },
    }),
    `the connection ${name}`,
  );
  return model;
}

/** Saves `suite` as `name` in the world's tenant. */
export async function saveSuite(world: RetailWorld, name: string, suite: Record<string, unknown>): Promise<void> {
  await ok(call("PUT", `/api/suites/${name}`, { key: world.tenant.key, body: suite }), `the suite ${name}`);
}
