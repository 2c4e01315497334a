/**
 * The state of an attempt's tools that start from a pinned dataset, copy-on-write: reads go through
 * the isolate's shared, frozen base (datasets/base.ts) and the attempt keeps only the records its
 * calls changed, in its own storage (the dataset_records table). Starting an attempt copies nothing;
 * the engine still sees an ordinary state object (core/datasets/records.ts materializes it sharing
 * every untouched record with the base), and a call's new state is turned back into record changes.
 *
 * Loading a base is the only await. The attempt object awaits it before a call's synchronous
 * read → render → write, never inside it: the base is immutable, so waiting for it cannot lose an
 * update. A base that cannot be loaded makes the tool's calls harness errors naming why.
 */
import { utf8Length } from "../../core/utf8.js";
import { listedChange, ListedChangesSize } from "../../core/datasets/listed-changes.js";
import type { ResolvedDatasetPin } from "../../core/datasets/pin.js";
import {
  changedRecords,
  diffRecords,
  materialize,
  Overlay,
  type RecordChange,
  type WrittenRecords,
} from "../../core/datasets/records.js";
import type { JsonObject } from "../../core/json.js";
import { messageOf } from "../../core/message-of.js";
import type { StateChange } from "../../core/simulation/evidence.js";
import type { PinnedTool } from "../../core/simulation/setup.js";
import { datasetBase } from "../datasets/base.js";
import type { Env } from "../platform/env.js";
import type { AttemptStorage, StoredRecord } from "./storage.js";
import { storedRecordValue } from "./stored-values.js";

interface DatasetTool {
  pin: ResolvedDatasetPin;
  base?: JsonObject;
  /** Why the base could not be loaded, when it could not. */
  failure?: string;
  /** The state the engine sees (base + overlay); built on first use, then kept up to date by accept(). */
  view?: JsonObject;
  /** The size of the summary's list of changes; read from storage on first use, then kept up to date by accept(). */
  listed?: ListedChangesSize;
  /** The changes view() read from storage, for building `listed` without reading them again; dropped once a write makes them stale. */
  read?: RecordChange[];
}

/** A call's changes to a dataset tool, as they are written and as evidence records them. */
interface DatasetCommit {
  tool: string;
  changes: RecordChange[];
  evidence: StateChange;
}

export class DatasetState {
  private readonly tools = new Map<string, DatasetTool>();

  constructor(
    tools: readonly PinnedTool[],
    private readonly tenantId: string,
    private readonly storage: AttemptStorage,
    private readonly env: Pick<Env, "DATASETS">,
  ) {
    for (const tool of tools) if (tool.dataset) this.tools.set(tool.tool_name, { pin: tool.dataset });
  }

  /** An attempt with no dataset tool needs none of this. */
  static of(
    tools: readonly PinnedTool[],
    tenantId: string,
    storage: AttemptStorage,
    env: Pick<Env, "DATASETS">,
  ): DatasetState | null {
    return tools.some((tool) => tool.dataset) ? new DatasetState(tools, tenantId, storage, env) : null;
  }

  has(toolName: string): boolean {
    return this.tools.has(toolName);
  }

  /** Every base is loaded: calls may run synchronously now. */
  ready(): boolean {
    for (const tool of this.tools.values()) if (!tool.base) return false;
    return true;
  }

  /** Loads every base not loaded yet; never rejects (a failure is kept and answered by the tool's calls). */
  async load(): Promise<void> {
    await Promise.all(
      [...this.tools.values()].map(async (tool) => {
        if (tool.base) return;
        try {
          tool.base = (await datasetBase(this.env, this.tenantId, tool.pin)).value;
          tool.failure = undefined;
        } catch (error) {
          console.error(`loading dataset "${tool.pin.name}" version ${tool.pin.version} failed`, error);
          tool.failure = messageOf(error);
        }
      }),
    );
  }

  /** The tool's state as the engine reads it. Throws when its base is not loaded (execute turns that into a harness error). */
  view(toolName: string): JsonObject {
    const tool = this.tool(toolName);
    if (tool.view) return tool.view;
    if (!tool.base) {
      const why = tool.failure ?? "it was not loaded";
      throw new Error(`the dataset "${tool.pin.name}" version ${tool.pin.version} could not be read: ${why}`);
    }
    const overlay = new Overlay(this.storage.readRecords(toolName).map(changeOf));
    tool.view = materialize(tool.base, overlay);
    if (!tool.listed) tool.read = overlay.changes();
    return tool.view;
  }

  /** The record changes from the state a call saw to the state it left; null when it changed no record. */
  commit(toolName: string, before: JsonObject, after: JsonObject, written?: WrittenRecords): DatasetCommit | null {
    const changes = diffRecords(before, after, written);
    if (changes.length === 0) return null;
    const { pin } = this.tool(toolName);
    const records = changedRecords(before, changes);
    return {
      tool: toolName,
      changes,
      evidence: { tool: toolName, ...records, dataset: { name: pin.name, version: pin.version } },
    };
  }

  /** Writes a commit's records (inside the call's transaction). */
  write(commit: DatasetCommit): void {
    for (const change of commit.changes) this.storage.writeRecord(commit.tool, storedOf(change));
  }

  /** Memory follows storage once the writes went through. */
  accept(toolName: string, after: JsonObject, commit: DatasetCommit): void {
    const tool = this.tool(toolName);
    tool.view = after;
    tool.listed?.merge(commit.changes);
    tool.read = undefined;
  }

  /** UTF-8 bytes of the tool's summary as JSON (what the attempt's D1 row holds of it), with `commit` when given. */
  summaryBytes(toolName: string, commit?: DatasetCommit): number {
    const tool = this.tool(toolName);
    tool.listed ??= new ListedChangesSize(tool.read ?? this.listedChanges(toolName));
    tool.read = undefined;
    // The summary with an empty list, less its "[]", plus the list.
    const frame = utf8Length(JSON.stringify(this.summaryOf(tool.pin, []))) - 2;
    return frame + (commit ? tool.listed.jsonWith(commit.changes) : tool.listed.json);
  }

  /**
   * The tool as the attempt view shows it: the version it started from and every record changed
   * over it (the latest value, or `removed`), read from storage, so no base is needed.
   */
  summary(toolName: string): JsonObject {
    return this.summaryOf(this.tool(toolName).pin, this.listedChanges(toolName).map(listedChange));
  }

  private summaryOf(pin: ResolvedDatasetPin, changes: JsonObject[]): JsonObject {
    return {
      dataset: { name: pin.name, version: pin.version, content_hash: pin.content_hash, bytes: pin.bytes },
      changes,
    };
  }

  private listedChanges(toolName: string): RecordChange[] {
    return new Overlay(this.storage.readRecords(toolName).map(changeOf)).changes();
  }

  private tool(toolName: string): DatasetTool {
    const tool = this.tools.get(toolName);
    if (!tool) throw new Error(`tool "${toolName}" starts from no dataset`);
    return tool;
  }
}

function storedOf(change: RecordChange): StoredRecord {
  return {
    collection: change.collection,
    whole: change.record === null ? 1 : 0,
    record: change.record ?? "",
    value: change.value === undefined ? null : JSON.stringify(change.value),
  };
}

function changeOf(row: StoredRecord): RecordChange {
  const change: RecordChange = { collection: row.collection, record: row.whole === 1 ? null : row.record };
  if (row.value !== null) change.value = storedRecordValue(row.value);
  return change;
}
