/**
 * The attempt's D1 row (the attempts table) holds, beside its id and status, every tool's state as
 * the flush copies it (ToolStates.all()) and the agent's completion. D1 refuses a row over
 * 2,000,000 bytes, and a copy it refused would fail again at every retry, so neither a call's new
 * state nor a completion is taken when the two together would pass this (the rest is room for the
 * row's other columns). The local runtime refuses no size, so nothing local would show it.
 */
import { D1_ROW_LIMIT_BYTES } from "../../adapters/d1/row-limit.js";
import { utf8Length } from "../../core/utf8.js";
import type { AttemptStorage } from "./storage.js";

export const MAX_ATTEMPT_ROW_BYTES = D1_ROW_LIMIT_BYTES - 100_000;

/** UTF-8 bytes of the completion the attempt holds; 0 before it completed. */
export function storedCompletionBytes(storage: AttemptStorage): number {
  const text = storage.readCompletion();
  return text === null ? 0 : utf8Length(text);
}
