/**
 * τ-bench's retail environment as two dispatch workloads (issue 21 item 6), on attempts whose tool
 * `retail` starts from the stored retail dataset, loaded through the public API exactly as
 * `npm run load:tau-retail` loads it (examples/environments/tau-retail/):
 *   retail read   get_order_details of one pending order per attempt;
 *   retail write  modify_pending_order_address of that order. A pending order stays pending when
 *                 its address changes, so the write is valid on every call, however often an
 *                 attempt is called; the requests alternate between two addresses, so each call
 *                 changes the order it wrote the call before (a write, not a repeat of equal data).
 * Each attempt pins the whole tool (all 16 operations), as an agent's attempt would. The evidence
 * check fails the run on any answer that is not the order (τ-bench's `Error: ...` strings included).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { field } from "../../local/narrow.js";
import { loadTauRetail } from "../../load-tau-retail.js";
import {
  dispatchEach,
  EvidenceCheck,
  type ResultCheck,
  setUpAttempts,
  type Toolproof,
  type Workload,
} from "./dispatch-workloads.js";

export type RetailWorkloadName = "retail read" | "retail write";

const DATASET = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../examples/environments/tau-retail/dataset.json",
);

/** The two addresses the writes alternate between, τ-bench's argument order. */
const ADDRESSES = [
  { address1: "1 Bench Street", address2: "Suite 1", city: "Austin", state: "TX", country: "USA", zip: "78701" },
  { address1: "2 Bench Street", address2: "", city: "Denver", state: "CO", country: "USA", zip: "80202" },
] as const;

/** The dataset's pending orders, in its order. */
async function pendingOrders(): Promise<string[]> {
  const data: unknown = JSON.parse(await readFile(DATASET, "utf8"));
  const orders = field(data, "orders");
  const pending = Object.entries(orders && typeof orders === "object" ? orders : {})
    .filter(([, order]) => field(order, "status") === "pending")
    .map(([id]) => id);
  if (pending.length === 0) throw new Error(`${DATASET} holds no pending order`);
  return pending;
}

/** An order as get_order_details and modify_pending_order_address answer it, still pending. */
export function pendingOrder(result: unknown): string | null {
  if (typeof result === "string") return `answered ${JSON.stringify(result.slice(0, 200))}`;
  if (typeof field(result, "order_id") !== "string") return "answered no order";
  return field(result, "status") === "pending" ? null : `order status ${String(field(result, "status"))}`;
}

/** A dispatch request's body on the retail tool. */
interface RetailCall {
  tool: string;
  operation_id: string;
  arguments: Record<string, string>;
}

/** The retail environment loaded into a toolproof: its tool, and the calls the benchmarks make on it. */
export interface RetailEnvironment {
  toolId: string;
  /** get_order_details of the index-th pending order (round-robin over the dataset's). */
  read(index: number): RetailCall;
  /** modify_pending_order_address of that order, to the `address`-th of the two addresses. */
  write(index: number, address: 0 | 1): RetailCall;
}

/** Loads the environment (dataset version, tool, one revision per operation) as `npm run load:tau-retail` does. */
export async function loadRetailEnvironment(t: Toolproof): Promise<RetailEnvironment> {
  const loaded = await loadTauRetail(t.url, t.key);
  const orders = await pendingOrders();
  const orderOf = (index: number): string => orders[index % orders.length] as string;
  return {
    toolId: loaded.tool.id,
    read: (index) => ({
      tool: loaded.tool.name,
      operation_id: "get_order_details",
      arguments: { order_id: orderOf(index) },
    }),
    write: (index, address) => ({
      tool: loaded.tool.name,
      operation_id: "modify_pending_order_address",
      arguments: { order_id: orderOf(index), ...ADDRESSES[address] },
    }),
  };
}

/** What a retail write answers: the order, still pending, at one of the two addresses. */
export const writtenOrder: ResultCheck = (result) => {
  const wrong = pendingOrder(result);
  if (wrong !== null) return wrong;
  const zip = field(field(result, "address"), "zip");
  return ADDRESSES.some((address) => address.zip === zip) ? null : `address zip ${String(zip)} was not written`;
};

/** Loads the environment, sets up `count` attempts for each workload and builds their requests. */
export async function setUpRetailWorkloads(
  t: Toolproof,
  count: number,
  connections: number,
): Promise<Workload<RetailWorkloadName>[]> {
  const retail = await loadRetailEnvironment(t);
  const readers = await setUpAttempts(t, retail.toolId, count);
  const writers = await setUpAttempts(t, retail.toolId, count);
  return [
    {
      name: "retail read",
      attempts: readers,
      requests: dispatchEach(t, readers, (_attempt, index) => retail.read(index)),
      check: new EvidenceCheck(t, readers, pendingOrder, connections),
    },
    {
      name: "retail write",
      // Every attempt once with the first address, then every attempt once with the second: wrk
      // goes round-robin, so each attempt's calls alternate between them.
      attempts: writers,
      requests: ([0, 1] as const).flatMap((address) =>
        dispatchEach(t, writers, (_attempt, index) => retail.write(index, address)),
      ),
      check: new EvidenceCheck(t, writers, writtenOrder, connections),
    },
  ];
}
