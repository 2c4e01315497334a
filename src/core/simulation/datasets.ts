/**
 * Which dataset version each pinned tool starts from. A pin comes from the simulation's tool entry
 * (`dataset`) or, when no entry pins the tool, from a version-2 definition of one of its pinned
 * operations (its `dataset`); the entry wins, as an entry's `variant` wins over `default_variant`.
 * A tool's pins must agree, and each must name a stored version (resolved through the catalog):
 * every refusal names the field that pinned it. A pinned dataset replaces the tool's initial state.
 */
import {
  pinKey,
  samePin,
  unknownPinMessage,
  type DatasetCatalog,
  type DatasetPin,
  type ResolvedDatasetPin,
} from "../datasets/pin.js";
import type { Problem } from "../json.js";

/** One pin and the field it was written in. */
export interface PinSource {
  tool_name: string;
  pin: DatasetPin;
  path: string;
  /** true: from a tool entry; false: from a pinned definition. */
  entry: boolean;
}

type ToolDatasets =
  | { ok: true; byTool: Map<string, ResolvedDatasetPin> }
  | { ok: false; kind: "invalid_request" | "not_found"; problems: Problem[] };

export async function resolveToolDatasets(
  sources: readonly PinSource[],
  catalog: DatasetCatalog | undefined,
): Promise<ToolDatasets> {
  const chosen = new Map<string, PinSource>();
  const problems: Problem[] = [];
  for (const source of sources) {
    const current = chosen.get(source.tool_name);
    if (!current || (source.entry && !current.entry)) {
      chosen.set(source.tool_name, source);
      continue;
    }
    if (current.entry && !source.entry) continue;
    if (!samePin(current.pin, source.pin))
      problems.push({
        path: source.path,
        message: `tool "${source.tool_name}" is already pinned to dataset "${current.pin.name}" version ${current.pin.version} by ${current.path}; one tool starts from one dataset`,
      });
  }
  if (problems.length > 0) return { ok: false, kind: "invalid_request", problems };
  const byTool = new Map<string, ResolvedDatasetPin>();
  if (chosen.size === 0) return { ok: true, byTool };
  const found = catalog ? await catalog.resolve([...chosen.values()].map((s) => s.pin)) : new Map();
  const missing: Problem[] = [];
  for (const [tool, source] of chosen) {
    const resolved = found.get(pinKey(source.pin));
    if (resolved) byTool.set(tool, resolved);
    else missing.push({ path: source.path, message: unknownPinMessage(source.pin) });
  }
  return missing.length > 0 ? { ok: false, kind: "not_found", problems: missing } : { ok: true, byTool };
}
