/**
 * Benchmark of copy-on-write dataset state (docs/simulations.md, "Datasets"). Prints numbers only;
 * it is never a test. Run with `npm run bench:datasets` (optionally `-- --calls 2000 --attempts 1000
 * --mb 2`). Core-level: the same functions the attempt object runs, without workerd.
 *
 * What is measured, on a synthetic dataset of about `--mb` MB (orders, users, products keyed by id,
 * shaped like τ-bench's retail data), and on examples/environments/tau-retail/dataset.json:
 *   - one writing call (cancel an order, note it on its user) three ways: copy-on-write
 *     (the engine over the shared frozen base, then the record diff and the changed records' JSON,
 *     as the attempt object stores them); the whole state's JSON written per call (what a tool
 *     without a dataset stores); and a deep copy of the state per call;
 *   - weighing one call's record change against the attempt's list of changed records (what
 *     the attempt's D1 row holds of the tool, attempts/tool-states.ts), after 100 to 20,000 changes;
 *   - the state bytes written to start `--attempts` attempts: copy-on-write stores nothing until a
 *     call writes (the attempt's setup carries the pin, not the data), against one full copy each;
 *     and after each attempt's first writing call, its changed records against a full state each.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { executeCall, parseDefinition } from "../../src/core/contract/index.js";
import type { MockDefinition } from "../../src/core/contract/types.js";
import { copyJson } from "../../src/core/contract/values.js";
import {
  changedRecords,
  deepFreeze,
  diffRecords,
  materialize,
  Overlay,
  WrittenRecords,
} from "../../src/core/datasets/records.js";
import { ListedChangesSize } from "../../src/core/datasets/listed-changes.js";
import type { JsonObject } from "../../src/core/json.js";
import type { SchemaValidator } from "../../src/core/ports.js";
import { positiveFlag } from "./flags.js";

const CALLS = positiveFlag("calls", 5_000, true);
/** The copying ways cost tens of milliseconds a call on a 2 MB state: fewer calls measure them as well. */
const BASELINE_CALLS = positiveFlag("baseline-calls", 40, true);
const ATTEMPTS = positiveFlag("attempts", 1_000, true);
/** Calls weighed per round at each list size. */
const WEIGHINGS = 2_000;
const MEGABYTES = positiveFlag("mb", 2);

const acceptAll: SchemaValidator = { checkSchema: () => [], validate: () => [] };
const byId = { type: "object", required: ["order_id"], properties: { order_id: { type: "string" } } };

