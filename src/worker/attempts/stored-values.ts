/**
 * The JSON texts the attempt object keeps in its storage (storage.ts), read back: one reader per
 * stored shape, so each is parsed in one place and the object's code handles values, never text.
 *
 * Every one of these columns is written by the object itself from JSON.stringify of a JSON value,
 * so the text is JSON; what is checked is the shape a reader relies on beyond that.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../core/json.js";

/** A tool's state (the state table), as a call's set_state left it. */
export function storedToolState(text: string, toolName: string): JsonObject {
  const parsed: unknown = JSON.parse(text);
  if (!isJsonObject(parsed)) throw new Error(`the stored state of tool "${toolName}" is not a JSON object`);
  return parsed;
}

/** The agent's completion (the attempt row), as complete() wrote it. */
export function storedCompletion(text: string): JsonValue {
  return storedJson(text);
}

/** A call's arguments, as the calls and forwards tables keep them. */
export function storedArguments(text: string): JsonValue {
  return storedJson(text);
}

/** A call's result, as the calls table keeps it (an answer carries it as that text). */
export function storedResult(text: string): JsonValue {
  return storedJson(text);
}

/** A changed record of a dataset tool (the dataset_records table's value). */
export function storedRecordValue(text: string): JsonValue {
  return storedJson(text);
}

function storedJson(text: string): JsonValue {
  // SAFETY: every column read here is written by the attempt object from JSON.stringify of a JSON value.
  return JSON.parse(text) as JsonValue;
}
