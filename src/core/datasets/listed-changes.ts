/**
 * An attempt's changes to a dataset tool as its summary lists them (`{"pointer", "value"}` or
 * `{"pointer", "removed": true}`, one per changed record, the latest only), and the size of that
 * list as JSON, kept up to date change by change: the attempt weighs each call's changes against
 * the row the summary is copied into (attempts/tool-states.ts) without listing everything again.
 */
import { utf8Length } from "../utf8.js";
import type { JsonObject } from "../json.js";
import { type RecordChange, recordPointer } from "./records.js";

/** One change as the summary lists it. */
export function listedChange(change: RecordChange): JsonObject {
  return change.value === undefined
    ? { pointer: recordPointer(change), removed: true }
    : { pointer: recordPointer(change), value: change.value };
}

interface CollectionSizes {
  /** Bytes of each record's listed change (a whole-collection change is in `bytes` alone). */
  records: Map<string, number>;
  /** Bytes and number of this collection's listed changes. */
  bytes: number;
  count: number;
}

/**
 * The UTF-8 size of the JSON array of listed changes. It follows Overlay's rules: a record's later
 * change replaces its earlier one, and a whole-collection change replaces every change under it.
 */
export class ListedChangesSize {
  private readonly collections = new Map<string, CollectionSizes>();
  private bytes = 0;
  private count = 0;

  constructor(changes: Iterable<RecordChange> = []) {
    this.merge(changes);
  }

  /** Bytes of the list as JSON: its brackets, its entries and the commas between them. */
  get json(): number {
    return jsonArrayBytes(this.bytes, this.count);
  }

  /**
   * The same after `changes`, which are not kept: merged, weighed, then undone, so weighing costs
   * the changes alone, not the records the attempt changed before.
   */
  jsonWith(changes: Iterable<RecordChange>): number {
    const undo: (() => void)[] = [];
    this.merge(changes, undo);
    const json = this.json;
    for (let i = undo.length - 1; i >= 0; i--) undo[i]?.();
    return json;
  }

  /** `undo`, when given, receives what puts each step back, in the order the steps were taken. */
  merge(changes: Iterable<RecordChange>, undo?: (() => void)[]): void {
    for (const change of changes) {
      const bytes = utf8Length(JSON.stringify(listedChange(change)));
      let sizes = this.collections.get(change.collection);
      if (!sizes) {
        sizes = { records: new Map(), bytes: 0, count: 0 };
        this.collections.set(change.collection, sizes);
        undo?.push(() => this.collections.delete(change.collection));
      }
      const kept = sizes;
      const totals = { bytes: this.bytes, count: this.count, collection: kept.bytes, collectionCount: kept.count };
      if (undo)
        undo.push(() => {
          this.bytes = totals.bytes;
          this.count = totals.count;
          kept.bytes = totals.collection;
          kept.count = totals.collectionCount;
        });
      if (change.record === null) {
        if (undo) {
          const records = kept.records;
          undo.push(() => {
            kept.records = records;
          });
        }
        this.bytes += bytes - kept.bytes;
        this.count += 1 - kept.count;
        kept.records = new Map();
        kept.bytes = bytes;
        kept.count = 1;
        continue;
      }
      const record = change.record;
      const earlier = kept.records.get(record);
      if (undo)
        undo.push(() => {
          if (earlier === undefined) kept.records.delete(record);
          else kept.records.set(record, earlier);
        });
      kept.records.set(record, bytes);
      const added = bytes - (earlier ?? 0);
      const counted = earlier === undefined ? 1 : 0;
      kept.bytes += added;
      kept.count += counted;
      this.bytes += added;
      this.count += counted;
    }
  }
}

/** Bytes of a JSON array (or object) whose `count` members come to `bytes`: brackets and commas. */
export function jsonArrayBytes(bytes: number, count: number): number {
  return 2 + bytes + Math.max(0, count - 1);
}
