/**
 * A dataset pin: `{"name": "retail", "version": 3}` names one stored version of a tenant's dataset
 * as a tool's starting state. The same shape is written in a version-2 definition (`dataset`), in a
 * simulation's tool entry (`dataset`) and in a suite scenario (`datasets`, by tool name), so it is
 * read by one function here and every refusal names the field it came from.
 */
import { isJsonObject, type JsonObject, type JsonValue, type Problem } from "../json.js";

export interface DatasetPin {
  name: string;
  version: number;
}

/** A pin that names a stored version: what an attempt needs to find the content (by hash) and to say what it started from. */
export interface ResolvedDatasetPin extends DatasetPin {
  content_hash: string;
  bytes: number;
}

/** Dataset names as the datasets API takes them: letters, digits, '_', '.' and '-', 1 to 64 characters. */
export const DATASET_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Reads a pin at `at` (a JSON Pointer of the caller's document); problems name each wrong field. */
export function readDatasetPin(raw: JsonValue | undefined, at: string): { pin: DatasetPin } | { problems: Problem[] } {
  if (!isJsonObject(raw))
    return {
      problems: [{ path: at, message: 'expected a dataset pin {"name": "<dataset>", "version": <number>}' }],
    };
  const problems: Problem[] = [];
  for (const key of Object.keys(raw))
    if (key !== "name" && key !== "version")
      problems.push({ path: `${at}/${key}`, message: `unknown key "${key}"; expected only name, version` });
  const { name, version } = raw as JsonObject;
  if (typeof name !== "string" || !DATASET_NAME.test(name))
    problems.push({
      path: `${at}/name`,
      message: "required: a dataset name (1 to 64 letters, digits, '_', '.' or '-')",
    });
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1)
    problems.push({ path: `${at}/version`, message: "required: a version number (a whole number from 1)" });
  if (problems.length > 0) return { problems };
  // SAFETY: both fields were checked just above.
  return { pin: { name: name as string, version: version as number } };
}

/** One key per (name, version), to look several pins up at once. */
export function pinKey(pin: DatasetPin): string {
  return `${pin.name}\u0000${pin.version}`;
}

export function samePin(a: DatasetPin, b: DatasetPin): boolean {
  return a.name === b.name && a.version === b.version;
}

/** What a refusal says about a pin that names no stored version. */
export function unknownPinMessage(pin: DatasetPin): string {
  return `no version ${pin.version} of dataset "${pin.name}" (GET /api/datasets/${encodeURIComponent(pin.name)}/versions lists its versions)`;
}

/**
 * The port planning resolves pins through: the worker answers it from D1 (adapters/d1/dataset-pins.ts),
 * tests from a map. It sees one tenant only, so another tenant's dataset is simply absent.
 */
export interface DatasetCatalog {
  /** The stored versions among `pins`, keyed by pinKey; a pin of no stored version is absent. */
  resolve(pins: readonly DatasetPin[]): Promise<ReadonlyMap<string, ResolvedDatasetPin>>;
}
