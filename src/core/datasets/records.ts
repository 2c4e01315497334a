/**
 * Copy-on-write state over a dataset, at record granularity. A dataset is a JSON object whose
 * top-level values are collections (`orders`, `users`); a record is a value at depth 2
 * (`/orders/#W123`). An attempt keeps only the records its calls changed (its overlay) and reads
 * everything else from the shared, immutable base, so starting an attempt copies nothing.
 *
 * A top-level value that is not an object (a scalar, an array) has no records: it is one record
 * itself, at depth 1. So is a top-level value a call replaces with something that is not an object,
 * or adds, or removes: such a change is kept whole (`record: null`), and record changes on top of it
 * apply to what it wrote.
 *
 * Everything here is pure: the engine still sees an ordinary state object (materialize, applyChanges
 * share every untouched record with the base), and the attempt object turns the call's new state
 * back into record changes (diffRecords) to store only those.
 */
import { isJsonObject, jsonEqual, pointer, type JsonObject, type JsonValue } from "../json.js";

/** One changed record: its value after the call, or no value when the call removed it. */
export interface RecordChange {
  /** The top-level key. */
  collection: string;
  /** The key inside the collection; null when the top-level value changed as a whole. */
  record: string | null;
  /** Absent: the record (or the whole top-level value) was removed. */
  value?: JsonValue;
}

/** The record's JSON Pointer into the tool's state: /orders/#W123, or /version for a whole top-level value. */
export function recordPointer(change: Pick<RecordChange, "collection" | "record">): string {
  return change.record === null ? pointer(change.collection) : pointer(change.collection, change.record);
}

/**
 * The record changes that turn `before` into `after`. Values shared by reference are skipped
 * without a look inside (the engine's version-2 writes copy only the containers they write), and
 * in a collection the engine copied to write one record into (`written`, filled by the call that
 * made `after`), only that record is compared, so a call that changes one order is diffed as fast
 * over ten orders as over a hundred thousand; values that
 * differ by reference are compared as JSON, so a copy that changed nothing yields no change.
 */
export function diffRecords(before: JsonObject, after: JsonObject, written?: WrittenRecords): RecordChange[] {
  const changes: RecordChange[] = [];
  if (before === after) return changes;
  for (const collection of Object.keys(before)) {
    if (!Object.hasOwn(after, collection)) changes.push({ collection, record: null });
  }
  for (const collection of Object.keys(after)) {
    // SAFETY: an own key of after.
    const next = after[collection] as JsonValue;
    if (!Object.hasOwn(before, collection)) {
      changes.push({ collection, record: null, value: next });
      continue;
    }
    // SAFETY: an own key of before (checked above).
    const prior = before[collection] as JsonValue;
    if (prior === next) continue;
    if (isJsonObject(prior) && isJsonObject(next)) {
      const records = written?.into(next, prior) ?? null;
      // One record written: it is the only one that can differ, so the thousands the copy shares
      // with `prior` are not walked. (Several: the walk below, which also gives the changes in the
      // collection's key order.)
      if (records !== null && records.size <= 1) {
        for (const record of records) diffRecord(changes, collection, record, prior, next);
        continue;
      }
      for (const record of Object.keys(prior)) if (!Object.hasOwn(next, record)) changes.push({ collection, record });
      for (const record of Object.keys(next)) diffRecord(changes, collection, record, prior, next);
    } else if (!jsonEqual(prior, next)) {
      changes.push({ collection, record: null, value: next });
    }
  }
  return changes;
}

/** The change to one record of a collection, pushed onto `changes` when there is one. */
function diffRecord(changes: RecordChange[], collection: string, record: string, prior: JsonObject, next: JsonObject) {
  if (!Object.hasOwn(next, record)) {
    if (Object.hasOwn(prior, record)) changes.push({ collection, record });
    return;
  }
  // SAFETY: an own key of next (checked above).
  const value = next[record] as JsonValue;
  if (!Object.hasOwn(prior, record)) changes.push({ collection, record, value });
  else if (prior[record] !== value && !jsonEqual(prior[record], value)) changes.push({ collection, record, value });
}

/**
 * The collections one call's engine copied to write records into (contract/writes.ts), each with
 * the collection it copied and the records set or removed in the copy since. The engine notes
 * every write into a tracked copy, and a copy is never changed once its call has returned, so it
 * differs from the collection it copied in those records only, and diffRecords need not walk the
 * rest. A list compared by identity, not a map keyed by the copies: a call copies a few
 * collections, and giving a large object an identity hash (as a Map or WeakMap key does) made
 * copying it again on the next call about four times slower in V8 (bench:datasets).
 */
export class WrittenRecords {
  private readonly copies: { copy: JsonObject; of: JsonObject; records: Set<string> }[] = [];

  /** `copy` is a fresh shallow copy of the collection `of`, made by the engine for this call. */
  track(copy: JsonObject, of: JsonObject): void {
    this.copies.push({ copy, of, records: new Set() });
  }

  /** The engine is about to set or remove `key` of `container`; noted when the container is a tracked copy. */
  note(container: JsonObject | JsonValue[], key: string): void {
    for (const tracked of this.copies) if (tracked.copy === container) tracked.records.add(key);
  }

  /** The records written into `copy` since it was copied from `of`; null when it is no tracked copy of `of`. */
  into(copy: JsonObject, of: JsonObject): ReadonlySet<string> | null {
    for (const tracked of this.copies) if (tracked.copy === copy && tracked.of === of) return tracked.records;
    return null;
  }
}

/**
 * `state` with `changes` applied, in order, as a new object: `state` is never changed (it may be a
 * frozen base), and every value the changes do not touch is shared with it. A record change under
 * a top-level value that is not an object is dropped: diffRecords never makes one, and the overlay
 * forgets record changes when their collection is replaced whole.
 */
