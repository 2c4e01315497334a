/**
 * The committed τ-bench retail data (examples/environments/tau-retail/, computed by
 * scripts/tau-bench/reference.py from τ-bench's own Python) holds together on its own: the counts
 * τ-bench's splits have, every call names one of the 16 operations with arguments its parameter
 * schema admits and an answer its output schema admits, every read answers the record as the
 * recorded changes left it, and every final state hashes, by the README's rule, to the hash the
 * script computed in Python. No τ-bench checkout is needed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { canonicalJson, jsonEqual, type JsonObject } from "../../../src/core/json.js";
import {
  answerOf,
  COLLECTIONS,
  canonical,
  Overlay,
  operationNames,
  type ReferenceCall,
  type ReferenceFile,
  readDataset,
  readOperations,
  readReferences,
  readUpstream,
  StateHasher,
  sha256,
  splitKey,
  TAU_RETAIL_DIR,
} from "../../support/tau-retail.js";

const PINNED_COMMIT = "59a200c6d575d595120f1cb70fea53cef0632f6b";
// The one literal list of the operations: the other tests take the names from tool.json
// (operationNames), so a changed tool.json or operations.json fails here.
const OPERATION_NAMES = [
  "calculate",
  "cancel_pending_order",
  "exchange_delivered_order_items",
  "find_user_id_by_email",
  "find_user_id_by_name_zip",
  "get_order_details",
  "get_product_details",
  "get_user_details",
  "list_all_product_types",
  "modify_pending_order_address",
  "modify_pending_order_items",
  "modify_pending_order_payment",
  "modify_user_address",
  "return_delivered_order_items",
  "think",
  "transfer_to_human_agents",
];

const dataset = readDataset();
const operations = readOperations();
const upstream = readUpstream();
const splits = readReferences();

/** The record a read or a write answers with, when its answer is a record of the state. */
function answeredRecord(call: ReferenceCall, overlay: Overlay): JsonObject | undefined {
  const args = call.arguments;
  switch (call.name) {
    case "get_order_details":
    case "cancel_pending_order":
    case "exchange_delivered_order_items":
    case "modify_pending_order_address":
    case "modify_pending_order_items":
    case "modify_pending_order_payment":
    case "return_delivered_order_items":
      return overlay.record("orders", args.order_id as string);
    case "get_user_details":
    case "modify_user_address":
      return overlay.record("users", args.user_id as string);
    case "get_product_details":
      return overlay.record("products", args.product_id as string);
    default:
      return undefined;
  }
}

