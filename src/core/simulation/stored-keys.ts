/**
 * The strings of a call that the attempt stores as text and keys by (call_id, tool, operation_id)
 * must be well-formed Unicode. A lone UTF-16 surrogate has no UTF-8 form: D1 turns each one into
 * the same replacement bytes, so three different call_id values the object keeps apart would meet
 * in D1's unique index. The object checks this itself, whatever the parse layer before it does,
 * because it is the one that would store them.
 */
import { isWellFormedText, NOT_WELL_FORMED } from "../json-input.js";
import type { Problem } from "../json.js";
import type { DispatchRequest } from "./dispatch-request.js";

/** Problems naming each stored key of `request` that is not well-formed Unicode. */
export function storedKeyProblems(request: DispatchRequest): Problem[] {
  const problems: Problem[] = [];
  const keys: Array<[string, string | undefined]> = [
    ["/tool", request.tool],
    ["/operation_id", request.operation_id],
    ["/call_id", request.call_id],
  ];
  for (const [path, value] of keys) {
    if (value !== undefined && !isWellFormedText(value)) problems.push({ path, message: NOT_WELL_FORMED });
  }
  return problems;
}
