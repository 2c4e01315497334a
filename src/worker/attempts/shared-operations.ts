/**
 * One copy per isolate of each pinned operation's schemas and definition, shared by every attempt
 * object that pinned an equal one.
 *
 * Why: an attempt object is loaded again whenever the runtime has unloaded it (after about ten
 * idle seconds locally), and each load parses its setup afresh. The compiled definition
 * (core/contract/compile.ts) is cached by the definition object's identity, so without sharing,
 * every load compiled the same definition again: measured as the largest piece of toolproof's own
 * work per call when many attempts of one simulation take turns (bench:dispatch). Simulations
 * start many attempts of the same pinned revisions, so one copy serves them all.
 *
 * The key is the operation's JSON text as it was stored (the Worker serialized every attempt's
 * setup the same way): equal text, equal operation. A differently ordered but equal operation
 * only misses the cache and is compiled once more. Bounded, least recently used out first.
 */
import type { PinnedOperation } from "../../core/simulation/setup.js";

type Shared = Pick<PinnedOperation, "input_schema" | "output_schema" | "definition">;

/** Distinct operations kept; far more than the operations of the simulations running at once. */
const MAX_SHARED = 500;
const shared = new Map<string, Shared>();

/** The operation with its schemas and definition replaced by the isolate's copy of equal ones. */
export function sharedOperation(operation: PinnedOperation): PinnedOperation {
  const key = JSON.stringify([operation.input_schema, operation.output_schema, operation.definition]);
  const known = shared.get(key);
  if (known) {
    // Re-inserted so the map's first key is always the least recently used one.
    shared.delete(key);
    shared.set(key, known);
    return { ...operation, ...known };
  }
  while (shared.size >= MAX_SHARED) {
    const oldest = shared.keys().next();
    if (oldest.done === true) break;
    shared.delete(oldest.value);
  }
  shared.set(key, {
    input_schema: operation.input_schema,
    output_schema: operation.output_schema,
    definition: operation.definition,
  });
  return operation;
}
