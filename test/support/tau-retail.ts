/**
 * τ-bench retail's committed files (examples/environments/tau-retail/), read the one way the Node
 * tests read them: the folder, typed readers of its JSON files, the shapes those files have, the
 * operation names as tool.json declares them, the folder README's final-state hash rule, and JSON
 * Patch over a copy-on-write view of the dataset.
 *
 * Node only (node:fs, node:crypto): the workerd tests reach the same files through ?raw imports in
 * test/worker/runs/tau-retail-world.ts. The types describe the files as
 * scripts/tau-bench/reference.py writes them; tau-retail-data.test.ts is the test that checks the
 * files hold to them (counts, schemas, hashes), so a reader here casts without checking.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { isJsonObject, type JsonObject, type JsonValue } from "../../src/core/json.js";

export const TAU_RETAIL_DIR = path.resolve(import.meta.dirname, "../../examples/environments/tau-retail");

/** A JSON file of the folder, by its path inside it. */
export function readTauRetailJson<T>(file: string): T {
  // SAFETY: the folder's committed JSON files, whose shapes tau-retail-data.test.ts checks.
  return JSON.parse(readFileSync(path.join(TAU_RETAIL_DIR, file), "utf8")) as T;
}

// --- the shapes of the files -------------------------------------------------------------------

/** The dataset's collections, in the order dataset.json holds them. */
export const COLLECTIONS = ["orders", "products", "users"] as const;
export type Collection = (typeof COLLECTIONS)[number];
/** dataset.json: each collection's records by id. */
export type Dataset = Record<Collection, Record<string, JsonObject>>;

/** One JSON Patch operation (RFC 6902) over the dataset, as the reference writes changes and final diffs. */
export interface PatchOp {
  op: "add" | "remove" | "replace";
  path: string;
  value?: JsonValue;
}

/** One call of a sequence, with what τ-bench's Python answered and what it changed. */
export interface ReferenceCall {
  name: string;
  arguments: JsonObject;
  output: { json: JsonValue } | { text: string };
  changes?: PatchOp[];
  /** Set on an answer worded by a CPython exception (only probes reach one). */
  python_message?: true;
}

/** A sequence of calls on a fresh state, and the state τ-bench's Python ended in. */
export interface ReferenceSequence {
  calls: ReferenceCall[];
  /** The final data as JSON Patch over dataset.json, its hash by the README's rule, and τ-bench's own hash. */
  final_state: { diff: PatchOp[]; sha256: string; taubench_hash: string };
}
/** A τ-bench task (the test, train and dev splits), with its gold calls. */
export interface ReferenceTask extends ReferenceSequence {
  index: number;
  user_id: string;
  instruction: string;
  outputs: string[];
}
/** A probe sequence (the probes split), written by reference.py to reach what the tasks do not. */
export interface ReferenceProbe extends ReferenceSequence {
  id: string;
  about: string;
}

export const TASK_SPLITS = ["test", "train", "dev"] as const;
export type TaskSplit = (typeof TASK_SPLITS)[number];
export const REFERENCE_SPLITS = [...TASK_SPLITS, "probes"] as const;
export type ReferenceSplitName = (typeof REFERENCE_SPLITS)[number];

/** reference/<split>.json. */
export interface ReferenceFile<S extends ReferenceSequence = ReferenceSequence> {
  upstream_commit: string;
  dataset_sha256: string;
  split: string;
  tasks: S[];
}

/** One entry of operations.json: a τ-bench function as τ-bench declares it. */
export interface Operation {
  name: string;
  description: string;
  input_schema: JsonObject;
  output_schema: JsonObject;
}
/** One operation of tool.json, the library tool the environment is saved as. */
export interface ToolOperation {
  operation_id: string;
  description: string;
  input_schema: JsonObject;
  output_schema: JsonObject;
}
export interface Tool {
  name: string;
  operations: ToolOperation[];
}

/** upstream.json: the τ-bench commit the files come from, and the dataset's hash by the README's rule. */
export interface Upstream {
  commit: string;
  dataset_sha256: string;
  files: Record<string, string>;
}

// --- the readers ---------------------------------------------------------------------------------

