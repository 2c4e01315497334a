/**
 * The called tools given to `toolproof permission`, in the shapes runs get saved in:
 * - `["get_invoice", "place_invoice_on_hold"]`
 * - `[{"name": "get_invoice", ...}]` (deepeval ToolCall, OpenAI Responses function_call items)
 * - `[{"function": {"name": "get_invoice"}}]` (OpenAI Chat Completions tool_calls)
 * - `[{"tool": "get_invoice", ...}]` (toolproof attempt evidence calls)
 * - any of those under "tools_called" (the metric route's body) or "calls" (attempt evidence).
 * Each call counts, so repeated calls stay repeated.
 */
import { at, describeValue, isRecord, ProblemList } from "../core/policy/fields.js";
import type { Problem } from "../core/json.js";

type CalledTools = { ok: true; names: string[] } | { ok: false; problems: Problem[] };

export function readCalledTools(value: unknown): CalledTools {
  const problems = new ProblemList();
  let list = value;
  let path = "";
  if (isRecord(value)) {
    const key = value.tools_called !== undefined ? "tools_called" : value.calls !== undefined ? "calls" : undefined;
    if (key === undefined) {
      return {
        ok: false,
        problems: [
          {
            path: "",
            message: 'expected an array of called tools, or an object holding one under "tools_called" or "calls"',
          },
        ],
      };
    }
    list = value[key];
    path = at("", key);
  }
  if (!Array.isArray(list)) {
    problems.add(path, `expected an array of called tools, got ${describeValue(list)}`);
    return { ok: false, problems: problems.items };
  }
  const names: string[] = [];
  list.forEach((item, index) => {
    const name = callName(item);
    if (name === undefined)
      problems.add(
        at(path, index),
        `expected a tool name, or a call with "name", "tool" or "function.name", got ${describeValue(item)}`,
      );
    else names.push(name);
  });
  return problems.isEmpty ? { ok: true, names } : { ok: false, problems: problems.items };
}

function callName(item: unknown): string | undefined {
  const usable = (value: unknown): string | undefined =>
    typeof value === "string" && value.trim() !== "" ? value : undefined;
  if (typeof item === "string") return usable(item);
  if (!isRecord(item)) return undefined;
  if (item.name !== undefined) return usable(item.name);
  if (item.tool !== undefined) return usable(item.tool);
  if (isRecord(item.function)) return usable(item.function.name);
  return undefined;
}
