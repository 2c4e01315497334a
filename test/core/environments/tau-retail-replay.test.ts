/**
 * τ-bench's retail domain, replayed on toolproof's definitions (issue 21 item 5).
 *
 * examples/environments/tau-retail/ holds the tool (`tool.json`: τ-bench's 16 functions as
 * operations) and one version-2 definition per operation (`definitions/`). This test runs them
 * with the core engine directly: every task's gold calls (test, train and dev: 635 tasks, 1,375
 * calls) and every probe sequence, each on a fresh state built from `dataset.json`, and compares
 * every answer with what τ-bench's own Python answered (`reference/*.json`, computed by
 * scripts/tau-bench/reference.py): JSON compared as values with numbers to 1e-9, text exactly.
 * Each sequence's final state is compared with the reference's, record by record (numbers to
 * 1e-9) and by its hash (exact, which says the floating-point arithmetic is the same bit for bit).
 *
 * A mismatch that remains has to be listed in KNOWN_MISMATCHES (and in the folder's README with
 * its cause), so a new one fails this test and a fixed one must be taken off the list.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import {
  checkDefinition,
  executeCall,
  parseDefinition,
  type MockDefinition,
} from "../../../src/core/contract/index.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../../src/core/json.js";
import {
  answerOf,
  COLLECTIONS,
  Overlay,
  REFERENCE_SPLITS,
  type PatchOp,
  type ReferenceSplitName,
  readDataset,
  readOperations,
  readReferences,
  readTauRetailJson,
  readTool,
  recordKey,
  StateHasher,
  splitKey,
  TAU_RETAIL_DIR,
  type ToolOperation,
} from "../../support/tau-retail.js";

/**
 * Mismatches that remain, each `<split> <task index or probe id> call <n> (<operation>)` or
 * `<split> <task> final state`; the README's "Where the replay differs" gives each one's cause.
 */
const KNOWN_MISMATCHES: string[] = [];

const dataset = readDataset();
const tool = readTool();
const references = readReferences();
const validator = createRuntimeValidator();
// The folder README's state-hash rule, the same one tau-retail-data.test.ts checks against the
// Python script's hashes; it rehashes only the records a sequence changed.
const hasher = new StateHasher(dataset);

// --- comparing JSON values --------------------------------------------------------------------