export function applyChanges(state: JsonObject, changes: readonly RecordChange[]): JsonObject {
  if (changes.length === 0) return state;
  const root: JsonObject = { ...state };
  /** Collections this call already copied, so several records of one collection copy it once. */
  const owned = new Map<string, Set<string>>();
  for (const change of changes) {
    if (change.record === null) {
      owned.delete(change.collection);
      if (change.value === undefined) delete root[change.collection];
      else defineOwn(root, change.collection, change.value);
      continue;
    }
    const current = Object.hasOwn(root, change.collection) ? root[change.collection] : undefined;
    if (!isJsonObject(current)) continue;
    let collection = current;
    let records = owned.get(change.collection);
    if (!records) {
      collection = { ...current };
      records = recordCopy(collection, current);
      defineOwn(root, change.collection, collection);
      owned.set(change.collection, records);
    }
    records.add(change.record);
    if (change.value === undefined) delete collection[change.record];
    else defineOwn(collection, change.record, change.value);
  }
  return root;
}

/**
 * Each collection applyChanges copied: the collection it copied first (following copies of
 * copies back) and every record set or removed on the way. A copy is never changed once
 * applyChanges has returned it, so it differs from that original in those records only.
 */
const copies = new WeakMap<JsonObject, { original: JsonObject; records: Set<string> }>();

function recordCopy(copy: JsonObject, of: JsonObject): Set<string> {
  const earlier = copies.get(of);
  const records = new Set(earlier?.records);
  copies.set(copy, { original: earlier?.original ?? of, records });
  return records;
}

/**
 * The only keys whose values can differ between two collections, when applyChanges made one or
 * both from the same original (states over one dataset): a comparison can look at those and skip
 * the thousands of records they share. Null when that is not known; then every key may differ.
 */
export function keysThatMayDiffer(left: JsonObject, right: JsonObject): ReadonlySet<string> | null {
  const l = copies.get(left);
  const r = copies.get(right);
  if (!l && !r) return null;
  if ((l?.original ?? left) !== (r?.original ?? right)) return null;
  if (!l) return r?.records ?? null;
  if (!r) return l.records;
  return new Set([...l.records, ...r.records]);
}

/**
 * The changes an attempt holds over its base, one entry per record (the latest change wins). A
 * whole top-level change forgets the record changes under it, so the overlay never grows beyond
 * what the attempt's state differs by.
 */
export class Overlay {
  private readonly collections = new Map<string, { whole?: RecordChange; records: Map<string, RecordChange> }>();

  constructor(changes: Iterable<RecordChange> = []) {
    this.merge(changes);
  }

  merge(changes: Iterable<RecordChange>): void {
    for (const change of changes) {
      let entry = this.collections.get(change.collection);
      if (!entry) {
        entry = { records: new Map() };
        this.collections.set(change.collection, entry);
      }
      if (change.record === null) {
        entry.whole = change;
        entry.records.clear();
      } else {
        entry.records.set(change.record, change);
      }
    }
  }

  /** Every change, whole top-level changes before the record changes over them (the order applyChanges needs). */
  changes(): RecordChange[] {
    const out: RecordChange[] = [];
    for (const entry of this.collections.values()) {
      if (entry.whole) out.push(entry.whole);
      out.push(...entry.records.values());
    }
    return out;
  }

  get size(): number {
    let size = 0;
    for (const entry of this.collections.values()) size += entry.records.size + (entry.whole ? 1 : 0);
    return size;
  }
}

/** The state an attempt sees: its base with its overlay applied (sharing every untouched record). */
export function materialize(base: JsonObject, overlay: Overlay): JsonObject {
  return applyChanges(base, overlay.changes());
}

/**
 * What evidence keeps of a call's changes: the changed records only, before and after, nested as
 * in the state (`{"orders": {"#W1": ...}}`), and the pointers of the records changed. A record the
 * call created is absent from `before`, one it removed is absent from `after`.
 */
export function changedRecords(
  before: JsonObject,
  changes: readonly RecordChange[],
): { before: JsonObject; after: JsonObject; records: string[] } {
  const out = { before: {} as JsonObject, after: {} as JsonObject, records: [] as string[] };
  for (const change of changes) {
    out.records.push(recordPointer(change));
    const prior = Object.hasOwn(before, change.collection) ? before[change.collection] : undefined;
    if (change.record === null) {
      if (prior !== undefined) defineOwn(out.before, change.collection, prior);
      if (change.value !== undefined) defineOwn(out.after, change.collection, change.value);
      continue;
    }
    const priorRecord = isJsonObject(prior) && Object.hasOwn(prior, change.record) ? prior[change.record] : undefined;
    if (priorRecord !== undefined) defineOwn(nested(out.before, change.collection), change.record, priorRecord);
    if (change.value !== undefined) defineOwn(nested(out.after, change.collection), change.record, change.value);
  }
  return out;
}

function nested(target: JsonObject, key: string): JsonObject {
  const existing = Object.hasOwn(target, key) ? target[key] : undefined;
  if (isJsonObject(existing)) return existing;
  const made: JsonObject = {};
  defineOwn(target, key, made);
  return made;
}

/** Deep-freezes a JSON value in place (the shared base: no attempt may change what the others read). */
export function deepFreeze<T extends JsonValue>(value: T): T {
  const pending: JsonValue[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== "object" || Object.isFrozen(next)) continue;
    Object.freeze(next);
    if (Array.isArray(next)) pending.push(...next);
    else for (const key of Object.keys(next)) pending.push(next[key] as JsonValue);
  }
  return value;
}

/** Sets an own data property even for "__proto__" (an assignment would change the prototype). */
function defineOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
