/**
 * What an MCP request's JSON text would lose once parsed, sorted by whose mistake it is. The MCP
 * SDK reads the text with JSON.parse, which keeps the last of a repeated key and rounds a whole
 * number past 2^53, so a call would run, and be recorded as evidence, with arguments the agent did
 * not send. HTTP dispatch refuses such a text (parseDispatchText); this gives MCP the same rule:
 *
 * - inside one tools/call's `arguments`: that call's arguments cannot be used. It is answered as a
 *   tool input error, the agent's to fix, while the other messages of a batch still run.
 * - anywhere else (a repeated `method`, `name` or `id`, or a lossy value in a message that is not
 *   a tools/call): the request itself is ambiguous, so none of it runs.
 *
 * The calls are told apart by their JSON-RPC id, the only thing the SDK hands a handler that ties
 * it to a message; a batch that gives one id to a call with such arguments and to another message
 * is refused as a whole, since no answer could say which one it was.
 */
import { isJsonObject, type Problem } from "../json.js";
import { jsonTextProblems } from "../json-input.js";

interface McpTextProblems {
  /** Problems that refuse the whole request, at JSON Pointers into the request's body. */
  request: Problem[];
  /** Per tools/call (keyed by `mcpRequestKey` of its id), problems at pointers into its arguments. */
  argumentsByRequest: Map<string, Problem[]>;
}

/** `(/<index>)?/params/arguments/<rest>`: where a call's own arguments start in the body. */
const IN_ARGUMENTS = /^(?:\/(\d+))?\/params\/arguments(\/.*)$/;

/** The key a JSON-RPC id is filed under: ids are strings or numbers, and "1" is not 1. */
export function mcpRequestKey(id: string | number): string {
  return JSON.stringify(id);
}

/** `text` is a body JSON.parse accepted and `parsed` what it gave. */
export function mcpTextProblems(text: string, parsed: unknown): McpTextProblems {
  const found: McpTextProblems = { request: [], argumentsByRequest: new Map() };
  const problems = jsonTextProblems(text);
  if (problems.length === 0) return found;
  const batch = Array.isArray(parsed);
  const messages: unknown[] = batch ? parsed : [parsed];
  const idCounts = new Map<string, number>();
  for (const message of messages) {
    if (!isJsonObject(message) || (typeof message.id !== "string" && typeof message.id !== "number")) continue;
    const key = mcpRequestKey(message.id);
    idCounts.set(key, (idCounts.get(key) ?? 0) + 1);
  }
  for (const problem of problems) {
    const match = IN_ARGUMENTS.exec(problem.path);
    const message = match === null ? undefined : messageAt(match[1], batch ? messages : undefined, parsed);
    const key = isToolCall(message) ? mcpRequestKey(message.id) : undefined;
    if (match === null || key === undefined || idCounts.get(key) !== 1) {
      found.request.push(problem);
      continue;
    }
    const list = found.argumentsByRequest.get(key) ?? [];
    list.push({ path: match[2] ?? "", message: problem.message });
    found.argumentsByRequest.set(key, list);
  }
  return found;
}

/** The message a pointer's leading index names: a batch's pointers start with one, a single message's do not. */
function messageAt(index: string | undefined, batch: unknown[] | undefined, single: unknown): unknown {
  if (batch === undefined) return index === undefined ? single : undefined;
  return index === undefined ? undefined : batch[Number(index)];
}

function isToolCall(message: unknown): message is { method: "tools/call"; id: string | number } {
  return (
    isJsonObject(message) &&
    message.method === "tools/call" &&
    (typeof message.id === "string" || typeof message.id === "number")
  );
}
