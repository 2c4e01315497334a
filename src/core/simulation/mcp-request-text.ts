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
 * it to a message. A batch that gives one id to two requests is refused as a whole, with or without
 * such problems: the SDK would answer only one of them (and run both), and no client could tell
 * which answer was whose.
 */
import { isJsonObject, type Problem } from "../json.js";
import { jsonTextProblems, MAX_PROBLEMS } from "../json-input.js";

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
  const batch = Array.isArray(parsed);
  const messages: unknown[] = batch ? parsed : [parsed];
  const firstWithId = new Map<string, number>();
  messages.forEach((message, index) => {
    if (!isJsonObject(message) || (typeof message.id !== "string" && typeof message.id !== "number")) return;
    const key = mcpRequestKey(message.id);
    const first = firstWithId.get(key);
    if (first === undefined) firstWithId.set(key, index);
    else
      file(found.request, {
        path: `/${index}/id`,
        message: `the id ${key} is also the id of the message at /${first}; each request of a batch needs an id of its own, or its answer cannot be told apart`,
      });
  });
  // Every problem, not the first few: a call past them must not run with what JSON.parse made of it.
  for (const problem of jsonTextProblems(text, Number.POSITIVE_INFINITY)) {
    const match = IN_ARGUMENTS.exec(problem.path);
    const message = match === null ? undefined : messageAt(match[1], batch ? messages : undefined, parsed);
    const key = isToolCall(message) ? mcpRequestKey(message.id) : undefined;
    if (match === null || key === undefined) {
      file(found.request, problem);
      continue;
    }
    const list = found.argumentsByRequest.get(key) ?? [];
    file(list, { path: match[2] ?? "", message: problem.message });
    found.argumentsByRequest.set(key, list);
  }
  return found;
}

/** A few problems locate the mistake; the lists stay as short as every other refusal's. */
function file(list: Problem[], problem: Problem): void {
  if (list.length < MAX_PROBLEMS) list.push(problem);
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
