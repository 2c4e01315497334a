/**
 * The committed τ-bench retail data (examples/environments/tau-retail/, computed by
 * scripts/tau-bench/reference.py from τ-bench's own Python) holds together on its own: the counts
 * τ-bench's splits have, every call names one of the 16 operations with arguments its parameter
 * schema admits and an answer its output schema admits, every read answers the record as the
 * recorded changes left it, and every final state hashes, by the README's rule, to the hash the
 * script computed in Python. No τ-bench checkout is needed.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { canonicalJson, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from "../../../src/core/json.js";

const DIR = path.resolve(import.meta.dirname, "../../../examples/environments/tau-retail");
const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(DIR, file), "utf8")) as T;

const COLLECTIONS = ["orders", "products", "users"] as const;
type Collection = (typeof COLLECTIONS)[number];
type Dataset = Record<Collection, Record<string, JsonObject>>;

interface PatchOp {
  op: "add" | "remove" | "replace";
  path: string;
  value?: JsonValue;
}
interface Call {
  name: string;
  arguments: JsonObject;
  output: { json: JsonValue } | { text: string };
  changes?: PatchOp[];
  python_message?: true;
}
interface Sequence {
  calls: Call[];
  final_state: { diff: PatchOp[]; sha256: string; taubench_hash: string };
}
interface ReferenceFile {
  upstream_commit: string;
  dataset_sha256: string;
  split: string;
  tasks: Sequence[];
}
interface Operation {
  name: string;
  description: string;
  input_schema: JsonObject;
  output_schema: JsonObject;
}

const PINNED_COMMIT = "59a200c6d575d595120f1cb70fea53cef0632f6b";
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

const dataset = readJson<Dataset>("dataset.json");
const operations = readJson<Operation[]>("operations.json");
const upstream = readJson<{ commit: string; dataset_sha256: string; files: Record<string, string> }>("upstream.json");
const splits = Object.fromEntries(
  ["test", "train", "dev", "probes"].map((split) => [split, readJson<ReferenceFile>(`reference/${split}.json`)]),
) as Record<"test" | "train" | "dev" | "probes", ReferenceFile>;

// --- the README's hash rule, written from its text -----------------------------------------

/** Object keys sorted by UTF-16 code units, no whitespace, scalars as JSON.stringify writes them. */
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

type RecordHashes = Record<Collection, Record<string, string>>;
const SORTED_IDS = Object.fromEntries(COLLECTIONS.map((c) => [c, Object.keys(dataset[c]).sort()])) as Record<
  Collection,
  string[]
>;

function baseRecordHashes(): RecordHashes {
  const out = { orders: {}, products: {}, users: {} } as RecordHashes;
  for (const c of COLLECTIONS)
    for (const [id, record] of Object.entries(dataset[c])) out[c][id] = sha256(canonical(record));
  return out;
}

/**
 * The hash of a state: the base's record hashes with the changed records' hashes put in. The
 * canonical JSON of {collection: {id: hash}} is written out directly (collections and ids in
 * sorted order, every value a string), since it is rebuilt for each of ~900 sequences.
 */
function stateHash(base: RecordHashes, changed: Map<string, JsonObject>): string {
  const replaced = new Map<string, string>();
  for (const [key, record] of changed) replaced.set(key, sha256(canonical(record)));
  const collections = [...COLLECTIONS].sort().map((c) => {
    const entries = SORTED_IDS[c].map(
      (id) => `${JSON.stringify(id)}:${JSON.stringify(replaced.get(recordKey(c, id)) ?? base[c][id])}`,
    );
    return `${JSON.stringify(c)}:{${entries.join(",")}}`;
  });
  return sha256(`{${collections.join(",")}}`);
}

// --- JSON Patch over a copy-on-write view of the dataset -----------------------------------

const decode = (token: string): string => token.replace(/~1/g, "/").replace(/~0/g, "~");
const recordKey = (c: string, id: string): string => `${c}\u0000${id}`;
function splitKey(key: string): [Collection, string] {
  const [c, id] = key.split("\u0000") as [Collection, string];
  return [c, id];
}

/** The records one sequence has written, each cloned from the base on its first write. */
class Overlay {
  readonly changed = new Map<string, JsonObject>();

  record(c: Collection, id: string): JsonObject | undefined {
    return this.changed.get(recordKey(c, id)) ?? dataset[c][id];
  }

