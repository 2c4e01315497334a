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
 * only misses the cache and is compiled once more. Bounded, least recently used out first. An
 * operation this function has answered already is answered as it is, without building its key
 * again (shared-setups.ts hands the same ones to every attempt of a run's scenario).
 */
import { RecentlyUsed } from "../../core/recently-used.js";
import type { PinnedOperation } from "../../core/simulation/setup.js";

type Shared = Pick<PinnedOperation, "input_schema" | "output_schema" | "definition">;

/** Distinct operations kept; far more than the operations of the simulations running at once. */
const MAX_SHARED = 500;
const shared = new RecentlyUsed<string, Shared>(MAX_SHARED);
const answered = new WeakSet<PinnedOperation>();

/** The operation with its schemas and definition replaced by the isolate's copy of equal ones. */
export function sharedOperation(operation: PinnedOperation): PinnedOperation {
  if (answered.has(operation)) return operation;
  const key = JSON.stringify([operation.input_schema, operation.output_schema, operation.definition]);
  const known = shared.get(key);
  let result = operation;
  if (known) result = { ...operation, ...known };
  else
    shared.set(key, {
      input_schema: operation.input_schema,
      output_schema: operation.output_schema,
      definition: operation.definition,
    });
  answered.add(result);
  return result;
}
