/**
 * The dispatch request body, `{tool, operation_id?, arguments, call_id?}`, parsed by hand: it is on
 * the hot path, and a generic schema library walking every argument value costs more than the
 * call itself. Every problem names its field.
 */
import { jsonTextProblems, isWellFormedText, jsonInputProblems, NOT_WELL_FORMED } from "../json-input.js";
import { isJsonObject, pointerToken, type JsonObject, type Problem } from "../json.js";
import { messageOf } from "../message-of.js";

export interface DispatchRequest {
  tool: string;
  operation_id?: string;
  arguments: JsonObject;
  call_id?: string;
}

/** Long enough for any real name or idempotency key, short enough to keep evidence rows small. */
export const MAX_NAME_LENGTH = 200;
/** What a tool, operation_id or call_id must be, wherever it is given (HTTP body, MCP _meta). */
export const NAME_SHAPE = `expected a string of 1 to ${MAX_NAME_LENGTH} characters`;
const FIELDS = new Set(["tool", "operation_id", "arguments", "call_id"]);

type ParsedDispatch =
  | { ok: true; request: DispatchRequest }
  | { ok: false; problems: Problem[] }
  /** Not JSON at all: answered as malformed_json, as every other route answers it. */
  | { ok: false; malformed: string }
  /**
   * A well-formed request whose arguments no call can use (nested past the limit, or a number
   * JSON cannot carry): the agent's to fix, so a tool input error. Paths are into the arguments.
   */
  | { ok: false; unusableArguments: Problem[] };

/** Why the arguments of a call cannot be used (empty when they can), with paths into the arguments. */
export function argumentProblems(args: unknown): Problem[] {
  return jsonInputProblems(args, { what: "the arguments", wellFormedKeys: true });
}

/** The message of a tool input error over unusable arguments, the same over HTTP and MCP. */
export function unusableArgumentsMessage(problems: readonly Problem[]): string {
  return `the arguments cannot be used: ${problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")}`;
}

/** Parses the JSON text of a dispatch body. */
export function parseDispatchText(text: string): ParsedDispatch {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const reason = messageOf(error);
    return { ok: false, malformed: `the request body is not valid JSON: ${reason}` };
  }
  const parsed = parseDispatchRequest(raw);
  if (!parsed.ok) return parsed;
  // In the arguments, the agent's to fix like any unusable argument; elsewhere (a field given
  // twice), the request's.
  const problems = jsonTextProblems(text);
  if (problems.length === 0) return parsed;
  const outside = problems.filter((p) => !p.path.startsWith("/arguments/"));
  if (outside.length > 0) return { ok: false, problems: outside };
  return {
    ok: false,
    unusableArguments: problems.map((p) => ({ path: p.path.slice("/arguments".length), message: p.message })),
  };
}

/**
 * Names (tool, operation_id, call_id) become keys, headers and stored ids, so they must be
 * well-formed Unicode: a lone UTF-16 surrogate has no UTF-8 form, and D1 turns each one into the
 * same replacement bytes, so call ids the attempt object keeps apart would meet in D1's unique
 * index. The attempt object runs this parse on every call, from HTTP and MCP alike, before storing
 * anything, so this is the one place the rule is enforced.
 */
export function parseDispatchRequest(raw: unknown): Exclude<ParsedDispatch, { malformed: string }> {
  if (!isJsonObject(raw))
    return {
      ok: false,
      problems: [{ path: "", message: "expected a JSON object {tool, operation_id?, arguments, call_id?}" }],
    };
  const problems: Problem[] = [];
  for (const key of Object.keys(raw)) {
    if (!FIELDS.has(key)) problems.push({ path: `/${pointerToken(key)}`, message: `unknown field "${key}"` });
  }
  const tool = name(raw.tool, "/tool", true, problems);
  const operationId = name(raw.operation_id, "/operation_id", false, problems);
  const callId = name(raw.call_id, "/call_id", false, problems);
  const args = raw.arguments;
  if (args === undefined)
    problems.push({
      path: "/arguments",
      message: "required: the tool's arguments as a JSON object ({} when it takes none)",
    });
  else if (!isJsonObject(args)) problems.push({ path: "/arguments", message: "expected a JSON object" });
  if (problems.length > 0 || tool === undefined || !isJsonObject(args)) return { ok: false, problems };
  const unusable = argumentProblems(args);
  if (unusable.length > 0) return { ok: false, unusableArguments: unusable };
  const request: DispatchRequest = { tool, arguments: args };
  if (operationId !== undefined) request.operation_id = operationId;
  if (callId !== undefined) request.call_id = callId;
  return { ok: true, request };
}

function name(value: unknown, path: string, required: boolean, problems: Problem[]): string | undefined {
  if (value === undefined) {
    if (required) problems.push({ path, message: "required" });
    return undefined;
  }
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_NAME_LENGTH) {
    problems.push({ path, message: NAME_SHAPE });
    return undefined;
  }
  if (!isWellFormedText(value)) {
    problems.push({ path, message: NOT_WELL_FORMED });
    return undefined;
  }
  return value;
}