export const readDataset = (): Dataset => readTauRetailJson<Dataset>("dataset.json");
export const readTool = (): Tool => readTauRetailJson<Tool>("tool.json");
export const readOperations = (): Operation[] => readTauRetailJson<Operation[]>("operations.json");
export const readUpstream = (): Upstream => readTauRetailJson<Upstream>("upstream.json");

export function readReference(split: TaskSplit): ReferenceFile<ReferenceTask>;
export function readReference(split: "probes"): ReferenceFile<ReferenceProbe>;
export function readReference(split: ReferenceSplitName): ReferenceFile<ReferenceTask | ReferenceProbe>;
export function readReference(split: ReferenceSplitName): ReferenceFile<ReferenceTask | ReferenceProbe> {
  return readTauRetailJson(`reference/${split}.json`);
}

/** Every split's reference file, by split. */
export function readReferences(): { [S in TaskSplit]: ReferenceFile<ReferenceTask> } & {
  probes: ReferenceFile<ReferenceProbe>;
} {
  return {
    test: readReference("test"),
    train: readReference("train"),
    dev: readReference("dev"),
    probes: readReference("probes"),
  };
}

/**
 * The operation names, from tool.json (what the loader saves and the replay runs). Only
 * tau-retail-data.test.ts holds them as a literal list, so a change to the file fails there.
 */
export const operationNames = (tool: Tool = readTool()): string[] => tool.operations.map((op) => op.operation_id);

// --- the README's final-state hash rule, written from its text ---------------------------------

/** Object keys sorted by UTF-16 code units, no whitespace, scalars as JSON.stringify writes them. */
export function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** One record's key in the maps of changed records (the NUL cannot stand in a collection's name). */
export const recordKey = (c: Collection, id: string): string => `${c}\u0000${id}`;
export function splitKey(key: string): [Collection, string] {
  const [c, id] = key.split("\u0000") as [Collection, string];
  return [c, id];
}

export type RecordHashes = Record<Collection, Record<string, string>>;

/**
 * The hash of a state over one dataset: the sha256 of the canonical JSON of
 * {collection: {id: sha256(canonical(record))}}. The dataset's record hashes are computed once;
 * a state is the dataset with the changed records put in (keyed by recordKey), and its canonical
 * JSON is written out directly (collections and ids in sorted order, every value a string), since
 * it is rebuilt for each of ~900 sequences.
 */
export class StateHasher {
  readonly base: RecordHashes;
  private readonly sortedIds: Record<Collection, string[]>;

  constructor(dataset: Dataset) {
    this.base = { orders: {}, products: {}, users: {} };
    for (const c of COLLECTIONS)
      for (const [id, record] of Object.entries(dataset[c])) this.base[c][id] = sha256(canonical(record));
    this.sortedIds = Object.fromEntries(COLLECTIONS.map((c) => [c, Object.keys(dataset[c]).sort()])) as Record<
      Collection,
      string[]
    >;
  }

  hash(changed: ReadonlyMap<string, JsonObject>): string {
    const replaced = new Map<string, string>();
    for (const [key, record] of changed) replaced.set(key, sha256(canonical(record)));
    const collections = [...COLLECTIONS].sort().map((c) => {
      const entries = this.sortedIds[c].map(
        (id) => `${JSON.stringify(id)}:${JSON.stringify(replaced.get(recordKey(c, id)) ?? this.base[c][id])}`,
      );
      return `${JSON.stringify(c)}:{${entries.join(",")}}`;
    });
    return sha256(`{${collections.join(",")}}`);
  }
}

// --- JSON Patch over a copy-on-write view of the dataset ---------------------------------------

const decode = (token: string): string => token.replace(/~1/g, "/").replace(/~0/g, "~");

/**
 * The records one sequence has written, each cloned from the dataset on its first write. Strict:
 * a change outside a record, to a missing record or path, or removing a record throws.
 */
export class Overlay {
  /** The written records, keyed by recordKey. */
  readonly changed = new Map<string, JsonObject>();

  constructor(private readonly dataset: Dataset) {}

  record(c: Collection, id: string): JsonObject | undefined {
    return this.changed.get(recordKey(c, id)) ?? this.dataset[c][id];
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
      const base = this.dataset[c as Collection][id];
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

/** What a call answered: its JSON value, or its text. */
export const answerOf = (call: ReferenceCall): JsonValue =>
  "json" in call.output ? call.output.json : call.output.text;