/** Cancel an order and note it on its user: two records written per call (an order, a user). */
function cancelDefinition(): MockDefinition {
  const parsed = parseDefinition({
    schema_version: 2,
    default_variant: "ok",
    variants: {
      ok: {
        result: { $expr: "state.orders[input.order_id].status" },
        set_state: [
          { set: ["orders", { $input: "order_id" }, "status"], value: "cancelled" },
          {
            set: ["users", { $expr: "state.orders[input.order_id].user_id" }, "last_cancelled"],
            value: { $input: "order_id" },
          },
        ],
      },
    },
    examples: [
      {
        variant: "ok",
        input: { order_id: "#W1" },
        state: { orders: { "#W1": { status: "pending", user_id: "u" } }, users: { u: {} } },
        expected: "pending",
      },
    ],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

/** A retail-shaped dataset of about `megabytes` MB: orders with items, users with addresses, products. */
function syntheticDataset(megabytes: number): JsonObject {
  const orders: JsonObject = {};
  const users: JsonObject = {};
  const products: JsonObject = {};
  for (let p = 0; p < 50; p++)
    products[`p${p}`] = { name: `product ${p}`, variants: { [`v${p}`]: { price: 10 + p, available: true } } };
  let i = 0;
  while (JSON.stringify({ orders, users, products }).length < megabytes * 1024 * 1024) {
    for (let k = 0; k < 100; k++, i++) {
      const user = `user_${i % 500}`;
      users[user] ??= {
        name: { first_name: "Ann", last_name: `Lee${i}` },
        address: { address1: `${i} Main St`, city: "Springfield", zip: "12345" },
        email: `ann${i}@example.com`,
        balance: 100,
        orders: [],
      };
      orders[`#W${i}`] = {
        order_id: `#W${i}`,
        user_id: user,
        status: "pending",
        total: 10 + (i % 90),
        items: [
          { item_id: `i${i}a`, product_id: `p${i % 50}`, price: 10, options: { color: "red", size: "M" } },
          { item_id: `i${i}b`, product_id: `p${(i + 1) % 50}`, price: 20, options: { color: "blue", size: "L" } },
        ],
        payment_history: [{ transaction_type: "payment", amount: 30, payment_method_id: `card_${i}` }],
      };
    }
  }
  return { orders, users, products };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** µs per call of `step` over `calls` distinct orders, the median of three rounds. */
function perCall(orderIds: string[], calls: number, step: (orderId: string) => void): number {
  const rounds: number[] = [];
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) step(orderIds[i % orderIds.length] as string);
    rounds.push(((performance.now() - start) * 1000) / calls);
  }
  return median(rounds);
}

function bench(label: string, data: JsonObject): void {
  const definition = cancelDefinition();
  const datasetBytes = Buffer.byteLength(JSON.stringify(data));
  const orderIds = Object.keys(data.orders as JsonObject);
  const call = (state: JsonObject, orderId: string, written?: WrittenRecords) => {
    const outcome = executeCall({
      input_schema: byId,
      output_schema: true,
      definition,
      args: { order_id: orderId },
      state,
      validator: acceptAll,
      ...(written ? { written } : {}),
    });
    if (outcome.kind !== "result") throw new Error(JSON.stringify(outcome));
    return outcome.state;
  };

  // Copy-on-write: one frozen base; each call diffs at record level and serializes the changed records.
  const base = deepFreeze(copyJson(data));
  let view = materialize(base, new Overlay());
  let cowBytes = 0;
  const cow = perCall(orderIds, CALLS, (orderId) => {
    const written = new WrittenRecords();
    const after = call(view, orderId, written);
    const changes = diffRecords(view, after, written);
    for (const change of changes) cowBytes += JSON.stringify(change.value ?? null).length;
    changedRecords(view, changes);
    view = after;
  });

  // The whole state written per call, as a tool without a dataset stores it.
  let whole = copyJson(data);
  const full = perCall(orderIds, BASELINE_CALLS, (orderId) => {
    whole = call(whole, orderId);
    JSON.stringify(whole);
  });

  // A deep copy of the state per call.
  let copied = copyJson(data);
  const deep = perCall(orderIds, BASELINE_CALLS, (orderId) => {
    copied = call(copyJson(copied), orderId);
  });

  // Starting attempts: the setup carries the pin, not the data.
  const pin = { name: "retail", version: 1, content_hash: "0".repeat(64), bytes: datasetBytes };
  const pinBytes = JSON.stringify(pin).length;
  let firstWriteBytes = 0;
  for (let a = 0; a < ATTEMPTS; a++) {
    const fresh = materialize(base, new Overlay());
    const after = call(fresh, orderIds[a % orderIds.length] as string);
    for (const change of diffRecords(fresh, after)) firstWriteBytes += JSON.stringify(change.value ?? null).length;
  }

  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  console.log(
    `\n${label}: ${mb(datasetBytes)} (${orderIds.length} orders); writing calls per round: ${CALLS} copy-on-write, ${BASELINE_CALLS} for each copying way`,
  );
  console.log(`  copy-on-write call (engine + record diff + changed records' JSON): ${cow.toFixed(1)} µs/call`);
  console.log(`  whole state's JSON per call:                                      ${full.toFixed(1)} µs/call`);
  console.log(`  deep copy of the state per call:                                  ${deep.toFixed(1)} µs/call`);
  console.log(
    `  bytes written per writing call: copy-on-write ${Math.round(cowBytes / (3 * CALLS))}, whole state ${datasetBytes}`,
  );
  console.log(
    `  ${ATTEMPTS} attempts started: copy-on-write ${0} state bytes (setup pin ${pinBytes} bytes each, ${ATTEMPTS * pinBytes} in all), full copies ${mb(ATTEMPTS * datasetBytes)}`,
  );
  console.log(
    `  after each attempt's first writing call: copy-on-write ${firstWriteBytes} bytes in all, full copies ${mb(ATTEMPTS * datasetBytes)}`,
  );
}

/** Weighing a call's changes costs those changes, not the records changed before (listed-changes.ts). */
function weighing(): void {
  console.log("\nweighing one call's record change against the attempt's list of changed records:");
  const change = [{ collection: "orders", record: "#W1", value: { status: "pending" } }];
  for (const changed of [100, 1_000, 20_000]) {
    const size = new ListedChangesSize(
      Array.from({ length: changed }, (_, i) => ({ collection: "orders", record: `#W${i}`, value: { n: i } })),
    );
    const us = perCall(["#W1"], WEIGHINGS, () => {
      size.jsonWith(change);
    });
    console.log(`  after ${changed} changed records: ${us.toFixed(1)} µs per call`);
  }
}

bench("synthetic retail-shaped dataset", syntheticDataset(MEGABYTES));
weighing();
try {
  const retail = JSON.parse(
    readFileSync(new URL("../../examples/environments/tau-retail/dataset.json", import.meta.url), "utf8"),
  ) as JsonObject;
  bench("τ-bench retail (examples/environments/tau-retail/dataset.json)", retail);
} catch (error) {
  console.log(`\nτ-bench retail dataset not measured: ${error instanceof Error ? error.message : String(error)}`);
}