describe("τ-bench retail data (examples/environments/tau-retail)", () => {
  const hasher = new StateHasher(dataset);
  const validator = createRuntimeValidator();
  const byName = new Map(operations.map((o) => [o.name, o]));

  it("comes from the pinned upstream commit and holds τ-bench's 1,000 orders, 50 products and 500 users", () => {
    expect(upstream.commit).toBe(PINNED_COMMIT);
    for (const file of Object.values(splits)) expect(file.upstream_commit).toBe(PINNED_COMMIT);
    expect(Object.keys(dataset)).toEqual([...COLLECTIONS]);
    expect(COLLECTIONS.map((c) => Object.keys(dataset[c]).length)).toEqual([1000, 50, 500]);
    for (const [id, order] of Object.entries(dataset.orders)) expect(order.order_id).toBe(id);
    for (const [id, product] of Object.entries(dataset.products)) expect(product.product_id).toBe(id);
    expect(readFileSync(path.join(TAU_RETAIL_DIR, "LICENSE"), "utf8")).toContain("Copyright (c) 2024 Sierra");
  });

  it("hashes the dataset by the documented rule to the hash the Python script computed", () => {
    const hash = hasher.hash(new Map());
    expect(hash).toBe(sha256(canonical(hasher.base as unknown as JsonObject)));
    expect(hash).toBe(upstream.dataset_sha256);
    for (const file of Object.values(splits)) expect(file.dataset_sha256).toBe(hash);
    // The rule is the project's canonical JSON: the test's own copy agrees with it.
    const someOrder = Object.values(dataset.orders)[0] as JsonObject;
    expect(canonical(someOrder)).toBe(canonicalJson(someOrder));
  });

  it("declares the 16 operations with schemas the validator accepts", () => {
    expect(operations.map((o) => o.name)).toEqual(OPERATION_NAMES);
    expect(operationNames()).toEqual(OPERATION_NAMES);
    for (const operation of operations) {
      expect(operation.description.length).toBeGreaterThan(0);
      expect(validator.checkSchema(operation.input_schema)).toEqual([]);
      expect(validator.checkSchema(operation.output_schema)).toEqual([]);
      expect(operation.input_schema.type).toBe("object");
    }
  });

  it("has τ-bench's 635 tasks and 1,375 gold calls, and a few hundred probes", () => {
    const count = (file: ReferenceFile): [number, number] => [
      file.tasks.length,
      file.tasks.reduce((n, t) => n + t.calls.length, 0),
    ];
    expect(count(splits.test)).toEqual([115, 582]);
    expect(count(splits.train)).toEqual([500, 768]);
    expect(count(splits.dev)).toEqual([20, 25]);
    expect(splits.probes.tasks.length).toBeGreaterThanOrEqual(200);
    const probeCalls = count(splits.probes)[1];
    expect(probeCalls).toBeGreaterThanOrEqual(1000);
  });

  for (const split of ["test", "train", "dev", "probes"] as const) {
    it(`${split}: every call is valid for its operation, and its answer and changes agree with the state it reaches`, () => {
      const problems: string[] = [];
      splits[split].tasks.forEach((task, t) => {
        const overlay = new Overlay(dataset);
        task.calls.forEach((call, i) => {
          const where = `${split} #${t} call ${i} (${call.name})`;
          const operation = byName.get(call.name);
          if (operation === undefined) {
            problems.push(`${where}: not one of the 16 operations`);
            return;
          }
          for (const p of validator.validate(operation.input_schema, call.arguments))
            problems.push(`${where}: arguments ${p.path} ${p.message}`);
          for (const p of validator.validate(operation.output_schema, answerOf(call)))
            problems.push(`${where}: answer ${p.path} ${p.message}`);
          if ("text" in call.output && call.output.text.startsWith("Error: ") && call.changes !== undefined)
            problems.push(`${where}: a refusal that changed the state`);
          for (const op of call.changes ?? []) overlay.apply(op);
          const record = answeredRecord(call, overlay);
          if ("json" in call.output && record !== undefined && !jsonEqual(call.output.json, record)) {
            problems.push(`${where}: the answer is not the record as the changes left it`);
          }
        });
        const fromDiff = new Overlay(dataset);
        for (const op of task.final_state.diff) fromDiff.apply(op);
        for (const key of new Set([...overlay.changed.keys(), ...fromDiff.changed.keys()])) {
          const [c, id] = splitKey(key);
          if (!jsonEqual(overlay.record(c, id), fromDiff.record(c, id)))
            problems.push(`${split} #${t}: the final diff and the calls' changes disagree on ${c}/${id}`);
        }
        if (hasher.hash(fromDiff.changed) !== task.final_state.sha256)
          problems.push(`${split} #${t}: the final state's hash differs`);
      });
      expect(problems).toEqual([]);
    });
  }

  it("marks exactly the answers worded by CPython's exceptions, which only probes reach", () => {
    const flagged = Object.values(splits).flatMap((file) =>
      file.tasks.flatMap((t) => t.calls.filter((c) => c.python_message === true)),
    );
    for (const file of [splits.test, splits.train, splits.dev])
      expect(file.tasks.flatMap((t) => t.calls).filter((c) => c.python_message)).toEqual([]);
    expect(flagged.length).toBeGreaterThan(0);
    expect(new Set(flagged.map((c) => c.name))).toEqual(
      new Set(["calculate", "get_order_details", "list_all_product_types"]),
    );
  });
});