/** Where two JSON values differ (numbers within 1e-9), or null when they are the same value. */
function difference(actual: unknown, expected: unknown, at = ""): string | null {
  if (typeof actual === "number" && typeof expected === "number") {
    return Math.abs(actual - expected) <= 1e-9 ? null : `${at || "/"}: ${actual} instead of ${expected}`;
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) return `${at || "/"}: ${actual.length} items instead of ${expected.length}`;
    for (let i = 0; i < actual.length; i++) {
      const found = difference(actual[i], expected[i], `${at}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  if (isJsonObject(actual as JsonValue) && isJsonObject(expected as JsonValue)) {
    const a = actual as JsonObject;
    const e = expected as JsonObject;
    const keys = new Set([...Object.keys(a), ...Object.keys(e)]);
    for (const key of keys) {
      if (!Object.hasOwn(a, key)) return `${at}/${key}: missing`;
      if (!Object.hasOwn(e, key)) return `${at}/${key}: not expected`;
      const found = difference(a[key], e[key], `${at}/${key}`);
      if (found !== null) return found;
    }
    return null;
  }
  return actual === expected ? null : `${at || "/"}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`;
}

// --- the reference's final states: its diff applied to a copy of the records it names --------

/** The records the reference's final diff changes, each a patched copy of the dataset's, keyed by recordKey. */
function expectedRecords(diff: PatchOp[]): Map<string, JsonObject> {
  const overlay = new Overlay(dataset);
  for (const op of diff) overlay.apply(op);
  return overlay.changed;
}

/** The records a replayed state holds that are not the dataset's own objects (the engine copies only what it writes). */
function writtenRecords(state: JsonObject): Map<string, JsonObject> {
  const records = new Map<string, JsonObject>();
  for (const c of COLLECTIONS) {
    const collection = state[c] as Record<string, JsonObject>;
    if (collection === dataset[c]) continue;
    for (const id of new Set([...Object.keys(collection), ...Object.keys(dataset[c])])) {
      if (collection[id] !== dataset[c][id]) records.set(recordKey(c, id), collection[id] as JsonObject);
    }
  }
  return records;
}

// --- the environment ----------------------------------------------------------------------------

const definitionFiles = readdirSync(path.join(TAU_RETAIL_DIR, "definitions")).filter((f) => f.endsWith(".json"));
const rawDefinitions = new Map(
  definitionFiles.map((file) => [file.replace(/\.json$/, ""), readTauRetailJson<JsonObject>(`definitions/${file}`)]),
);
const operations = new Map(tool.operations.map((op) => [op.operation_id, op]));

function parsedDefinitions(): Map<string, MockDefinition> {
  const out = new Map<string, MockDefinition>();
  for (const [name, raw] of rawDefinitions) {
    const parsed = parseDefinition(raw);
    if (!parsed.ok) throw new Error(`${name} does not parse: ${JSON.stringify(parsed.errors, null, 2)}`);
    out.set(name, parsed.definition);
  }
  return out;
}

interface Replay {
  calls: number;
  answersMatched: number;
  states: number;
  statesMatched: number;
  hashesMatched: number;
  mismatches: string[];
}

function replay(split: ReferenceSplitName, definitions: Map<string, MockDefinition>): Replay {
  const result: Replay = { calls: 0, answersMatched: 0, states: 0, statesMatched: 0, hashesMatched: 0, mismatches: [] };
  for (const sequence of references[split].tasks) {
    const name = `${split} ${"id" in sequence ? sequence.id : sequence.index}`;
    // A fresh attempt: the dataset itself, which the engine never modifies.
    let state: JsonObject = dataset as unknown as JsonObject;
    sequence.calls.forEach((call, n) => {
      result.calls++;
      const where = `${name} call ${n} (${call.name})`;
      const operation = operations.get(call.name);
      const definition = definitions.get(call.name);
      if (operation === undefined || definition === undefined) {
        result.mismatches.push(`${where}: no operation or definition`);
        return;
      }
      const outcome = executeCall({
        input_schema: operation.input_schema,
        output_schema: operation.output_schema,
        definition,
        args: call.arguments,
        state,
        validator,
      });
      if (outcome.kind !== "result") {
        result.mismatches.push(`${where}: ${outcome.kind} ${outcome.message}`);
        return;
      }
      state = outcome.state;
      const expected = answerOf(call);
      const problem =
        "json" in call.output
          ? difference(outcome.result, expected)
          : outcome.result === expected
            ? null
            : `${JSON.stringify(outcome.result)} instead of ${JSON.stringify(expected)}`;
      if (problem === null) result.answersMatched++;
      else result.mismatches.push(`${where}: ${problem}`);
    });
    result.states++;
    const ours = writtenRecords(state);
    const theirs = expectedRecords(sequence.final_state.diff);
    let same = true;
    for (const key of new Set([...ours.keys(), ...theirs.keys()])) {
      const [c, id] = splitKey(key);
      const problem = difference(ours.get(key) ?? dataset[c][id], theirs.get(key) ?? dataset[c][id], `/${c}/${id}`);
      if (problem !== null) {
        result.mismatches.push(`${name} final state: ${problem}`);
        same = false;
        break;
      }
    }
    if (same) result.statesMatched++;
    if (hasher.hash(ours) === sequence.final_state.sha256) result.hashesMatched++;
  }
  return result;
}

/** Only the part of a mismatch that names it, without the details after the colon. */
const label = (mismatch: string): string => mismatch.split(":")[0] as string;

describe("τ-bench retail, replayed on toolproof's definitions (examples/environments/tau-retail)", () => {
  it("declares the tool `retail` with τ-bench's 16 functions as its operations, and one definition per operation", () => {
    const declared = readOperations();
    expect(tool.name).toBe("retail");
    expect(tool.operations.map((op) => [op.operation_id, op.description, op.input_schema])).toEqual(
      declared.map((op) => [op.name, op.description, op.input_schema]),
    );
    expect([...rawDefinitions.keys()].sort()).toEqual(declared.map((op) => op.name).sort());
  });

  it("saves every definition: each parses, compiles and passes its checked examples against the tool's contract", async () => {
    const failures: string[] = [];
    for (const [name, raw] of rawDefinitions) {
      const operation = operations.get(name) as ToolOperation;
      const report = await checkDefinition(
        {
          tool: tool.name,
          operation: name,
          description: operation.description,
          input_schema: operation.input_schema,
          output_schema: operation.output_schema,
        },
        raw,
        validator,
      );
      if (!report.valid) failures.push(`${name}: ${JSON.stringify(report.errors)}`);
      expect(report.examples.length).toBeGreaterThan(0);
    }
    expect(failures).toEqual([]);
  });

  const definitions = parsedDefinitions();
  const totals: Record<string, Replay> = {};

  for (const split of REFERENCE_SPLITS) {
    it(`${split}: every call answers as τ-bench's Python answered, and every final state is its final state`, () => {
      const outcome = replay(split, definitions);
      totals[split] = outcome;
      const known = KNOWN_MISMATCHES.filter((m) => m.startsWith(`${split} `));
      expect(outcome.mismatches.map(label)).toEqual(known);
      expect(outcome.answersMatched + outcome.mismatches.filter((m) => m.includes(" call ")).length).toBe(
        outcome.calls,
      );
      console.log(
        `${split}: ${outcome.answersMatched}/${outcome.calls} answers, ${outcome.statesMatched}/${outcome.states} final states, ${outcome.hashesMatched}/${outcome.states} state hashes exact`,
      );
    });
  }

  it("has the counts the folder's README states", () => {
    const readme = readFileSync(path.join(TAU_RETAIL_DIR, "README.md"), "utf8");
    const fmt = (n: number): string => n.toLocaleString("en-US");
    for (const split of REFERENCE_SPLITS) {
      const outcome = totals[split];
      if (outcome === undefined) throw new Error(`${split} was not replayed`);
      expect(readme).toContain(
        `| ${split} | ${fmt(outcome.calls)} | ${fmt(outcome.answersMatched)} | ${outcome.statesMatched} / ${outcome.states} | ${outcome.hashesMatched} |`,
      );
    }
  });

  it("replays τ-bench's 635 tasks (1,375 gold calls) and every probe", () => {
    expect([references.test.tasks.length, references.train.tasks.length, references.dev.tasks.length]).toEqual([
      115, 500, 20,
    ]);
    expect(
      [references.test.tasks, references.train.tasks, references.dev.tasks]
        .flat()
        .reduce((n, task) => n + task.calls.length, 0),
    ).toBe(1375);
  });
});