  apply(op: PatchOp): void {
    const [c, id, ...rest] = op.path.split("/").slice(1).map(decode);
    if (!COLLECTIONS.includes(c as Collection) || id === undefined)
      throw new Error(`a change outside a record: ${op.path}`);
    const key = recordKey(c as Collection, id);
    if (rest.length === 0) {
      if (op.op === "remove") throw new Error(`a record removed: ${op.path}`);
      this.changed.set(key, structuredClone(op.value) as JsonObject);
      return;
    }
    let record = this.changed.get(key);
    if (record === undefined) {
      const base = dataset[c as Collection][id];
      if (base === undefined) throw new Error(`a change to a record that does not exist: ${op.path}`);
      record = structuredClone(base);
      this.changed.set(key, record);
    }
    let parent: JsonValue = record;
    for (const token of rest.slice(0, -1)) {
      parent = (Array.isArray(parent) ? parent[Number(token)] : (parent as JsonObject)[token]) as JsonValue;
      if (parent === undefined || parent === null || typeof parent !== "object")
        throw new Error(`no such path: ${op.path}`);
    }
    const last = rest[rest.length - 1] as string;
    if (Array.isArray(parent)) {
      const index = Number(last);
      if (!Number.isInteger(index) || index < 0 || index > parent.length)
        throw new Error(`bad array index: ${op.path}`);
      if (op.op === "add") parent.splice(index, 0, structuredClone(op.value) as JsonValue);
      else if (op.op === "remove") parent.splice(index, 1);
      else parent[index] = structuredClone(op.value) as JsonValue;
      return;
    }
    const object = parent as JsonObject;
    if (op.op === "remove") {
      if (!(last in object)) throw new Error(`removing a missing key: ${op.path}`);
      delete object[last];
    } else {
      if (op.op === "replace" && !(last in object)) throw new Error(`replacing a missing key: ${op.path}`);
      object[last] = structuredClone(op.value) as JsonValue;
    }
  }
}

const answerOf = (call: Call): JsonValue => ("json" in call.output ? call.output.json : call.output.text);

/** The record a read or a write answers with, when its answer is a record of the state. */
function answeredRecord(call: Call, overlay: Overlay): JsonObject | undefined {
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
  const baseHashes = baseRecordHashes();
  const validator = createRuntimeValidator();
  const byName = new Map(operations.map((o) => [o.name, o]));

  it("comes from the pinned upstream commit and holds τ-bench's 1,000 orders, 50 products and 500 users", () => {
    expect(upstream.commit).toBe(PINNED_COMMIT);
    for (const file of Object.values(splits)) expect(file.upstream_commit).toBe(PINNED_COMMIT);
    expect(Object.keys(dataset)).toEqual([...COLLECTIONS]);
    expect(COLLECTIONS.map((c) => Object.keys(dataset[c]).length)).toEqual([1000, 50, 500]);
    for (const [id, order] of Object.entries(dataset.orders)) expect(order.order_id).toBe(id);
    for (const [id, product] of Object.entries(dataset.products)) expect(product.product_id).toBe(id);
    expect(readFileSync(path.join(DIR, "LICENSE"), "utf8")).toContain("Copyright (c) 2024 Sierra");
  });

  it("hashes the dataset by the documented rule to the hash the Python script computed", () => {
    const hash = stateHash(baseHashes, new Map());
    expect(hash).toBe(sha256(canonical(baseHashes as unknown as JsonObject)));
    expect(hash).toBe(upstream.dataset_sha256);
    for (const file of Object.values(splits)) expect(file.dataset_sha256).toBe(hash);
    // The rule is the project's canonical JSON: the test's own copy agrees with it.
    const someOrder = Object.values(dataset.orders)[0] as JsonObject;
    expect(canonical(someOrder)).toBe(canonicalJson(someOrder));
  });

  it("declares the 16 operations with schemas the validator accepts", () => {
    expect(operations.map((o) => o.name)).toEqual(OPERATION_NAMES);
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
        const overlay = new Overlay();
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
        const fromDiff = new Overlay();
        for (const op of task.final_state.diff) fromDiff.apply(op);
        for (const key of new Set([...overlay.changed.keys(), ...fromDiff.changed.keys()])) {
          const [c, id] = splitKey(key);
          if (!jsonEqual(overlay.record(c, id), fromDiff.record(c, id)))
            problems.push(`${split} #${t}: the final diff and the calls' changes disagree on ${c}/${id}`);
        }
        if (stateHash(baseHashes, fromDiff.changed) !== task.final_state.sha256)
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
