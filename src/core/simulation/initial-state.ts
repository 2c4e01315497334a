/**
 * One tool's starting state in an attempt. State is shared by all operations of a tool, but each
 * operation's pinned definition carries its own initial_state, so the attempt starts from their
 * merge:
 *
 * - objects merge key by key, recursively;
 * - any other value (string, number, boolean, null, array) is a leaf;
 * - the same leaf declared by two operations must be equal (jsonEqual), else the simulation is
 *   refused, naming the path and both operations. There is no precedence to get wrong: the result
 *   does not depend on the order operations are listed in.
 */
import { cloneJson, isJsonObject, jsonEqual, pointer, type JsonObject, type JsonValue, type Problem } from "../json.js";

interface InitialStatePart {
  operation_id: string;
  state: JsonObject;
}

type MergedInitialState = { ok: true; state: JsonObject } | { ok: false; conflicts: Problem[] };

export function mergeInitialStates(parts: readonly InitialStatePart[]): MergedInitialState {
  const merged: JsonObject = {};
  /** Which operation first declared each leaf, by JSON Pointer, to name both sides of a conflict. */
  const owners = new Map<string, string>();
  const conflicts: Problem[] = [];
  for (const part of parts) mergeInto(merged, part.state, [], part.operation_id, owners, conflicts);
  return conflicts.length > 0 ? { ok: false, conflicts } : { ok: true, state: merged };
}

function mergeInto(
  target: JsonObject,
  source: JsonObject,
  tokens: string[],
  operation: string,
  owners: Map<string, string>,
  conflicts: Problem[],
): void {
  for (const [key, value] of Object.entries(source)) {
    const at = [...tokens, key];
    const path = pointer(...at);
    const existing: JsonValue | undefined = Object.hasOwn(target, key) ? target[key] : undefined;
    if (existing === undefined) {
      // defineProperty, not assignment: a key named "__proto__" must stay a plain data key.
      Object.defineProperty(target, key, {
        value: cloneJson(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      recordOwners(value, at, operation, owners);
    } else if (isJsonObject(existing) && isJsonObject(value)) {
      mergeInto(existing, value, at, operation, owners, conflicts);
    } else if (!jsonEqual(existing, value)) {
      const first = ownerOf(owners, at) ?? "another operation";
      conflicts.push({
        path,
        message: `initial_state of operations "${first}" and "${operation}" disagree at ${path}: ${JSON.stringify(existing)} versus ${JSON.stringify(value)}`,
      });
    }
  }
}

function recordOwners(value: JsonValue, tokens: string[], operation: string, owners: Map<string, string>): void {
  owners.set(pointer(...tokens), operation);
  if (isJsonObject(value))
    for (const [key, inner] of Object.entries(value)) recordOwners(inner, [...tokens, key], operation, owners);
}

function ownerOf(owners: Map<string, string>, tokens: string[]): string | undefined {
  for (let length = tokens.length; length > 0; length--) {
    const owner = owners.get(pointer(...tokens.slice(0, length)));
    if (owner !== undefined) return owner;
  }
  return undefined;
}
