/**
 * The current state of each of an attempt's tools, as the attempt object holds it between calls:
 * read from storage on first use and kept in memory after, written by a call together with its
 * evidence. A tool that starts from a pinned dataset goes through DatasetState (copy-on-write over
 * the shared base); any other tool keeps its whole state as one stored value.
 *
 * Every method is synchronous except load(): the object awaits it before a call's read → render →
 * write, never inside it (object.ts says why).
 */
import { utf8Length } from "../../core/utf8.js";
import { setOwn } from "../../core/contract/values.js";
import { jsonArrayBytes } from "../../core/datasets/listed-changes.js";
import type { WrittenRecords } from "../../core/datasets/records.js";
import { cloneJson, type JsonObject, type JsonValue } from "../../core/json.js";
import type { StateChange } from "../../core/simulation/evidence.js";
import type { PinnedTool } from "../../core/simulation/setup.js";
import type { Env } from "../platform/env.js";
import { DatasetState } from "./dataset-state.js";
import type { AttemptStorage } from "./storage.js";
import { storedToolState } from "./stored-values.js";

/** How a call's new state is written, recorded and then kept in memory. */
interface StateWrite {
  change: StateChange;
  /** UTF-8 bytes of the tool's state after the call, as all() would show it. */
  bytes: number;
  /** Inside the call's transaction, with its evidence. */
  write(): void;
  /** Memory follows storage once the writes went through. */
  accept(): void;
}

export class ToolStates {
  private readonly initial: Map<string, JsonObject>;
  /** Current state per tool name; filled from storage on first use. */
  private readonly states = new Map<string, JsonObject>();
  /** The tools that start from a pinned dataset; null when none does. */
  private readonly datasets: DatasetState | null;
  /** UTF-8 bytes of each tool without a dataset as all() shows it; measured on first use, then kept by each write. */
  private readonly shownBytes = new Map<string, number>();

  constructor(
    private readonly tools: readonly PinnedTool[],
    tenantId: string,
    private readonly storage: AttemptStorage,
    env: Pick<Env, "DATASETS">,
  ) {
    this.initial = new Map(tools.map((tool) => [tool.tool_name, tool.initial_state]));
    this.datasets = DatasetState.of(tools, tenantId, storage, env);
  }

  /** Every dataset base is loaded (or there is none): calls may run synchronously now. */
  ready(): boolean {
    return !this.datasets || this.datasets.ready();
  }

  /** Loads the bases not loaded yet; never rejects (a failure is answered by the tool's calls). */
  async load(): Promise<void> {
    await this.datasets?.load();
  }

  /** The tool's state as the engine reads it. Throws on a corrupt stored state or a base that could not be loaded. */
  of(toolName: string): JsonObject {
    if (this.datasets?.has(toolName)) return this.datasets.view(toolName);
    const cached = this.states.get(toolName);
    if (cached) return cached;
    const stored = this.storage.readState(toolName);
    let state: JsonObject;
    if (stored !== undefined) {
      state = storedToolState(stored, toolName);
    } else {
      // executeCall never mutates the state it is given, but the initial state is shared by
      // every call until the first set_state: a copy keeps that promise cheap to rely on.
      state = cloneJson(this.initial.get(toolName) ?? {});
    }
    this.states.set(toolName, state);
    return state;
  }

  /**
   * How a call's new state is written; null when nothing changed. The state the call saw is still
   * the current one: memory follows storage only after the write. A dataset tool writes only the
   * records the call changed (dataset-state.ts), any other tool its whole state.
   */
  change(toolName: string, after: JsonObject, written?: WrittenRecords): StateWrite | null {
    const before = this.of(toolName);
    const datasets = this.datasets;
    if (datasets?.has(toolName)) {
      const commit = datasets.commit(toolName, before, after, written);
      if (!commit) return null;
      return {
        change: commit.evidence,
        bytes: datasets.summaryBytes(toolName, commit),
        write: () => datasets.write(commit),
        accept: () => datasets.accept(toolName, after, commit),
      };
    }
    const text = JSON.stringify(after);
    const bytes = utf8Length(text);
    return {
      change: { tool: toolName, before, after },
      bytes,
      write: () => this.storage.writeState(toolName, text),
      accept: () => {
        this.states.set(toolName, after);
        this.shownBytes.set(toolName, bytes);
      },
    };
  }

  /**
   * UTF-8 bytes of all() as JSON, what the flush copies into the attempt's D1 row, with one tool's
   * state at `instead.bytes` when given (a call's new state, weighed before it is written).
   */
  allBytes(instead?: { tool: string; bytes: number }): number {
    let bytes = 0;
    for (const tool of this.tools) {
      const name = tool.tool_name;
      const state = instead?.tool === name ? instead.bytes : this.bytesOf(name);
      bytes += utf8Length(JSON.stringify(name)) + 1 + state;
    }
    return jsonArrayBytes(bytes, this.tools.length);
  }

  private bytesOf(toolName: string): number {
    try {
      if (this.datasets?.has(toolName)) return this.datasets.summaryBytes(toolName);
      let bytes = this.shownBytes.get(toolName);
      if (bytes === undefined) {
        bytes = utf8Length(JSON.stringify(this.of(toolName)));
        this.shownBytes.set(toolName, bytes);
      }
      return bytes;
    } catch {
      // all() shows a state it cannot read as null.
      return "null".length;
    }
  }

  /** Every tool's state, as the snapshot and the flush to D1 show it; a state that cannot be read shows as null. */
  all(): JsonObject {
    const all: JsonObject = {};
    // setOwn: a tool may be called "__proto__", and its state must stay a property of the answer
    // (assigned, it became the prototype and the snapshot could not be sent: a 500).
    for (const tool of this.tools) {
      let state: JsonValue;
      try {
        // A dataset tool shows its pin and its changes over the base, never the whole dataset.
        state = this.datasets?.has(tool.tool_name) ? this.datasets.summary(tool.tool_name) : this.of(tool.tool_name);
      } catch {
        state = null;
      }
      setOwn(all, tool.tool_name, state);
    }
    return all;
  }
}
